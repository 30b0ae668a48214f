#!/usr/bin/env python3
"""make bench: run the policy matrix and the hook-overhead A/B in the VM,
one boot per kernel, then the reclaim A/B in a 16-vCPU boot per kernel, and
write bench/results/<kernel>.json, results.md and chart.svg.

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
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# No __pycache__ left in tools/vm/ by importing the harness.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools", "vm"))
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
    """Ratios loaded/absent of faults per second, per kind of fault.

    A row is one thp-fault-bench run: of one kind (its "kind" tag), or of
    thp and base together (before the tag).
    """
    out = {}
    kinds = []
    for tags, res in rows:
        for kind in [tags["kind"]] if "kind" in tags else ("thp", "base"):
            if kind in res and kind not in kinds:
                kinds.append(kind)
    for kind in kinds:
        for metric in OVERHEAD_METRICS:
            per_state, rounds = {}, {}
            for tags, res in rows:
                rate = res.get(kind, {}).get(metric)
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


class QemuCpu(threading.Thread):
    """Host CPU seconds of one boot's QEMU at each "@@BENCH-MARK" line the
    guest prints. Wall time in the guest grows whenever the host runs
    something else; the emulator's own CPU time counts only the guest's work.
    """

    def __init__(self, results_log):
        super().__init__(daemon=True)
        self.path, self.marks, self.done = results_log, {}, threading.Event()

    def qemu_pid(self):
        for pid in os.listdir("/proc"):
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    cmd = f.read().split(b"\0")
            except OSError:
                continue
            if (cmd and cmd[0].endswith(b"qemu-system-x86_64")
                    and ("file:" + self.path).encode() in cmd):
                return pid
        return None

    @staticmethod
    def cpu_seconds(pid):
        try:
            with open("/proc/%s/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            return None
        # utime and stime, fields 14 and 15 of stat(5).
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def run(self):
        pid, seen = None, 0
        while not self.done.is_set():
            time.sleep(0.02)
            if pid is None:
                pid = self.qemu_pid()
                continue
            try:
                with open(self.path, errors="replace") as f:
                    lines = f.read().split("\n")[:-1]
            except OSError:
                continue
            for line in lines[seen:]:
                if line.startswith("@@BENCH-MARK "):
                    cpu = self.cpu_seconds(pid)
                    if cpu is not None:
                        self.marks[line.split(None, 1)[1].strip()] = cpu
            seen = max(seen, len(lines))

    def seconds(self, tags):
        """QEMU CPU seconds between the begin and end marks of a run."""
        key = "reclaim state=%s round=%s" % (tags["state"], tags["round"])
        a, b = self.marks.get("begin " + key), self.marks.get("end " + key)
        return None if a is None or b is None else round(b - a, 2)


def reclaim(rows):
    """Module absent over loaded (over 1: faster loaded), per state and
    paired per round, of the workload's wall seconds in the guest and of
    QEMU's CPU seconds on the host."""
    out = {}
    for metric in ("seconds", "qemu_cpu_s"):
        per_state, rounds = {}, {}
        for tags, res in rows:
            if res.get(metric) is None:
                continue
            per_state.setdefault(tags["state"], []).append(res[metric])
            rounds.setdefault(tags["round"], {})[tags["state"]] = res[metric]
        if not per_state.get("absent") or not per_state.get("kernel"):
            continue
        absent, loaded = spread(per_state["absent"]), spread(per_state["kernel"])
        paired = [r["absent"] / r["kernel"] for r in rounds.values()
                  if "kernel" in r and "absent" in r]
        out[metric] = {"absent": absent, "kernel": loaded,
                       "ratio_of_medians": absent["median"] / loaded["median"],
                       # A run the host slowed is only ever slower.
                       "ratio_of_best": absent["min"] / loaded["min"],
                       "per_round_ratio": spread(paired)}
    if not out:
        return {}
    counts = {}
    for key in ("pgscan_kswapd", "pgscan_direct", "memcg_pgscan", "pswpout",
                "thp_fault_alloc", "thp_fault_fallback"):
        counts[key] = spread([res.get(key, 0) for _, res in rows])
    w = rows[0][1]
    return {"metrics": out, "counts": counts,
            "workload": "reclaim-churn: %d MiB bound to node %d (workers: %d), "
                        "%d MiB in a cgroup with memory.max %d MiB (workers: %d), "
                        "%d pass(es), CPU %d" % (w["region_mb"], w["node"], w["workers"],
                                                 w["memcg_region_mb"], w["memcg_max_mb"],
                                                 w["memcg_workers"], w["passes"], w.get("cpu", -1))}


def topology_text(topo):
    nodes, mb = harness.TOPOLOGIES[topo]
    cpus = harness.TOPOLOGY_CPUS.get(topo, nodes)
    clock = (", instruction clock (-icount shift=0: 1 ns per instruction)"
             if topo in harness.ICOUNT_TOPOLOGIES else "")
    return "%s: %d nodes x %d MiB, %d vCPU(s), QEMU TCG%s, swap on zram" % (
        topo, nodes, int(os.environ.get("THPNUMA_VM_NODE_MB", mb)), cpus, clock)


