#!/usr/bin/env python3
"""Host tests of harness.py's judgement of a boot's serial logs. No VM:

    python3 tools/vm/test_harness.py
"""
import os
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

TESTS = [("thp-kinds", 600)]


def boot(*case_lines, rc=1):
    return "\n".join(["@@THPNUMA-BEGIN 1 thp-kinds", *case_lines,
                      "@@THPNUMA-END 1 rc=%d secs=5" % rc, "@@THPNUMA-DONE"])


def judge(results):
    out, _dmesg = harness.parse("7.3", "2n", TESTS, results, "")
    return {r.name: r for r in out}


class FailedCase(unittest.TestCase):
    def test_names_its_failed_expect(self):
        r = judge(boot(
            "#  RUN           full_node.strict_local.mthp ...",
            "# /src/thp-kinds.c:171:mthp:orders: node0 anon order 4: local 3",
            "# /src/thp-kinds.c:766:mthp:Expected a (157) == b (158)",
            "# /src/thp-kinds.c:772:mthp:Expected c (1) == d (2)",
            "not ok 1 full_node.strict_local.mthp"))
        fail = r["thp-kinds: full_node.strict_local.mthp"]
        self.assertEqual("FAIL", fail.status)
        self.assertEqual("/src/thp-kinds.c:766:mthp:Expected a (157) == b (158) (+1 more)",
                         fail.detail)

    def test_names_a_timeout(self):
        r = judge(boot(
            "#  RUN           pending.exit ...",
            "# exit: Test terminated by timeout",
            "#          FAIL  pending.exit",
            "not ok 1 pending.exit"))
        self.assertEqual("exit: Test terminated by timeout", r["thp-kinds: pending.exit"].detail)

    def test_a_passed_case_leaves_nothing_behind(self):
        r = judge(boot(
            "# /src/thp-kinds.c:766:one:Expected a (1) == b (2)",
            "not ok 1 f.one",
            "ok 2 f.two",
            "not ok 3 f.three"))
        self.assertEqual("PASS", r["thp-kinds: f.two"].status)
        self.assertEqual("", r["thp-kinds: f.three"].detail)

    def test_passed_run(self):
        r = judge(boot("ok 1 f.one", rc=0))
        self.assertEqual("PASS", r["thp-kinds: f.one"].status)
        self.assertEqual("PASS", r["boot: dmesg clean"].status)


class Plan(unittest.TestCase):
    """A TAP plan (1..N) is a promise: fewer results mean the test died."""

    def test_fewer_results_than_planned_fail(self):
        r = judge(boot("TAP version 13", "1..3", "ok 1 f.one", "ok 2 f.two", rc=0))
        self.assertEqual("FAIL", r["thp-kinds"].status)
        self.assertEqual("2 TAP results where its plan (1..3) promised: the test ended early or miscounted",
                         r["thp-kinds"].detail)

    def test_a_skip_may_end_the_test_early(self):
        r = judge(boot("1..59", "ok 1 cgroup v2 # SKIP cannot mount cgroup2", rc=0))
        self.assertNotIn("thp-kinds", r)

    def test_more_results_than_planned_fail_despite_a_skip(self):
        r = judge(boot("1..2", "ok 1 f.one # SKIP not here", "ok 2 f.two", "ok 3 f.three", rc=0))
        self.assertEqual("FAIL", r["thp-kinds"].status)
        self.assertEqual("3 TAP results where its plan (1..2) promised: the test ended early or miscounted",
                         r["thp-kinds"].detail)

    def test_results_as_planned_pass(self):
        r = judge(boot("1..2", "ok 1 f.one", "ok 2 f.two", rc=0))
        self.assertNotIn("thp-kinds", r)
        self.assertEqual("PASS", r["thp-kinds: f.two"].status)


