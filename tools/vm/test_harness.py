#!/usr/bin/env python3
"""Host tests of harness.py's judgement of a boot's serial logs. No VM:

    python3 tools/vm/test_harness.py
"""
import os
import sys
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


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=1).result
    failed = len(result.failures) + len(result.errors)
    print("%d passed, %d failed, %d skipped" % (result.testsRun - failed - len(result.skipped),
                                                failed, len(result.skipped)))
    sys.exit(1 if failed else 0)
