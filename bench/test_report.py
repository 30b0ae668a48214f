#!/usr/bin/env python3
"""Host tests of the hooked-allocation columns: thpnuma-bench.sh's
histogram capture (thpnumactl hist --json on a fake debugfs file, when a
built thpnumactl is at hand) and orders capture, and report.py's
quantiles, tables and chart. No VM, no root:

    python3 bench/test_report.py [THPNUMACTL]
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import report  # noqa: E402

# counters.h: bucket 0 = [0, 2^10), bucket b = [2^(9+b), 2^(10+b)), the
# last (25) = 2^34 ns and more.
BUCKETS = 26
BOUNDS = [1 << (10 + b) for b in range(BUCKETS - 1)]
OUTCOMES = ("local", "remote", "fallback")


def hist(per_row):
    """The "hist" object thpnuma-bench.sh stores (thpnumactl hist --json):
    per_row maps (node, outcome) to {bucket: count}; the other rows are
    zero."""
    rows = []
    for node in (0, 1):
        for outcome in OUTCOMES:
            b = [0] * BUCKETS
            for i, v in per_row.get((node, outcome), {}).items():
                b[i] = v
            rows.append({"node": node, "outcome": outcome, "count": sum(b),
                         "sum_ns": 1000 * sum(b),
                         "buckets": [{"ge_ns": ([0] + BOUNDS)[i],
                                      "lt_ns": (BOUNDS + [None])[i], "count": v}
                                     for i, v in enumerate(b)]})
    return {"histograms": rows}


def hist_text(per_row):
    """The same histogram as the module's debugfs file."""
    lines = ["node outcome count sum_ns " + " ".join(map(str, BOUNDS)) + " inf"]
    for r in hist(per_row)["histograms"]:
        lines.append("%d %s %d %d %s" % (r["node"], r["outcome"], r["count"], r["sum_ns"],
                                         " ".join(str(b["count"]) for b in r["buckets"])))
    return "\n".join(lines) + "\n"


def cell(state="local-then-remote", scenario="storm", h=None, p99_us=12000.0,
         memory=None, orders=None, module=None, local_pct=2.0, pswpout=0, **tags):
    res = {"workload": "thp-swapstorm", "fault": {
        "fault_p50_us": 8000.0, "fault_p99_us": p99_us, "fault_max_us": 15000.0,
        "local_pct": local_pct, "thp_pct": 100.0, "wall_ms": 1800.0,
        "vmstat": {"pswpout": pswpout, "pswpin": 0, "compact_stall": 0, "pgscan_direct": 0,
                   "thp_fault_alloc": 200, "thp_fault_fallback": 0}}}
    if memory is not None:
        res["memory"] = memory
        res["fault"]["vmstat"].update(thp_file_alloc=97, thp_file_fallback=3)
    if h is not None:
        res["hist"] = h
    if orders is not None:
        res["orders"] = orders
    if module is not None:
        res["module"] = module
    return dict(tags, state=state, defrag="madvise", scenario=scenario, result=res)


def doc(cells, kernel="6.1.0-57-amd64"):
    return {"kernel": kernel, "topology": "2n", "boot_wall_s": 1.0,
            "guest_settings": {}, "harness_failures": [], "cells": cells,
            "overhead": {}, "reclaim": {}}