class Hang(unittest.TestCase):
    """A test whose task SIGKILL cannot end, or a guest that stops."""

    def setUp(self):
        fd, self.path = tempfile.mkstemp()
        os.close(fd)
        self.addCleanup(os.unlink, self.path)
        self.progress = harness.Progress(self.path, TESTS, 1)

    def write(self, *lines):
        with open(self.path, "a") as f:
            f.write("".join(l + "\n" for l in lines))

    def test_stuck_test_is_named(self):
        r = judge("\n".join(["@@THPNUMA-BEGIN 1 thp-kinds", "ok 1 f.one",
                             "@@THPNUMA-STUCK 1", "@@THPNUMA-DMESG-BEGIN",
                             "[ 9.0] sysrq: Show Blocked State",
                             "@@THPNUMA-DMESG-END"]))
        self.assertEqual("FAIL", r["thp-kinds"].status)
        self.assertIn("stuck in the kernel", r["thp-kinds"].detail)
        self.assertEqual("FAIL", r["boot: guest finished"].status)

    def test_a_hung_guest_is_named(self):
        out, _ = harness.parse("7.3", "2n", TESTS, "@@THPNUMA-BEGIN 1 thp-kinds", "",
                               hung="thp-kinds")
        self.assertIn("stopped answering", {r.name: r for r in out}["thp-kinds"].detail)

    def test_running_within_its_limit_is_no_hang(self):
        self.write("@@THPNUMA-BEGIN 1 thp-kinds", "ok 1 f.one")
        self.assertIsNone(self.progress.hang())
        self.assertEqual("thp-kinds", self.progress.running())
        self.write("@@THPNUMA-END 1 rc=0 secs=5")
        self.assertIsNone(self.progress.hang())
        self.assertIsNone(self.progress.running())

    def test_past_limit_and_grace_is_a_hang(self):
        self.write("@@THPNUMA-BEGIN 1 thp-kinds")
        self.assertIsNone(self.progress.hang())
        number, began = self.progress.current
        self.progress.current = (number, began - 600 - harness.HANG_GRACE - 1)
        self.assertIn("no answer", self.progress.hang())

    def test_stuck_report_ends_the_boot_once_dumped(self):
        # A marker split across two reads still counts.
        self.write("@@THPNUMA-BEGIN 1 thp-kinds", "@@THPNUMA-STUCK 1")
        with open(self.path, "a") as f:
            f.write("@@THPNUMA-DMESG-BEGIN\n@@THPNUMA-DMESG-")
        self.assertIsNone(self.progress.hang())
        self.write("END")
        self.assertIn("thp-kinds is stuck", self.progress.hang())


class LongForms(unittest.TestCase):
    def manifest(self, text):
        with tempfile.NamedTemporaryFile("w", suffix=".manifest", delete=False) as f:
            f.write(text)
        self.addCleanup(os.unlink, f.name)
        return harness.read_manifest(f.name)

    def test_same_program_is_replaced(self):
        quick = self.manifest("4n 600 stress STRESS_CHANGES=1000 core\n"
                              "2n 600 placement 'TEST_ARGS=-V x' zram core\n"
                              "2n 300 fuzz core\n"
                              "2n 60 smoke.sh core\n")
        long = self.manifest("4n 1500 stress STRESS_CHANGES=4000\n"
                             "4n 600 placement zram\n"
                             "2n 900 fuzz FUZZ_INPUTS=5000\n")
        names = [e[2] for e in harness.quick_forms_replaced(quick, long)]
        # On any topology: placement's long form, on 4 nodes, runs every
        # variant the 2-node quick form does.
        self.assertEqual(["stress STRESS_CHANGES=1000",
                          "placement 'TEST_ARGS=-V x'", "fuzz"], names)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=1).result
    failed = len(result.failures) + len(result.errors)
    print("%d passed, %d failed, %d skipped" % (result.testsRun - failed - len(result.skipped),
                                                failed, len(result.skipped)))
    sys.exit(1 if failed else 0)
