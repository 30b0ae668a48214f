#!/usr/bin/env python3
"""Markdown table and SVG chart from bench/results/<kernel>.json.

Run by bench/run.py; also by hand to redraw:
    python3 bench/report.py bench/results/*.json
"""
import json
import math
import os
import sys
from xml.sax.saxutils import escape

STATES = ["absent", "kernel", "strict-local", "local-then-remote",
          "local-then-remote+zr7", "budget"]
SHORT = {"absent": "absent", "kernel": "kernel", "strict-local": "strict",
         "local-then-remote": "l-t-r", "local-then-remote+zr7": "l-t-r zr7",
         "budget": "budget"}
SCENARIOS = ["storm", "fragmented", "free", "shmem", "cache"]
SCENARIO_TITLE = {
    "storm": "swap storm (node 0 filled to its low watermark)",
    "fragmented": "fragmented node 0 (no free 2 MiB block)",
    "free": "free node",
    "shmem": "shmem storm (a MAP_SHARED buffer, node 0 filled to its low watermark)",
    "cache": "cheap reclaim (node 0 full of clean page cache, kswapd0 at nice 19)",
}
COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"]


def fault(cell):
    """The measured fault of a cell, whichever workload produced it."""
    res = cell["result"]
    return res.get("fault") or res.get("fragmented")


def thp_counts(cell):
    """THP faults and fallbacks of a cell's fault: a shmem region's huge
    pages count in thp_file_alloc and thp_file_fallback."""
    vm = fault(cell)["vmstat"]
    if cell["result"].get("memory") == "shmem":
        return vm.get("thp_file_alloc", 0), vm.get("thp_file_fallback", 0)
    return vm["thp_fault_alloc"], vm["thp_fault_fallback"]


def orders(cell, kind):
    """The module's outcomes of a cell's hooked faults of one THP kind
    (its orders file), summed over nodes and orders: {"local", "remote",
    "fallback", "passthrough"}; None if the cell has no orders table."""
    rows = cell["result"].get("orders")
    if rows is None:
        return None
    out = dict.fromkeys(("local", "remote", "fallback", "passthrough"), 0)
    for r in rows:
        if r["kind"] == kind:
            for k in out:
                out[k] += r[k]
    return out