class Quantiles(unittest.TestCase):
    def test_summed_over_nodes_and_outcomes(self):
        # 100 allocations: 60 in [16, 32) us, 39 in [0.5, 1) ms, 1 over 17 s.
        h = report.hooked(cell(h=hist({(0, "local"): {5: 50, 10: 9},
                                       (1, "remote"): {5: 10, 10: 30},
                                       (1, "fallback"): {25: 1}})))
        self.assertEqual(h["n"], 100)
        self.assertEqual(h["p50"], (1 << 15, "<="))
        self.assertEqual(h["p99"], (1 << 20, "<="))
        self.assertEqual(h["max"], (1 << 34, ">="))

    def test_p99_rank_edge(self):
        # 200 allocations: rank 198 is the p99 (nearest rank).
        h = report.hooked(cell(h=hist({(0, "local"): {3: 198, 12: 2}})))
        self.assertEqual((h["p50"], h["p99"], h["max"]),
                         ((8192, "<="), (8192, "<="), (1 << 22, "<=")))
        h = report.hooked(cell(h=hist({(0, "local"): {3: 197, 12: 3}})))
        self.assertEqual(h["p99"], (1 << 22, "<="))
        # 150: rank 149 (148.5 rounded up); 3 allocations: the p50 is the 2nd.
        h = report.hooked(cell(h=hist({(0, "local"): {3: 148, 12: 2}})))
        self.assertEqual(h["p99"], (1 << 22, "<="))
        h = report.hooked(cell(h=hist({(0, "local"): {3: 1, 12: 2}})))
        self.assertEqual(h["p50"], (1 << 22, "<="))
        h = report.hooked(cell(h=hist({(0, "local"): {3: 2, 12: 1}})))
        self.assertEqual(h["p50"], (8192, "<="))

    def test_one_and_bucket_zero(self):
        h = report.hooked(cell(h=hist({(1, "local"): {0: 1}})))
        self.assertEqual(h, {"n": 1, "p50": (1024, "<="), "p99": (1024, "<="),
                             "max": (1024, "<=")})

    def test_empty_and_missing(self):
        self.assertEqual(report.hooked_cols(cell(h=hist({}))), ("0", "- / - / -"))
        self.assertIsNone(report.hooked(cell()))
        self.assertEqual(report.hooked_cols(cell()), ("-", "-"))

    def test_format(self):
        self.assertEqual(report.fmt_ns((1024, "<=")), "≤ 1.02 µs")
        self.assertEqual(report.fmt_ns((1 << 16, "<=")), "≤ 65.5 µs")
        self.assertEqual(report.fmt_ns((1 << 18, "<=")), "≤ 262 µs")
        self.assertEqual(report.fmt_ns((1 << 20, "<=")), "≤ 1.05 ms")
        self.assertEqual(report.fmt_ns((1 << 34, ">=")), "≥ 17.2 s")
        self.assertEqual(report.fmt_ns(None), "-")


class InTempDir(unittest.TestCase):
    """report.write() into a fresh directory, its files read back by name."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def read(self, name):
        with open(os.path.join(self.dir, name), encoding="utf-8") as f:
            return f.read()


class Output(InTempDir):
    def test_with_hist(self):
        h = hist({(0, "local"): {7: 150, 9: 48, 14: 2}})
        report.write([doc([cell("absent"), cell(h=h)])], self.dir)
        md = self.read("results.md")
        self.assertIn("| hooked allocs | hooked alloc p50 / p99 / max (log2 bucket upper bound) |", md)
        self.assertIn("| 8.0 / 12.0 / 15.0 | 200 | ≤ 131 µs / ≤ 524 µs / ≤ 16.8 ms | 1800 |", md)
        self.assertIn("| 8.0 / 12.0 / 15.0 | - | - | 1800 |", md)
        self.assertIn("| 12.0 | ≤ 524 µs |", self.read("summary.md"))
        svg = self.read("chart.svg")
        # One marker in the legend, one on the l-t-r bar; the log panel
        # reaches down to 0.1 ms for the 0.524 ms marker.
        self.assertEqual(svg.count("<polygon"), 2)
        self.assertIn("local-then-remote hooked allocation p99", svg)
        self.assertRegex(svg, r'text-anchor="end">0\.1</text>')

    def test_without_hist(self):
        report.write([doc([cell("absent"), cell()])], self.dir)
        self.assertNotIn("<polygon", self.read("chart.svg"))
        self.assertNotIn("hooked allocation p99", self.read("chart.svg"))


class Shmem(InTempDir):
    ORDERS = [{"node": 1, "kind": "shmem", "order": 9, "local": 0, "remote": 90,
               "fallback": 3, "passthrough": 0},
              {"node": 0, "kind": "shmem", "order": 9, "local": 7, "remote": 0,
               "fallback": 0, "passthrough": 0},
              {"node": 0, "kind": "anon", "order": 9, "local": 5, "remote": 0,
               "fallback": 0, "passthrough": 0}]

    def test_thp_counts(self):
        self.assertEqual(report.thp_counts(cell(memory="shmem")), (97, 3))
        self.assertEqual(report.thp_counts(cell(memory="anon")), (200, 0))
        self.assertEqual(report.thp_counts(cell()), (200, 0))

    def test_orders(self):
        self.assertEqual(report.orders(cell(orders=self.ORDERS), "shmem"),
                         {"local": 7, "remote": 90, "fallback": 3, "passthrough": 0})
        self.assertEqual(report.orders(cell(orders=[]), "shmem"),
                         {"local": 0, "remote": 0, "fallback": 0, "passthrough": 0})
        self.assertIsNone(report.orders(cell(), "shmem"))

    def test_tables_and_chart(self):
        report.write([doc([cell("absent"), cell("absent", "shmem", memory="shmem"),
                           cell(scenario="shmem", memory="shmem", orders=self.ORDERS)])],
                     self.dir)
        md = self.read("results.md")
        self.assertIn("| shmem | absent | madvise | 0 | 0 | 0 | 0 | 97 / 3 |", md)
        self.assertIn("| storm | absent | madvise | 0 | 0 | 0 | 0 | 200 / 0 |", md)
        self.assertIn("| local-then-remote | madvise | 7 | 90 | 3 | 0 |", md)
        self.assertIn("| shmem | local-then-remote | 6.1.0 |", self.read("summary.md"))
        svg = self.read("chart.svg")
        self.assertIn(report.SCENARIO_TITLE["shmem"], svg)
        # Scenarios without cells get no row of panels.
        self.assertNotIn(report.SCENARIO_TITLE["free"], svg)

    def test_no_shmem_cells(self):
        report.write([doc([cell("absent")])], self.dir)
        self.assertNotIn("orders file", self.read("results.md"))
        self.assertNotIn(report.SCENARIO_TITLE["shmem"], self.read("chart.svg"))


def counters(local, remote, alloc_ns, budget_skip=0, fallback=0):
    """thpnuma-bench.sh's "module" object of a cell."""
    return {"thp_local": local, "thp_remote": remote, "thp_fallback": fallback,
            "compact_stall": 0, "reclaim_stall": 0, "reclaim_pages": 0,
            "alloc_ns": alloc_ns, "budget_skip": budget_skip}