def run_kernel(kver, args, conf):
    logs = os.path.join(args.logs, kver)
    start = time.time()
    results, rows = [], []
    icount = args.topology in harness.ICOUNT_TOPOLOGIES
    reclaim_topology = topology_text("16c4n")
    if icount and args.reclaim_rounds:
        # One CPU and an instruction clock: the reclaim A/B's guest seconds
        # are instructions, in the same boot (node 0 is 768 MiB there).
        conf = dict(conf, BENCH_RECLAIM_ROUNDS=str(args.reclaim_rounds))
        conf.setdefault("BENCH_RECLAIM_ARGS",
                        "--region 960M --passes 1 --workers 1 --memcg-workers 1 --cpu 0")
        reclaim_topology = topology_text(args.topology)
    if not args.reclaim_only:
        results, text, _ = harness.run_boot(
            kver, args.topology, [(GUEST_SCRIPT, args.timeout)], True, logs,
            extra_conf=conf)
        rows = parse_bench_lines(text)
    wall = time.time() - start
    reclaim_wall = 0
    if args.reclaim_rounds and not icount:
        # Reclaim on many CPUs at once: its own boot, nothing else in it.
        start = time.time()
        conf16 = dict(conf, BENCH_MATRIX="0", BENCH_BASELINES="", BENCH_ROUNDS="0",
                      BENCH_RECLAIM_ROUNDS=str(args.reclaim_rounds))
        sampler = QemuCpu(os.path.join(logs, "%s-16c4n-%s" % (kver, GUEST_SCRIPT),
                                       "results.log"))
        sampler.start()
        more, text16, _ = harness.run_boot(
            kver, "16c4n", [(GUEST_SCRIPT, args.timeout)], True, logs,
            extra_conf=conf16)
        sampler.done.set()
        sampler.join()
        reclaim_wall = time.time() - start
        results += more
        for tags, res in parse_bench_lines(text16):
            if "reclaim" in tags:
                res["qemu_cpu_s"] = sampler.seconds(tags)
                rows.append((tags, res))
    cells = [dict(tags, result=res) for tags, res in rows
             if "overhead" not in tags and "reclaim" not in tags]
    ab = [(tags, res) for tags, res in rows if "overhead" in tags]
    rc = [(tags, res) for tags, res in rows if "reclaim" in tags]
    failed = [r for r in results if r.status == "FAIL"]
    doc = {
        "kernel": kver,
        "topology": topology_text(args.topology),
        "boot_wall_s": round(wall, 1),
        "guest_settings": conf,
        "harness_failures": [r.line() for r in failed],
        "cells": cells,
        "overhead": overhead(ab),
        "overhead_metrics": list(OVERHEAD_METRICS),
        "overhead_rounds": [dict(tags, result=res) for tags, res in ab],
        "reclaim": reclaim(rc),
        "reclaim_rounds": [dict(tags, result=res) for tags, res in rc],
        "reclaim_topology": reclaim_topology,
        "reclaim_boot_wall_s": round(reclaim_wall, 1),
    }
    return doc, results


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kernels", nargs="+", required=True)
    ap.add_argument("--out", default=os.path.join(HERE, "results"))
    ap.add_argument("--logs", default=os.path.join(harness.BUILD, "bench-logs"))
    ap.add_argument("--jobs", type=int, default=2,
                    help="kernels booted at once (1: quieter A/B numbers)")
    ap.add_argument("--topology", default="2n", choices=sorted(harness.TOPOLOGIES),
                    help="the main boot's VM topology (1c2n-icount: an instruction "
                         "clock, for the overhead A/B)")
    ap.add_argument("--timeout", type=int, default=1500,
                    help="guest time limit per kernel, seconds")
    ap.add_argument("--reclaim-rounds", type=int, default=10,
                    help="rounds of the reclaim A/B in the 16-vCPU boot (0: no such boot)")
    ap.add_argument("--reclaim-only", action="store_true",
                    help="only the 16-vCPU boot with the reclaim A/B")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="guest setting, e.g. BENCH_ROUNDS=3 (see thpnuma-bench.sh)")
    args = ap.parse_args()

    conf = {"BENCH_BASELINES": "1"}
    for item in args.set:
        name, _, value = item.partition("=")
        conf[name] = value
    os.makedirs(args.out, exist_ok=True)
    start = time.time()
    icount = args.topology in harness.ICOUNT_TOPOLOGIES
    if icount and args.reclaim_only:
        ap.error("--reclaim-only: under %s the reclaim A/B is in the main boot" % args.topology)
    boots = ([] if args.reclaim_only else [args.topology]) + \
        (["16-vCPU"] if args.reclaim_rounds and not icount else [])
    print("bench: %s, %s VM boot each (TCG), logs in %s"
          % (" ".join(args.kernels), " and ".join(boots), args.logs), flush=True)
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
            failed |= bool(bad) or not (doc["cells"] or doc["overhead_rounds"]
                                        or doc["reclaim_rounds"])
            print("bench: %s: %d cells, %d reclaim runs, %d steps passed, %d failed, %.0f s"
                  % (kver, len(doc["cells"]), len(doc["reclaim_rounds"]), passed, len(bad),
                     doc["boot_wall_s"] + doc["reclaim_boot_wall_s"]), flush=True)
            docs.append(doc)
    wall = time.time() - start
    for doc in docs:
        doc["bench_wall_s"] = round(wall)
        doc["bench_command"] = "python3 bench/run.py " + " ".join(sys.argv[1:])
        with open(os.path.join(args.out, "%s.json" % doc["kernel"]), "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")
    report.write(docs, args.out)
    print("bench: wrote %s/{%s,results.md,summary.md%s} in %.0f s"
          % (args.out, ",".join("%s.json" % d["kernel"] for d in docs),
             ",chart.svg" if any(d["cells"] for d in docs) else "", wall))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
