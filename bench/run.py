#!/usr/bin/env python3
"""make bench: run the policy matrix and the hook-overhead A/B in the VM,
one boot per kernel, and write bench/results/<kernel>.json, results.md and
chart.svg.

The guest side is bench/thpnuma-bench.sh; its "BENCH key=value... {json}"
lines are collected from the serial log. The boot is judged by the test
harness as usual: any kernel splat in the guest's dmesg fails the run.
"""
import argparse
import concurrent.futures
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# No __pycache__ left in tests/vm/ by importing the harness.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "vm"))
import harness  # noqa: E402
import report  # noqa: E402

GUEST_SCRIPT = "thpnuma-bench.sh"


def parse_bench_lines(text):
    """Each "BENCH k=v ... {json}" line as (tags dict, result dict)."""
    out = []
    for raw in text.splitlines():
        line = raw.rstrip("\r")
        if not line.startswith("BENCH "):
            continue
        head, brace, body = line.partition("{")
        tags = {}
        for word in head.split()[1:]:
            k, _, v = word.partition("=")
            tags[k] = v if _ else True
        try:
            out.append((tags, json.loads(brace + body)))
        except ValueError:
            print("bench: unparsable result line: %s" % line[:200], file=sys.stderr)
    return out


def spread(values):
    return {"median": statistics.median(values), "min": min(values),
            "max": max(values), "n": len(values)}


# Per state and round: the fastest pass (the steadiest under a busy host)
# and the plain throughput of the whole run.
OVERHEAD_METRICS = ("best_pass_per_sec", "per_sec")


def overhead(rows):
    """Ratios loaded/absent of faults per second, THP and base pages."""
    out = {}
    for kind in ("thp", "base"):
        for metric in OVERHEAD_METRICS:
            per_state, rounds = {}, {}
            for tags, res in rows:
                rate = res[kind].get(metric)
                if rate is None:
                    continue
                per_state.setdefault(tags["state"], []).append(rate)
                rounds.setdefault(tags["round"], {})[tags["state"]] = rate
            if not per_state.get("absent") or not per_state.get("kernel"):
                continue
            absent, loaded = spread(per_state["absent"]), spread(per_state["kernel"])
            paired = [r["kernel"] / r["absent"] for r in rounds.values()
                      if "kernel" in r and "absent" in r]
            out.setdefault(kind, {})[metric] = {
                "absent": absent, "kernel": loaded,
                "ratio_of_medians": loaded["median"] / absent["median"],
                "ratio_of_best": loaded["max"] / absent["max"],
                "per_round_ratio": spread(paired),
            }
    return out


def run_kernel(kver, args, conf):
    logs = os.path.join(args.logs, kver)
    start = time.time()
    results, text, _ = harness.run_boot(
        kver, "2n", [(GUEST_SCRIPT, args.timeout)], True, logs,
        extra_conf=conf)
    wall = time.time() - start
    rows = parse_bench_lines(text)
    cells = [dict(tags, result=res) for tags, res in rows
             if "overhead" not in tags]
    ab = [(tags, res) for tags, res in rows if "overhead" in tags]
    failed = [r for r in results if r.status == "FAIL"]
    doc = {
        "kernel": kver,
        "topology": "2n: 2 nodes x %d MiB, 2 vCPUs, QEMU TCG, swap on zram"
                    % int(os.environ.get("THPNUMA_VM_NODE_MB", 768)),
        "boot_wall_s": round(wall, 1),
        "guest_settings": conf,
        "harness_failures": [r.line() for r in failed],
        "cells": cells,
        "overhead": overhead(ab),
        "overhead_metrics": list(OVERHEAD_METRICS),
        "overhead_rounds": [dict(tags, result=res) for tags, res in ab],
    }
    return doc, results


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kernels", nargs="+", required=True)
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--logs", default=os.path.join(harness.BUILD, "bench-logs"))
    ap.add_argument("--jobs", type=int, default=2,
                    help="kernels booted at once (1: quieter A/B numbers)")
    ap.add_argument("--timeout", type=int, default=1500,
                    help="guest time limit per kernel, seconds")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="guest setting, e.g. BENCH_ROUNDS=3 (see thpnuma-bench.sh)")
    args = ap.parse_args()

    conf = {"BENCH_BASELINES": "1"}
    for item in args.set:
        name, _, value = item.partition("=")
        conf[name] = value
    os.makedirs(args.out, exist_ok=True)
    start = time.time()
    print("bench: %s, one 2-node VM boot each (TCG), logs in %s"
          % (" ".join(args.kernels), args.logs), flush=True)
    docs, failed = [], False
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {k: pool.submit(run_kernel, k, args, conf) for k in args.kernels}
        for kver in args.kernels:
            doc, results = futures[kver].result()
            for r in results:
                if r.status != "PASS":
                    print(r.line(), flush=True)
            passed = sum(r.status == "PASS" for r in results)
            bad = [r for r in results if r.status == "FAIL"]
            failed |= bool(bad) or not (doc["cells"] or doc["overhead_rounds"])
            print("bench: %s: %d cells, %d steps passed, %d failed, %.0f s"
                  % (kver, len(doc["cells"]), passed, len(bad), doc["boot_wall_s"]),
                  flush=True)
            docs.append(doc)
    wall = time.time() - start
    for doc in docs:
        doc["bench_wall_s"] = round(wall)
        doc["bench_command"] = "python3 bench/run.py " + " ".join(sys.argv[1:])
        with open(os.path.join(args.out, "%s.json" % doc["kernel"]), "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")
    report.write(docs, args.out)
    print("bench: wrote %s/{%s,results.md,chart.svg} in %.0f s"
          % (args.out, ",".join("%s.json" % d["kernel"] for d in docs), wall))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