class Budget(InTempDir):
    """The budget row, the cheap-reclaim (clean cache) scenario, the
    module's counters and the budget calibration."""

    CAL = {"state": "local-then-remote+zr7", "defrag": "madvise",
           "scenario": "budget-calibration",
           "result": dict(cell(pswpout=7326)["result"], budget_calibration={
               "effortful": 186, "median_effort_ns": 265770, "budget_us": 132,
               "calibrated": True})}

    def cells(self):
        return [cell("local-then-remote", module=counters(4, 196, 1242442180)),
                cell("local-then-remote+zr7", pswpout=7706, local_pct=18.0,
                     module=counters(36, 164, 9e9)),
                cell("budget", module=counters(14, 186, 650946030, 181),
                     pswpout=26, local_pct=7.0, budget_us="132"),
                cell("kernel", module=counters(0, 0, 0)),
                cell("absent"),
                cell("local-then-remote", "cache", local_pct=4.7,
                     module=counters(3, 61, 738567130)),
                cell("budget", "cache", local_pct=34.4,
                     module=counters(22, 42, 351475120, 39), budget_us="132"),
                self.CAL]

    def test_rows(self):
        report.write([doc(self.cells(), kernel="7.3.4+deb13-amd64")], self.dir)
        md = self.read("results.md")
        self.assertIn("| storm | budget | madvise | 26 | 0 |", md)
        self.assertIn("| 1800 | 0.65 | 181 |", md)
        self.assertIn("| cache | budget | madvise | 0 | 0 |", md)
        self.assertIn("| 1800 | 0.35 | 39 |", md)
        # Not hooked: no time, and no module at all: no counters.
        self.assertIn("| storm | kernel | madvise |", md)
        self.assertRegex(md, r"\| storm \| kernel \|.*\| 1800 \| - \| 0 \|")
        self.assertRegex(md, r"\| storm \| absent \|.*\| 1800 \| - \| - \|")
        # The calibration is a sentence, not a row.
        self.assertNotIn("| budget-calibration |", md)
        self.assertIn("Budget state: budget_us=132: half the median effort", md)
        self.assertIn("(median 266 µs; storm: 7326 swap-outs)", md)
        summary = self.read("summary.md")
        self.assertIn("| storm | budget | 7.3.4 | 26 | 100% | 7% | 0 | 12.0 | - | 0.65 | 181 |",
                      summary)
        self.assertIn("| cache | budget | 7.3.4 | 0 | 100% | 34% | 0 | 12.0 | - | 0.35 | 39 |",
                      summary)
        self.assertIn("| cache | local-then-remote | 7.3.4 |", summary)
        self.assertIn("Budget state, 7.3.4+deb13-amd64: budget_us=132", summary)

    def test_chart(self):
        report.write([doc(self.cells())], self.dir)
        svg = self.read("chart.svg")
        self.assertIn(report.SCENARIO_TITLE["cache"], svg)
        self.assertIn(">budget</text>", svg)
        self.assertIn("6.1.0-57-amd64 budget local: 34.4</title>", svg)
        self.assertIn("6.1.0-57-amd64 budget THP allocation time: 0.351", svg)
        # No bar where the module hooked nothing.
        self.assertNotIn("kernel THP allocation time", svg)
        self.assertNotIn("absent THP allocation time", svg)
        self.assertNotIn("budget-calibration", svg)

    def test_storm_that_did_not_storm_gives_the_default(self):
        cal = {"state": "local-then-remote+zr7", "defrag": "madvise",
               "scenario": "budget-calibration",
               "result": dict(cell(pswpout=14)["result"], budget_calibration={
                   "effortful": 185, "median_effort_ns": 416130, "budget_us": 1000,
                   "calibrated": False})}
        self.assertEqual(report.calibration(doc([cell(), cal])),
                         "budget_us=1000, the default: the calibration storm under "
                         "local-then-remote zone_reclaim=7 swapped out 14 pages (185 "
                         "effortful local attempts), under one THP's worth, so it did "
                         "not storm")

    def test_budget_us_without_calibration(self):
        cells = [c for c in self.cells() if c is not self.CAL]
        self.assertEqual(report.calibration(doc(cells)), "budget_us=132 (BENCH_BUDGET_US)")
        self.assertIsNone(report.calibration(doc([cell()])))


