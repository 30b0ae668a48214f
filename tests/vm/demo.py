#!/usr/bin/env python3
"""make demo: boot the 2-node VM on one kernel and run the demo script."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402


def main():
    kver = sys.argv[1]
    logs = os.path.join(harness.BUILD, "demo-logs")
    # The demo's own initramfs (make demo-initramfs), not make check's.
    harness.BUILD = os.path.join(harness.BUILD, "demo")
    print("Booting %s with 2 emulated NUMA nodes (TCG, about 10 s)..." % kver, flush=True)
    results, _, _ = harness.run_boot(kver, "2n", [("demo.sh", 600)], True, logs, stream=True)
    failed = [r for r in results if r.status == "FAIL"]
    for r in failed:
        print(r.line())
    print("demo %s; guest logs in %s" % ("FAILED" if failed else "done, guest dmesg clean", logs))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
