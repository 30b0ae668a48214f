#!/usr/bin/env python3
"""make demo, make trace-demo: boot the 2-node VM on one kernel and run
the demo script (demo.sh, or the one named after the kernel)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402


def main():
    kver = sys.argv[1]
    script = sys.argv[2] if len(sys.argv) > 2 else "demo.sh"
    name = os.path.splitext(script)[0]
    logs = os.path.join(harness.BUILD, name + "-logs")
    # The demo's own initramfs (make demo-initramfs), not make check's.
    harness.BUILD = os.path.join(harness.BUILD, name)
    print("Booting %s with 2 emulated NUMA nodes (TCG, about 10 s)..." % kver, flush=True)
    results, _, _ = harness.run_boot(kver, "2n", [(script, 900)], True, logs, stream=True)
    failed = [r for r in results if r.status == "FAIL"]
    for r in failed:
        print(r.line())
    print("%s %s; guest logs in %s" % (name, "FAILED" if failed else "done, guest dmesg clean", logs))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