def guest_function(name, path=os.path.join(HERE, "thpnuma-bench.sh")):
    """One shell function of thpnuma-bench.sh (or of @path), as text."""
    with open(path) as f:
        return re.search(r"^%s\(\) \{\n.*?^\}\n" % name, f.read(), re.M | re.S).group(0)


def guest_call(script, name, text):
    """@script's stdout in the guest's shell, with THPNUMA_DIR a fresh
    directory whose file @name holds @text."""
    d = tempfile.mkdtemp()
    try:
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
        shell = ["busybox", "sh"] if shutil.which("busybox") else ["sh"]
        p = subprocess.run(shell + ["-c", script],
                           env=dict(os.environ, THPNUMA_DIR=d),
                           capture_output=True, text=True)
    finally:
        shutil.rmtree(d)
    return p.stdout


class GuestOrders(unittest.TestCase):
    """orders_json from thpnuma-bench.sh on a fake orders file."""

    def orders_json(self, text):
        return guest_call(guest_function("orders_json") + "orders_json",
                          "orders", text)

    HEADER = "node kind order size_kb local remote fallback passthrough\n"

    def test_rows(self):
        out = self.orders_json(self.HEADER + "0 shmem 9 2048 8 0 0 0\n"
                               "1 anon 4 64 0 5 1 2\n")
        self.assertNotIn("\n", out)
        self.assertEqual(json.loads(out), [
            {"node": 0, "kind": "shmem", "order": 9, "local": 8, "remote": 0,
             "fallback": 0, "passthrough": 0},
            {"node": 1, "kind": "anon", "order": 4, "local": 0, "remote": 5,
             "fallback": 1, "passthrough": 2}])
        self.assertEqual(json.loads(self.orders_json(self.HEADER)), [])

    def test_refused_file_gives_no_array(self):
        for bad in ("", self.HEADER.replace("size_kb", "size"),
                    "0 shmem 9 2048 8 0 0 0\n"):
            out = self.orders_json(bad)
            self.assertFalse(out.startswith("[") and out.endswith("]"), bad)