def hooked(cell):
    """The module's latency histogram of the cell's hooked allocations
    (thpnumactl hist --json), summed over nodes and outcomes: {"n", "p50",
    "p99", "max"}, each quantile as (bound in ns, "<=") for the upper
    bound of the log2 bucket that holds it, or (lower bound, ">=") for the
    last, unbounded bucket; None where n is 0. None if the cell has no
    histogram (module absent, or results from before the module had one)."""
    h = cell["result"].get("hist")
    if not h or not h.get("histograms"):
        return None
    bounds = [b["lt_ns"] for b in h["histograms"][0]["buckets"]]
    total = [0] * len(bounds)
    for row in h["histograms"]:
        for i, b in enumerate(row["buckets"]):
            total[i] += b["count"]
    n = sum(total)

    def bucket(b):
        if bounds[b] is not None:
            return (bounds[b], "<=")
        return (bounds[b - 1] if b else 0, ">=")

    def quantile(pct):
        # Nearest rank: the first bucket where the running count reaches
        # ceil(pct / 100 * n), in integers.
        rank, seen = max(1, -(-n * pct // 100)), 0
        for b, v in enumerate(total):
            seen += v
            if seen >= rank:
                return bucket(b)
        return None

    out = {"n": n}
    for name, pct in (("p50", 50), ("p99", 99)):
        out[name] = quantile(pct) if n else None
    out["max"] = bucket(max(b for b, v in enumerate(total) if v)) if n else None
    return out


def module_count(cell, name):
    """One of the module's own counters over a cell (thpnuma-bench.sh's
    "module" object, summed over nodes); None without it (module absent,
    older results) or, for its time, where the module hooked no THP
    fault."""
    m = cell["result"].get("module")
    if not m or name not in m:
        return None
    if name == "alloc_ns" and not (m.get("thp_local", 0) + m.get("thp_remote", 0)
                                   + m.get("thp_fallback", 0)):
        return None
    return m[name]


def alloc_s(cell):
    """The module's time in hooked THP allocations of a cell, seconds."""
    ns = module_count(cell, "alloc_ns")
    return None if ns is None else ns / 1e9


def fmt_opt(v, digits=0):
    return "-" if v is None else fmt(v, digits)


def calibration(doc):
    """The budget state's budget_us and where it came from: the
    budget-calibration line's numbers, or only the budget cells' tag."""
    cal = next((c for c in doc["cells"] if c.get("scenario") == "budget-calibration"), None)
    if cal:
        b = cal["result"]["budget_calibration"]
        if not b.get("calibrated", True):
            why = ("had no effortful local attempt" if not b["effortful"] else
                   "swapped out %d pages (%d effortful local attempts), under one THP's "
                   "worth, so it did not storm" % (fault(cal)["vmstat"]["pswpout"], b["effortful"]))
            return ("budget_us=%d, the default: the calibration storm under local-then-remote "
                    "zone_reclaim=7 %s" % (b["budget_us"], why))
        return ("budget_us=%d: half the median effort (direct compaction and reclaim) of the "
                "%d effortful local attempts of a storm under local-then-remote zone_reclaim=7 "
                "in the same boot (median %s µs; storm: %d swap-outs)" % (
                    b["budget_us"], b["effortful"], fmt(b["median_effort_ns"] / 1e3),
                    fault(cal)["vmstat"]["pswpout"]))
    us = sorted({c["budget_us"] for c in doc["cells"] if c.get("budget_us")})
    return "budget_us=%s (BENCH_BUDGET_US)" % ",".join(us) if us else None


def hooked_q(cell, name):
    """One hooked-allocation quantile of a cell, as hooked() gives it."""
    h = hooked(cell)
    return h[name] if h else None


def fmt_ns(q):
    """A bucket bound as "≤ 65.5 µs" (3 significant digits)."""
    if q is None:
        return "-"
    ns, rel = q
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            break
    else:
        unit, scale = "ns", 1
    v = ns / scale
    digits = 2 if v < 10 else 1 if v < 100 else 0
    return "%s %s %s" % ("≤" if rel == "<=" else "≥", fmt(v, digits), unit)


def hooked_cols(cell):
    """The table's two hooked-allocation columns: count, p50 / p99 / max."""
    h = hooked(cell)
    if h is None:
        return "-", "-"
    return "%d" % h["n"], " / ".join(fmt_ns(h[k]) for k in ("p50", "p99", "max"))


# (title, unit, function of a cell, log scale)
METRICS = [
    ("swap-outs", "pages", lambda c: fault(c)["vmstat"]["pswpout"], False),
    ("THP coverage", "%", lambda c: fault(c)["thp_pct"], False),
    ("local", "% of pages", lambda c: fault(c)["local_pct"], False),
    ("compaction stalls", "", lambda c: fault(c)["vmstat"]["compact_stall"], False),
    # Host preemption of the emulator makes outliers of seconds: log scale.
    ("p99 fault latency", "ms per 2 MiB, log", lambda c: fault(c)["fault_p99_us"] / 1e3, True),
    # Only where the module hooked the faults (not absent, not kernel).
    ("THP allocation time", "s, module's alloc_ns", alloc_s, False),
]
LOG_FLOOR = 1.0     # ms: the bottom of a log-scale panel
# A marker drawn on a panel's bars, in ms: (legend, function of a cell
# giving a (ns, "<=" or ">=") quantile as hooked() does, or None).
MARKERS = {
    "p99 fault latency": ("hooked allocation p99 (thpnuma's histogram, log2 bucket upper bound)",
                          lambda c: hooked_q(c, "p99")),
}


def find(doc, state, defrag, scenario):
    for c in doc["cells"]:
        if (c.get("state"), c.get("defrag"), c.get("scenario")) == (state, defrag, scenario):
            return c
    return None


def fmt(v, digits=0):
    return ("%%.%df" % digits) % v


def table(doc):
    lines = [
        "| scenario | module | defrag | swap-outs | swap-ins | compaction stalls | direct scans "
        "| THP faults / fallbacks (shmem: thp_file_*) | THP coverage | local | fault p50 / p99 / max (ms) "
        "| hooked allocs | hooked alloc p50 / p99 / max (log2 bucket upper bound) | wall (ms) "
        "| THP alloc time (s) | budget skips |",
        "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for scenario in SCENARIOS:
        for state in STATES:
            for defrag in ("madvise", "always"):
                c = find(doc, state, defrag, scenario)
                if not c:
                    continue
                f = fault(c)
                vm = f["vmstat"]
                thp, thp_fb = thp_counts(c)
                n, q = hooked_cols(c)
                lines.append("| %s | %s | %s | %d | %d | %d | %d | %d / %d | %s%% | %s%% | %s / %s / %s "
                             "| %s | %s | %s | %s | %s |" % (
                                 scenario, state, defrag, vm["pswpout"], vm["pswpin"],
                                 vm["compact_stall"], vm["pgscan_direct"],
                                 thp, thp_fb,
                                 fmt(f["thp_pct"]), fmt(f["local_pct"]),
                                 fmt(f["fault_p50_us"] / 1e3, 1), fmt(f["fault_p99_us"] / 1e3, 1),
                                 fmt(f["fault_max_us"] / 1e3, 1), n, q, fmt(f["wall_ms"]),
                                 fmt_opt(alloc_s(c), 2),
                                 fmt_opt(module_count(c, "budget_skip"))))
    return lines


def summary(docs, defrag="madvise"):
    """Compact table for the README: the chart's numbers, both kernels."""
    lines = ["| scenario | module | kernel | swap-outs | THP coverage | local | compaction stalls | p99 fault (ms) "
             "| p99 hooked alloc (log2 bucket upper bound) | THP alloc time (s) | budget skips |",
             "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for scenario in SCENARIOS:
        for state in STATES:
            for doc in docs:
                c = find(doc, state, defrag, scenario)
                if not c:
                    continue
                f = fault(c)
                h = hooked(c)
                lines.append("| %s | %s | %s | %d | %s%% | %s%% | %d | %s | %s | %s | %s |" % (
                    scenario, state, doc["kernel"].split("-")[0].split("+")[0],
                    f["vmstat"]["pswpout"], fmt(f["thp_pct"]), fmt(f["local_pct"]),
                    f["vmstat"]["compact_stall"], fmt(f["fault_p99_us"] / 1e3, 1),
                    fmt_ns(h["p99"]) if h else "-", fmt_opt(alloc_s(c), 2),
                    fmt_opt(module_count(c, "budget_skip"))))
    return lines


def orders_lines(doc, scenario="shmem", kind="shmem"):
    """Where the module put a scenario's hooked THPs of one kind."""
    lines = ["| module | defrag | local | remote | fallback | passthrough |",
             "|---|---|--:|--:|--:|--:|"]
    for state in STATES:
        for defrag in ("madvise", "always"):
            c = find(doc, state, defrag, scenario)
            o = orders(c, kind) if c else None
            if o is None:
                continue
            lines.append("| %s | %s | %d | %d | %d | %d |" % (
                state, defrag, o["local"], o["remote"], o["fallback"],
                o["passthrough"]))
    return lines if len(lines) > 2 else []


def baselines(doc):
    c = find(doc, "absent", "madvise", "baselines")
    if not c:
        return []
    res = c["result"]
    ns = res["ns_per_access"]
    lines = ["| region | ns per access | THP coverage | local |", "|---|--:|--:|--:|"]
    for name in ("local_base", "local_thp", "remote_thp", "fragmented"):
        if name in res:
            lines.append("| %s | %s | %s%% | %s%% |" % (
                name, fmt(ns[name], 1), fmt(res[name]["thp_pct"]),
                fmt(res[name]["local_pct"])))
    return lines


OVERHEAD_TITLE = {"best_pass_per_sec": "fastest pass", "per_sec": "whole run"}
# thp-fault-bench's kinds, in its order.
KIND_TITLE = (("thp", "THP"), ("base", "base page"), ("mthp16", "16 KiB mTHP"),
              ("mthp64", "64 KiB mTHP"), ("shmem4k", "shmem 4 KiB"),
              ("shmem2m", "shmem 2 MiB"))


def overhead_lines(docs):
    lines = ["| kernel | faults | rate | absent, median /s (min-max) | `kernel` policy, median /s (min-max) "
             "| ratio of medians | ratio of best rounds | per-round ratio, median (min-max) | rounds |",
             "|---|---|---|--:|--:|--:|--:|--:|--:|"]
    for doc in docs:
        for kind, title in KIND_TITLE:
            for metric, o in sorted(doc.get("overhead", {}).get(kind, {}).items()):
                a, k, r = o["absent"], o["kernel"], o["per_round_ratio"]
                lines.append("| %s | %s | %s | %.0f (%.0f-%.0f) | %.0f (%.0f-%.0f) | %.4f | %.4f | %.4f (%.4f-%.4f) | %d |" % (
                    doc["kernel"], title, OVERHEAD_TITLE.get(metric, metric),
                    a["median"], a["min"], a["max"], k["median"], k["min"], k["max"],
                    o["ratio_of_medians"], k["max"] / a["max"],
                    r["median"], r["min"], r["max"], r["n"]))
    return lines


RECLAIM_TITLE = {"qemu_cpu_s": "QEMU CPU s (host)", "seconds": "wall s (guest)"}


def reclaim_lines(docs):
    """The reclaim A/B: reclaim-churn, module absent over loaded."""
    lines = ["| kernel | metric | absent, median (min-max) | `kernel` policy, median (min-max) "
             "| ratio of medians, absent/loaded | ratio of best runs | per-round ratio, median (min-max) "
             "| rounds |",
             "|---|---|--:|--:|--:|--:|--:|--:|"]
    work, counts = set(), []
    for doc in docs:
        o = doc.get("reclaim")
        if not o:
            continue
        work.add(o["workload"])
        for metric in ("qemu_cpu_s", "seconds"):
            m = o["metrics"].get(metric)
            if not m:
                continue
            a, k, r = m["absent"], m["kernel"], m["per_round_ratio"]
            lines.append("| %s | %s | %.2f (%.2f-%.2f) | %.2f (%.2f-%.2f) | %.3f | %.3f "
                         "| %.3f (%.3f-%.3f) | %d |" % (
                             doc["kernel"], RECLAIM_TITLE[metric], a["median"], a["min"], a["max"],
                             k["median"], k["min"], k["max"], m["ratio_of_medians"],
                             m["ratio_of_best"], r["median"], r["min"], r["max"], r["n"]))
        c = o["counts"]
        counts.append("%s: pgscan_kswapd %.0f, pgscan_direct %.0f, memcg pgscan %.0f, "
                      "pswpout %.0f (medians per run); THP faults %.0f" % (
                          doc["kernel"], c["pgscan_kswapd"]["median"],
                          c["pgscan_direct"]["median"], c["memcg_pgscan"]["median"],
                          c["pswpout"]["median"],
                          c["thp_fault_alloc"]["max"] + c["thp_fault_fallback"]["max"]))
    if len(lines) == 2:
        return []
    return lines + ["", "Workload: %s; %s. Reclaim per run: %s." % (
        "; ".join(sorted(work)), docs[0].get("reclaim_topology", "16c4n boot (4 nodes, 16 vCPUs)"),
        "; ".join(counts))]


def write_md(docs, path):
    out = ["# thpnuma policy benchmark", "",
           "Produced by `%s`, %d s wall for all kernels."
           % (docs[0].get("bench_command", "python3 bench/run.py"),
              docs[0].get("bench_wall_s", 0)),
           "Emulated NUMA (QEMU TCG, 2 nodes): counts, placements and ratios are comparable; "
           "absolute latencies and remote-access penalties are not.", ""]
    for doc in docs:
        if not doc["cells"]:
            continue
        out += ["## %s" % doc["kernel"], "",
                "%s; guest boot %.0f s; guest settings %s." % (
                    doc["topology"], doc["boot_wall_s"],
                    ", ".join("%s=%s" % kv for kv in sorted(doc["guest_settings"].items())) or "defaults"),
                ""]
        if doc["harness_failures"]:
            out += ["Harness failures: " + "; ".join(doc["harness_failures"]), ""]
        out += table(doc) + [""]
        cal = calibration(doc)
        if cal:
            out += ["Budget state: %s." % cal, ""]
        o = orders_lines(doc)
        if o:
            out += ["Shmem scenario, the module's outcome per hooked shmem THP fault "
                    "(its orders file, kind shmem, all nodes and orders):", ""] + o + [""]
        b = baselines(doc)
        if b:
            out += ["Latency baselines (module absent, same boot):", ""] + b + [""]
    if any(d.get("overhead") for d in docs):
        out += ["## Hook overhead (thp-fault-bench, module absent vs `kernel` policy, "
                "interleaved in one boot: %s)" % docs[0].get("topology", "2n"), ""]
        out += overhead_lines(docs) + [""]
    rec = reclaim_lines(docs)
    if rec:
        out += ["## Reclaim without THP faults (reclaim-churn, module absent vs `kernel` "
                "policy, interleaved in one boot: %s)" % docs[0].get("reclaim_topology", "16c4n"),
                ""] + rec + [""]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out))


def diamond(x, y, tip=None):
    """A marker: a black diamond outlined in white, over any bar colour."""
    return ('<polygon points="%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f" fill="black" '
            'stroke="white" stroke-width="1">%s</polygon>'
            % (x, y - 5, x + 4, y, x, y + 5, x - 4, y,
               "<title>%s</title>" % escape(tip) if tip else ""))


def chart(docs, path):
    pw, ph = 210, 150          # panel plot area
    ml, mt, gap_x, gap_y = 60, 60, 40, 95
    # Older results lack newer scenarios: no empty row for them.
    scenarios = [sc for sc in SCENARIOS
                 if any(find(d, st, "madvise", sc) for d in docs for st in STATES)]
    cols, rows = len(METRICS), len(scenarios)
    width = ml + cols * (pw + gap_x)
    height = mt + rows * (ph + gap_y) + 10
    s = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
         'font-family="sans-serif" font-size="11">' % (width, height),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="18" font-size="15" font-weight="bold">thpnuma: THP fault '
         'outcome per policy (defrag=madvise; emulated 2-node NUMA, QEMU TCG)</text>' % ml]
    for i, doc in enumerate(docs):
        x = ml + i * 260
        s.append('<rect x="%d" y="30" width="12" height="12" fill="%s"/>' % (x, COLOURS[i % 4]))
        s.append('<text x="%d" y="40">%s</text>' % (x + 16, escape(doc["kernel"])))
    # Marker legends only where a marker has a value: results without the
    # module's histograms draw as before.
    shown = [m for title, m in MARKERS.items()
             if any(m[1](c) is not None for d in docs for c in d["cells"])]
    for i, (legend, _) in enumerate(shown):
        x = ml + (len(docs) + i) * 260
        s.append(diamond(x + 6, 36))
        s.append('<text x="%d" y="40">%s</text>' % (x + 16, escape(legend)))
    for r, scenario in enumerate(scenarios):
        y0 = mt + r * (ph + gap_y) + 20
        s.append('<text x="%d" y="%d" font-size="13" font-weight="bold">%s</text>'
                 % (ml, y0 - 8, escape(SCENARIO_TITLE[scenario])))
        for c, (title, unit, get, log) in enumerate(METRICS):
            x0 = ml + c * (pw + gap_x)
            values, marks = [], []
            mark = MARKERS.get(title, (None, lambda cell: None))[1]
            for doc in docs:
                cells = [find(doc, st, "madvise", scenario) for st in STATES]
                values.append([get(cell) if cell else None for cell in cells])
                marks.append([mark(cell) if cell else None for cell in cells])
            marked = [q[0] / 1e6 for qs in marks for q in qs if q is not None]
            top = max([v for vs in values for v in vs if v is not None] + marked + [0])
            # A log panel reaches down to its smallest marker.
            floor = min([LOG_FLOOR] + [10 ** math.floor(math.log10(v)) for v in marked if v > 0])
            if title in ("THP coverage", "local"):
                top = 100
            top = top or 1
            s.append('<text x="%d" y="%d" font-weight="bold">%s</text>' % (x0, y0 + 8, escape(title)))
            base = y0 + 14 + ph
            s.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (x0, base, x0 + pw, base))
            s.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (x0, y0 + 14, x0, base))
            if log:
                top = 10 ** math.ceil(math.log10(max(top, floor * 10)))
            label = ("%.0f" % top) if top >= 10 else ("%.2g" % top)
            s.append('<text x="%d" y="%d" text-anchor="end">%s</text>' % (x0 - 3, y0 + 22, label))
            s.append('<text x="%d" y="%d" text-anchor="end">%s</text>'
                     % (x0 - 3, base, "%g" % floor if log else "0"))
            if unit:
                s.append('<text x="%d" y="%d" fill="#555" text-anchor="end">%s</text>'
                         % (x0 + pw, y0 + 8, escape(unit)))
            group = pw / len(STATES)
            bar = (group - 8) / max(1, len(docs))
            for k, st in enumerate(STATES):
                gx = x0 + k * group + 4
                for d, vs in enumerate(values):
                    v = vs[k]
                    if v is None:
                        continue
                    if log:
                        h = ph * math.log10(max(v, floor) / floor) / math.log10(top / floor)
                    else:
                        h = ph * v / top
                    s.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s">'
                             '<title>%s %s %s: %.4g</title></rect>'
                             % (gx + d * bar, base - h, bar, max(h, 0.5), COLOURS[d % 4],
                                escape(docs[d]["kernel"]), st, title, v))
                # Drawn after the bars, so a tall neighbour cannot hide one.
                for d, qs in enumerate(marks):
                    q = qs[k]
                    if q is None:
                        continue
                    v = q[0] / 1e6
                    if log:
                        h = ph * math.log10(max(v, floor) / floor) / math.log10(top / floor)
                    else:
                        h = ph * v / top
                    s.append(diamond(gx + (d + 0.5) * bar, base - h, "%s %s %s: %s" % (
                        docs[d]["kernel"], st, MARKERS[title][0], fmt_ns(q))))
                tx, ty = gx + group / 2 - 4, base + 8
                s.append('<text x="%.1f" y="%.1f" text-anchor="end" '
                         'transform="rotate(-40 %.1f %.1f)">%s</text>'
                         % (tx, ty, tx, ty, escape(SHORT[st])))
    s.append("</svg>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(s) + "\n")


def write(docs, out_dir):
    write_md(docs, os.path.join(out_dir, "results.md"))
    with open(os.path.join(out_dir, "summary.md"), "w", encoding="utf-8") as f:
        parts = []
        if any(d["cells"] for d in docs):
            parts.append(summary(docs))
            cals = ["%s: %s." % (d["kernel"], calibration(d)) for d in docs if calibration(d)]
            if cals:
                parts.append(["Budget state, " + " ".join(cals)])
        if any(d.get("overhead") for d in docs):
            parts.append(overhead_lines(docs))
        if reclaim_lines(docs):
            parts.append(reclaim_lines(docs))
        f.write("\n\n".join("\n".join(p) for p in parts) + "\n")
    if any(d["cells"] for d in docs):
        chart(docs, os.path.join(out_dir, "chart.svg"))


def main():
    docs = [json.load(open(p)) for p in sys.argv[1:]]
    if not docs:
        sys.exit("usage: report.py RESULTS.json...")
    out_dir = os.path.dirname(os.path.abspath(sys.argv[1]))
    write(docs, out_dir)


if __name__ == "__main__":
    main()
