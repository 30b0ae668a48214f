#!/usr/bin/env python3
"""Instructions per function of one mTHP allocation, module absent and
loaded in kernel policy: what the hook costs, and where.

Each side boots the kernel once in 1c2n-icount with QEMU's gdbstub. The
guest (profile-guest.sh) faults mTHPs of one size in a loop; gdb stops at
the first hooked-allocator call of that order (with the module: at
thpnuma_alloc_entry, which ftrace calls from the allocator's first
instruction), single-steps until the allocator returns to its caller,
and records every instruction's address. The table sums them per
function, loaded minus absent. The allocation zeroes its folio with a
string instruction that TCG counts once per byte, as the instruction
clock of make bench-overhead does; it is the same on both sides. The
kernel's own functions can still differ by the allocator's state (a
per-CPU free list refilled on one side only).

PMD THPs are not offered: single-stepping 2 MiB of zeroing takes hours.

Usage: python3 tools/vm/profile.py --kernel KVER [--kind mthp16|mthp64]
       [--traces N] [--out DIR]
"""
import argparse
import bisect
import os
import shutil
import socket
import subprocess
import sys
import time
from collections import Counter

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

ORDERS = {"mthp16": 2, "mthp64": 4}
# The allocator the module hooks on the kernels with mTHP (6.10+).
HOOKED = "vma_alloc_folio_noprof"

GDB_SCRIPT = '''
import gdb
gdb.execute("set pagination off")
gdb.execute("target remote :{port}")
gdb.execute("break *{stop:#x} if $rsi == {order}")
out = open("{pcs}", "w")
for trace in range({traces}):
    gdb.execute("continue")
    # The allocator's return address: on top at its own entry, one slot
    # further at the module's entry (called from the allocator).
    ret = int(gdb.parse_and_eval("*(unsigned long *)($rsp + {slot})"))
    ret &= (1 << 64) - 1
    steps = 0
    out.write("BEGIN\\n")
    while steps < {limit}:
        pc = int(gdb.parse_and_eval("$pc")) & ((1 << 64) - 1)
        if pc == ret:
            break
        out.write("%x\\n" % pc)
        steps += 1
        gdb.execute("stepi", to_string=True)
    out.write("END %d\\n" % steps)
    out.flush()
gdb.execute("kill")
'''


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def read_symbols(text):
    begin = text.index("PROFILE-KALLSYMS-BEGIN")
    end = text.index("PROFILE-KALLSYMS-END")
    syms = []
    for line in text[begin:end].splitlines()[1:]:
        words = line.split()
        if len(words) >= 3:
            syms.append((int(words[0], 16), " ".join(words[2:4])))
    syms.sort()
    return syms


def trace_side(kver, kind, loaded, traces, workdir):
    """Boot one side; return its traces as Counters of function names."""
    os.makedirs(workdir, exist_ok=True)
    test = "profile-guest.sh PROFILE_KIND=%s PROFILE_MODULE=%d" % (kind, loaded)
    initrd = harness.make_initrd(kver, [(test, 3600)], False, workdir)
    # The guest script, appended as /tests/profile-guest.sh.
    stage = os.path.join(workdir, "extra")
    os.makedirs(os.path.join(stage, "tests"), exist_ok=True)
    script = os.path.join(stage, "tests", "profile-guest.sh")
    with open(os.path.join(harness.TOP, "tools", "vm", "profile-guest.sh")) as src:
        open(script, "w").write(src.read())
    os.chmod(script, 0o755)
    extra = subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=stage,
                           input=b"tests/profile-guest.sh\n", stdout=subprocess.PIPE,
                           check=True).stdout
    with open(initrd, "ab") as f:
        f.write(extra)
    console, results = (os.path.join(workdir, n) for n in ("console.log", "results.log"))
    for p in (console, results):
        open(p, "w").close()
    port = free_port()
    cmd = harness.qemu_command(kver, "1c2n-icount", initrd, console, results, None)
    cmd += ["-gdb", "tcp:127.0.0.1:%d" % port]
    qemu = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                            stderr=open(os.path.join(workdir, "qemu.stderr"), "w"))
    try:
        text = ""
        while "PROFILE-KALLSYMS-END" not in text:
            if qemu.poll() is not None or "PROFILE-ERROR" in text:
                sys.exit("%s: the guest stopped before faulting: see %s" % (kver, results))
            time.sleep(1)
            text = open(results, errors="replace").read()
        syms = read_symbols(text)
        names = [n for _, n in syms]
        stop = syms[names.index("thpnuma_alloc_entry [thpnuma]" if loaded else HOOKED)][0]
        pcs = os.path.join(workdir, "pcs")
        gdb_py = os.path.join(workdir, "trace.py")
        with open(gdb_py, "w") as f:
            f.write(GDB_SCRIPT.format(port=port, stop=stop, order=ORDERS[kind], pcs=pcs,
                                      traces=traces, slot=8 if loaded else 0,
                                      limit=1000000))
        subprocess.run(["gdb", "-batch", "-nx", "-x", gdb_py],
                       stdout=open(os.path.join(workdir, "gdb.log"), "w"),
                       stderr=subprocess.STDOUT, check=False)
    finally:
        qemu.kill()
        qemu.wait()
    addrs = [a for a, _ in syms]
    out, cur = [], None
    for line in open(pcs):
        line = line.strip()
        if line == "BEGIN":
            cur = Counter()
        elif line.startswith("END"):
            out.append(cur)
        else:
            i = bisect.bisect_right(addrs, int(line, 16)) - 1
            cur[syms[i][1] if i >= 0 else "?"] += 1
    if len(out) < traces:
        sys.exit("%s: gdb traced %d of %d allocations: see %s" %
                 (kver, len(out), traces, os.path.join(workdir, "gdb.log")))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--kind", choices=sorted(ORDERS), default="mthp16")
    ap.add_argument("--traces", type=int, default=2,
                    help="allocations traced per side; the last is shown (default 2)")
    ap.add_argument("--out", default=os.path.join(harness.BUILD, "profile"))
    args = ap.parse_args()
    if not shutil.which("gdb"):
        sys.exit("profile.py needs gdb: tools/build/install-deps.sh profile")
    sides = {}
    for loaded in (0, 1):
        workdir = os.path.join(args.out, "%s-%s-%s" % (args.kernel, args.kind,
                                                     "loaded" if loaded else "absent"))
        sides[loaded] = trace_side(args.kernel, args.kind, loaded, args.traces, workdir)
    absent, loaded = sides[0][-1], sides[1][-1]
    totals = [sum(t.values()) for t in sides[0]], [sum(t.values()) for t in sides[1]]
    print("%s, one %s allocation, instructions (all traces: absent %s, loaded %s)" %
          (args.kernel, args.kind, totals[0], totals[1]))
    print("%8s %8s %8s  function" % ("absent", "loaded", "added"))
    for name in sorted(set(absent) | set(loaded), key=lambda n: (absent[n] - loaded[n], n)):
        if absent[name] != loaded[name]:
            print("%8d %8d %+8d  %s" % (absent[name], loaded[name],
                                          loaded[name] - absent[name], name))
    print("%8d %8d %+8d  total" % (sum(absent.values()), sum(loaded.values()),
                                     sum(loaded.values()) - sum(absent.values())))


if __name__ == "__main__":
    main()