class GuestModuleCounters(unittest.TestCase):
    """module_json from thpnuma-bench.sh, with the guest library's
    stats_sum, on a fake stats file."""

    LIB = os.path.join(os.path.dirname(HERE), "tests", "guest", "lib", "lib.sh")
    NAMES = ("thp_local thp_remote thp_fallback compact_stall reclaim_stall "
             "reclaim_pages alloc_ns budget_skip").split()

    def module_json(self, text):
        return guest_call(guest_function("stats_sum", self.LIB)
                          + guest_function("module_json") + "module_json",
                          "stats", text)

    def test_summed_over_nodes(self):
        names = ["node", "thp_remote_in"] + self.NAMES
        rows = ["0 0 " + " ".join(str(i + 1) for i in range(len(self.NAMES))),
                "1 5 " + " ".join(str(10 * (i + 1)) for i in range(len(self.NAMES)))]
        out = self.module_json(" ".join(names) + "\n" + "\n".join(rows) + "\n")
        self.assertEqual(json.loads(out),
                         {n: 11 * (i + 1) for i, n in enumerate(self.NAMES)})

    def test_missing_column_gives_nothing(self):
        names = ["node"] + self.NAMES[:-1]
        out = self.module_json(" ".join(names) + "\n0 " + " ".join("1" for _ in names[1:]) + "\n")
        self.assertEqual(out, "")


# The thpnumactl to run the guest's capture with: the command line's, or
# the one make userspace builds.
THPNUMACTL = os.path.join(os.path.dirname(HERE), "build", "userspace", "thpnumactl")


def version():
    """The version THPNUMACTL was built with, which the module must have."""
    out = subprocess.run([THPNUMACTL, "--version"], capture_output=True,
                         text=True, check=True).stdout
    return out.split()[-1]


@unittest.skipUnless(os.access(THPNUMACTL, os.X_OK), "no built thpnumactl")
class GuestCapture(unittest.TestCase):
    """hist_json from thpnuma-bench.sh, with thpnumactl on a fake sysfs."""

    def hist_json(self, text):
        fn = guest_function("hist_json")
        d = tempfile.mkdtemp()
        try:
            # A loaded module of thpnumactl's version, all rows in node 0's
            # file: thpnumactl joins the nodes' files before parsing.
            module = os.path.join(d, "module", "thpnuma")
            node0 = os.path.join(d, "kernel", "thpnuma", "nodes", "node0")
            os.makedirs(module)
            os.makedirs(node0)
            files = {os.path.join(module, "initstate"): "live\n",
                     os.path.join(module, "version"): version() + "\n",
                     os.path.join(node0, "hist"): text}
            for path, content in files.items():
                with open(path, "w") as f:
                    f.write(content)
            # The guest's sh is busybox's.
            shell = ["busybox", "sh"] if shutil.which("busybox") else ["sh"]
            env = dict(os.environ, THPNUMACTL_SYSFS=d,
                       PATH=os.path.dirname(THPNUMACTL) + ":" + os.environ["PATH"])
            p = subprocess.run(shell + ["-c", fn + "hist_json"], env=env,
                               capture_output=True, text=True)
        finally:
            shutil.rmtree(d)
        return p.stdout

    def test_one_line_that_report_reads(self):
        per_row = {(0, "local"): {4: 3}, (1, "remote"): {25: 1, 11: 5}}
        out = self.hist_json(hist_text(per_row))
        self.assertNotIn("\n", out)
        h = json.loads(out)
        self.assertEqual([r["count"] for r in h["histograms"]],
                         [r["count"] for r in hist(per_row)["histograms"]])
        q = report.hooked(cell(h=h))
        self.assertEqual(q["n"], 9)
        self.assertEqual(q["max"], (BOUNDS[-1], ">="))

    def test_refused_file_gives_nothing(self):
        good = hist_text({(0, "local"): {4: 3}})
        for bad in ("", good.replace("sum_ns", "sum"), good + "1 local 0\n"):
            self.assertEqual(self.hist_json(bad), "", bad[:80])


if __name__ == "__main__":
    if len(sys.argv) > 1:
        THPNUMACTL = sys.argv.pop(1)
        GuestCapture.__unittest_skip__ = not os.access(THPNUMACTL, os.X_OK)
    result = unittest.main(exit=False).result
    failed = len(result.failures) + len(result.errors)
    print("%d passed, %d failed, %d skipped" % (result.testsRun - failed - len(result.skipped),
                                                failed, len(result.skipped)))
    sys.exit(1 if failed else 0)
