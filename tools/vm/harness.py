#!/usr/bin/env python3
"""Boot Debian kernels in QEMU with emulated NUMA nodes, run the guest
tests listed in a manifest, and judge them from the serial output.

Each (kernel, topology) pair is one boot. A boot fails on any failed TAP
line, any test that ended badly, and any kernel splat in the guest's dmesg.
The last line is "N passed, N failed, N skipped".
"""
import argparse
import concurrent.futures
import io
import os
import re
import shlex
import subprocess
import sys
import tempfile
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.join(TOP, "build")
CACHE = os.path.join(TOP, ".cache")

# Kernel log lines that fail a boot. The only list: guest tests that look
# for splats themselves get it as THPNUMA_SPLATS (a POSIX extended regex).
SPLATS = re.compile(
    r"WARNING:|BUG:|Oops|general protection|Kernel panic|"
    r"possible circular locking|possible recursive locking|"
    r"inconsistent lock state|lockdep|KFENCE|"
    r"rcu.*detected stall|self-detected stall|soft lockup|hung_task|"
    r"blocked for more than")

# "ok 3 name", "ok 3 name # SKIP why", and kselftest.h's "ok 3 # SKIP why".
# A failed EXPECT_*() or ASSERT_*() of the kselftest harness, or its
# timeout of a case.
EXPECTED = re.compile(r"^#\s+(\S+:\d+:\S+:Expected |\S+: Test terminated by timeout)")
# The plan line, "1..N": N results promised.
PLAN = re.compile(r"^1\.\.(\d+)$")
TAP = re.compile(r"^(not ok|ok) \d+(?: (?:- )?(.*?))?(?:\s*#\s*(SKIP|TODO)\b\s*(.*))?$")

TOPOLOGIES = {
    # name: (nodes, default MiB per node)
    "2n": (2, 768),
    "4n": (4, 640),
    # For tests whose footprint must fit on one node (conformance.sh).
    "2n-large": (2, 1536),
    # Many CPUs per node, as on a real server: concurrency and reclaim
    # at scale (make check-stress, make bench).
    "16c4n": (4, 640),
    # Many possible nodes: 2 with a CPU each, 62 with memory only. Per-node
    # state sized by nr_node_ids must still fit (make check-stress).
    "64n": (64, 48),
    # One vCPU on node 0, node 1 memory only, and an instruction clock:
    # guest time is instructions executed (1 ns each), whatever the host's
    # load, so cost ratios repeat (make bench-overhead). icount hangs a
    # guest of 2 or more vCPUs at SMP bring-up.
    "1c2n-icount": (2, 768),
}
# vCPUs of a topology, spread evenly over its nodes (or one on each of the
# first nodes, when there are fewer); default one per node.
TOPOLOGY_CPUS = {"16c4n": 16, "64n": 2, "1c2n-icount": 1}
ICOUNT_TOPOLOGIES = {"1c2n-icount"}
# Host seconds per guest second under icount, for the boot's hard limit:
# a guest second is 1e9 instructions, which TCG runs several times slower.
ICOUNT_SLOWDOWN = 10


def distance(i, j, nodes):
    """SLIT distances: 10 local, 20 to a ring neighbour, 30 beyond."""
    if i == j:
        return 10
    if nodes <= 2 or abs(i - j) in (1, nodes - 1):
        return 20
    return 30


def read_manifest(path):
    """Lines: TOPOLOGY TIMEOUT TEST [NAME=value...] [boot:ARG...] [zram] [core].

    A test's name is its program with its NAME=value words (shell-quoted),
    e.g. "stress STRESS_CHANGES=1000 STRESS_CYCLES=6": the words become the
    test's environment in the guest, and the name tells two lines running
    one program apart. boot:ARG words go on the kernel command line
    (boot:debugfs=off); tests share a boot only with the same ones.
    "core" marks the lines that also run on the --core-kernels. Entries:
    (topology, timeout, name, zram, core, boot arguments).
    """
    entries = []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            words = shlex.split(line, comments=True)
            if not words:
                continue
            topo, limit, prog, rest = words[0], int(words[1]), words[2], words[3:]
            boot = " ".join(w[len("boot:"):] for w in rest if w.startswith("boot:"))
            rest = [w for w in rest if not w.startswith("boot:")]
            params = [w for w in rest if "=" in w]
            other = [w for w in rest if "=" not in w]
            flags = set(other)
            if topo not in TOPOLOGIES or len(flags) != len(other) or flags - {"zram", "core"}:
                raise SystemExit("%s:%d: expected TOPOLOGY TIMEOUT TEST [NAME=value...] "
                                 "[boot:ARG...] [zram] [core]" % (path, number))
            entries.append((topo, limit, shlex.join([prog] + params), "zram" in flags,
                            "core" in flags, boot))
    return entries


def quick_forms_replaced(manifest, long_manifest):
    """The entries of manifest that a line of long_manifest replaces: the
    same program, on any topology (its long form runs later in the same
    make check, so the quick form would only repeat part of it)."""
    longer = {test_command(e[2])[0] for e in long_manifest}
    return [e for e in manifest if test_command(e[2])[0] in longer]


def test_command(name):
    """A test's program and its NAME=value environment, from its name."""
    words = shlex.split(name)
    return words[0], [w.split("=", 1) for w in words[1:]]


_kvm = None


def accel(kver):
    """KVM only if a short probe boots with it; TCG, single-threaded, otherwise."""
    global _kvm
    forced = os.environ.get("THPNUMA_ACCEL")
    if forced:
        return forced
    if _kvm is None:
        stamp = os.path.join(CACHE, "kvm-probe")
        if os.path.exists(stamp):
            _kvm = open(stamp).read().strip() == "yes"
        else:
            _kvm = False
            if os.access("/dev/kvm", os.R_OK | os.W_OK):
                try:
                    # No root file system: the kernel panics and QEMU exits.
                    r = subprocess.run(
                        ["qemu-system-x86_64", "-accel", "kvm", "-m", "256M",
                         "-nodefaults", "-display", "none", "-no-reboot",
                         "-kernel", vmlinuz(kver), "-append", "panic=-1"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                        timeout=20)
                    _kvm = r.returncode == 0
                except (subprocess.TimeoutExpired, OSError):
                    _kvm = False
            os.makedirs(CACHE, exist_ok=True)
            with open(stamp, "w") as f:
                f.write("yes\n" if _kvm else "no\n")
    return "kvm" if _kvm else "tcg,thread=single"


def vmlinuz(kver):
    return os.path.join(CACHE, "kernels", kver, "boot", "vmlinuz-" + kver)


# With ERMS and FSRM the guest's kernel and libc zero and copy pages with
# rep stosb and rep movsb, which TCG runs one byte per iteration: without
# them, 8 bytes (a 6.1 boot of placement, tasks, trace and demo.sh took
# 202 s instead of 252). The instruction-clock boots keep them, so that
# make bench-overhead's counts stay comparable across runs.
TCG_CPU = "max,-erms,-fsrm"


def qemu_command(kver, topo, initrd, console_log, results_log, node_mb, boot_args=""):
    nodes, default_mb = TOPOLOGIES[topo]
    cpus = TOPOLOGY_CPUS.get(topo, nodes)
    per_node = max(cpus // nodes, 1)
    mb = node_mb or int(os.environ.get("THPNUMA_VM_NODE_MB", default_mb))
    icount = topo in ICOUNT_TOPOLOGIES
    how = "tcg,thread=single" if icount else accel(kver)
    cmd = ["qemu-system-x86_64",
           "-accel", how,
           "-cpu", TCG_CPU if how.startswith("tcg") and not icount else "max",
           "-m", "%dM" % (mb * nodes),
           "-smp", "%d,sockets=%d,cores=1,threads=1" % (cpus, cpus),
           "-nodefaults", "-display", "none", "-no-reboot",
           "-kernel", vmlinuz(kver), "-initrd", initrd,
           # The stall detectors measure host time: a TCG guest whose
           # thread the host starves for 20 s sees an RCU stall or a soft
           # lockup that no guest code caused. Longer limits keep real
           # lockups (they never end) and drop the host's pauses. For the
           # same reason no_timer_check: a starved TCG guest can miss the
           # IO-APIC timer check at boot and panic ("IO-APIC + timer
           # doesn't work!").
           "-append", "console=ttyS0 quiet panic=-1 numa_balancing=disable "
                      "rcupdate.rcu_cpu_stall_timeout=60 watchdog_thresh=30 "
                      "no_timer_check rdinit=/init" + (" " + boot_args if boot_args else ""),
           "-serial", "file:" + console_log, "-serial", "file:" + results_log]
    if icount:
        cmd += ["-icount", "shift=0,sleep=off"]
    for n in range(nodes):
        first, last = n * per_node, (n + 1) * per_node - 1
        cpu_range = str(first) if first == last else "%d-%d" % (first, last)
        node = "node,nodeid=%d,memdev=m%d" % (n, n)
        if first < cpus:
            node += ",cpus=" + cpu_range
        cmd += ["-object", "memory-backend-ram,id=m%d,size=%dM" % (n, mb),
                "-numa", node]
    for i in range(nodes):
        for j in range(i + 1, nodes):
            cmd += ["-numa", "dist,src=%d,dst=%d,val=%d" % (i, j, distance(i, j, nodes))]
    return cmd


def make_initrd(kver, tests, zram, workdir, extra_conf=None):
    """The kernel's base initramfs plus a small archive with /run.conf.

    tests: (name, limit) pairs; test N (from 1) runs as "ID:PROGRAM:LIMIT"
    in TESTS, with its NAME=value words exported from /run.env/N.
    extra_conf: more NAME=value lines for /run.conf, which guest scripts
    may source (the benchmark's settings).
    """
    base = os.path.join(BUILD, kver, "initramfs.cpio")
    conf_dir = os.path.join(workdir, "conf")
    env_dir = os.path.join(conf_dir, "run.env")
    os.makedirs(env_dir, exist_ok=True)
    files = ["run.conf", "run.env"]
    ids = []
    for i, (name, limit) in enumerate(tests, 1):
        prog, env = test_command(name)
        ids.append("%d:%s:%d" % (i, prog, limit))
        if env:
            with open(os.path.join(env_dir, str(i)), "w") as f:
                f.writelines("export %s=%s\n" % (k, shlex.quote(v)) for k, v in env)
            files.append("run.env/%d" % i)
    with open(os.path.join(conf_dir, "run.conf"), "w") as f:
        f.write('TESTS="%s"\n' % " ".join(ids))
        f.write("ZRAM=%s\n" % ("1" if zram else ""))
        f.write("THPNUMA_SPLATS=%s\n" % shlex.quote(SPLATS.pattern))
        for name, value in sorted((extra_conf or {}).items()):
            f.write('%s="%s"\n' % (name, value))
    run_cpio = os.path.join(workdir, "run.cpio")
    with open(run_cpio, "wb") as out:
        subprocess.run(["cpio", "-o", "-H", "newc", "--quiet"], cwd=conf_dir,
                       input="".join(f + "\n" for f in files).encode(), stdout=out,
                       check=True)
    initrd = os.path.join(workdir, "initrd.cpio")
    with open(initrd, "wb") as out:
        for part in (base, run_cpio):
            with open(part, "rb") as f:
                out.write(f.read())
    return initrd


class Result:
    def __init__(self, status, kver, topo, name, detail=""):
        self.status, self.kver, self.topo = status, kver, topo
        self.name, self.detail = name, detail

    def line(self):
        d = "  (%s)" % self.detail if self.detail else ""
        return "%-4s %-22s %-8s %s%s" % (self.status, self.kver, self.topo, self.name, d)


def failed_checks(lines):
    """What a failed kselftest case printed of its failed EXPECTs."""
    if not lines:
        return ""
    more = " (+%d more)" % (len(lines) - 1) if len(lines) > 1 else ""
    return lines[0][:200] + more


def parse(kver, topo, tests, results_text, console_text, hung=None):
    """Judge one boot from its two serial logs.

    The guest's markers name test N of @tests by N (tools/vm/init).
    @hung: the test during which the harness killed a guest that had
    stopped answering, if it did.
    """
    names = {str(i): name for i, (name, _) in enumerate(tests, 1)}
    out = []
    ended = {}
    stuck = set()
    current = None
    tap_seen = {}
    planned = {}
    dmesg = []
    in_dmesg = False
    done = False
    expected = []
    for raw in results_text.splitlines():
        line = raw.rstrip("\r")
        if line.startswith("@@THPNUMA-BEGIN "):
            current = names.get(line.split()[1])
            tap_seen[current] = 0
            expected = []
            continue
        if line.startswith("@@THPNUMA-END "):
            parts = line.split()
            ended[names.get(parts[1])] = int(parts[2].split("=")[1])
            current = None
            continue
        if line.startswith("@@THPNUMA-STUCK "):
            stuck.add(names.get(line.split()[1]))
            continue
        if line == "@@THPNUMA-DMESG-BEGIN":
            in_dmesg = True
            continue
        if line == "@@THPNUMA-DMESG-END":
            in_dmesg = False
            continue
        if line == "@@THPNUMA-DONE":
            done = True
            continue
        if in_dmesg:
            dmesg.append(line)
            continue
        if EXPECTED.search(line):
            expected.append(line.lstrip("# ").strip())
            continue
        m = PLAN.match(line.strip())
        if current and m and current not in planned:
            planned[current] = int(m.group(1))
            continue
        m = TAP.match(line.strip())
        if current and m:
            tap_seen[current] += 1
            verdict, desc, directive, reason = m.groups()
            name = "%s: %s" % (current, desc or reason or "")
            if directive == "SKIP":
                out.append(Result("SKIP", kver, topo, name, "" if not desc else reason.strip()))
            elif verdict == "ok":
                out.append(Result("PASS", kver, topo, name))
            else:
                out.append(Result("FAIL", kver, topo, name, failed_checks(expected)))
            expected = []
    for name, _limit in tests:
        if name in stuck:
            out.append(Result("FAIL", kver, topo, name,
                              "stuck in the kernel past its per-test limit "
                              "(the blocked tasks are in the guest's dmesg)"))
            continue
        if name == hung:
            out.append(Result("FAIL", kver, topo, name,
                              "the guest stopped answering: killed by the harness"))
            continue
        if name not in ended:
            out.append(Result("FAIL", kver, topo, name, "no result: guest died or timed out"))
            continue
        rc = ended[name]
        if rc == 137:
            out.append(Result("FAIL", kver, topo, name, "killed by the per-test timeout"))
        elif tap_seen.get(name, 0) == 0:
            if rc == 4:
                out.append(Result("SKIP", kver, topo, name, "whole test skipped"))
            else:
                out.append(Result("FAIL", kver, topo, name, "no TAP results, rc=%d" % rc))
        elif rc not in (0, 4) and not any(r.status == "FAIL" and r.name.startswith(name + ":") for r in out):
            out.append(Result("FAIL", kver, topo, name, "exit status %d" % rc))
        skipped = any(r.status == "SKIP" and r.name.startswith(name + ":") for r in out)
        seen = tap_seen.get(name, 0)
        # A test that skips the rest ("cannot mount cgroup2") ends early on
        # purpose; more results than planned is a miscount all the same.
        if rc != 137 and seen and planned.get(name, seen) != seen and \
                (not skipped or seen > planned[name]):
            out.append(Result("FAIL", kver, topo, name,
                              "%d TAP results where its plan (1..%d) promised: the test ended early or miscounted"
                              % (tap_seen[name], planned[name])))
    splats = [l for l in dmesg + console_text.splitlines() if SPLATS.search(l)]
    if not done:
        out.append(Result("FAIL", kver, topo, "boot: guest finished", "no completion marker"))
    if splats:
        out.append(Result("FAIL", kver, topo, "boot: dmesg clean", splats[0].strip()[:160]))
    elif done:
        out.append(Result("PASS", kver, topo, "boot: dmesg clean"))
    return out, dmesg


# Host seconds a test may run past its limit before the harness takes the
# guest for hung: its own watchdog (tools/vm/init) reports a test stuck
# 30 s past the limit, and a TCG guest on a busy host runs late.
HANG_GRACE = 150
# Host seconds to wait, after the guest's report of a stuck test, for the
# dmesg it dumps.
STUCK_DUMP_WAIT = 60


class Progress:
    """Which test a running guest is in, from the markers of its results
    log, read as it grows; and whether it hangs there."""

    def __init__(self, path, tests, slowdown):
        self.path, self.tests, self.slowdown = path, tests, slowdown
        self.offset = 0
        self.partial = b""
        self.current = None     # (test number, host time it began)
        self.stuck_at = None
        self.dumped = False

    def _read(self):
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            data = f.read()
        self.offset += len(data)
        lines = (self.partial + data).split(b"\n")
        self.partial = lines.pop()
        now = time.time()
        for raw in lines:
            line = raw.decode(errors="replace").rstrip("\r")
            if line.startswith("@@THPNUMA-BEGIN "):
                self.current = (int(line.split()[1]), now)
            elif line.startswith("@@THPNUMA-END "):
                self.current = None
            elif line.startswith("@@THPNUMA-STUCK "):
                self.stuck_at = now
            elif line == "@@THPNUMA-DMESG-END" and self.stuck_at:
                self.dumped = True

    def running(self):
        """The name of the test the guest is in, if any."""
        return self.tests[self.current[0] - 1][0] if self.current else None

    def hang(self):
        """Why the guest counts as hung, or None."""
        self._read()
        now = time.time()
        if self.stuck_at and (self.dumped or now - self.stuck_at > STUCK_DUMP_WAIT):
            return "%s is stuck in the kernel past its limit" % self.running()
        if self.current:
            number, began = self.current
            allowed = (self.tests[number - 1][1] + HANG_GRACE) * self.slowdown
            if now - began > allowed:
                return "no answer %d s into %s" % (now - began, self.running())
        return None


_print_lock = threading.Lock()


def report_kill(tag, seconds, why, console_text, results_text):
    """Say why the harness killed a guest, with the end of its console and
    any blocked tasks the guest dumped: a CI log's tail then tells."""
    console = console_text.splitlines()
    results = results_text.splitlines()
    blocked = []
    for i, line in enumerate(results):
        if "Show Blocked State" in line:
            blocked = [l for l in results[i:i + 80] if not l.startswith("@@THPNUMA")]
    lines = ["harness: killed %s after %.0f s: %s" % (tag, seconds, why)]
    if blocked:
        lines += ["  | " + l for l in blocked]
    lines += ["  | console: " + l for l in console[-30:]]
    with _print_lock:
        print("\n".join(lines), flush=True)


def report_splat(tag, console_text, dmesg):
    """Print a failed boot's first kernel splat with what followed it (the
    oops, its registers and call trace): a CI log then tells what broke."""
    for source, text in (("console", console_text.splitlines()), ("dmesg", dmesg)):
        for i, line in enumerate(text):
            if SPLATS.search(line):
                lines = ["harness: %s: a kernel splat, from the guest's %s:" % (tag, source)]
                lines += ["  | " + l for l in text[max(i - 5, 0):i + 60]]
                with _print_lock:
                    print("\n".join(lines), flush=True)
                return


def run_boot(kver, topo, tests, zram, keep_dir, node_mb=None, timeout=None, stream=False,
             extra_conf=None, boot_args=""):
    """Boot once and return (results, results_text, dmesg)."""
    tag = "%s-%s-%s" % (kver, topo, re.sub(r"[^\w.=-]+", "_", tests[0][0])
                        if len(tests) == 1 else "suite")
    if boot_args:
        tag += "-" + re.sub(r"[^\w.=-]+", "_", boot_args)
    workdir = os.path.join(keep_dir, tag)
    os.makedirs(workdir, exist_ok=True)
    initrd = make_initrd(kver, tests, zram, workdir, extra_conf)
    console_log = os.path.join(workdir, "console.log")
    results_log = os.path.join(workdir, "results.log")
    for p in (console_log, results_log):
        open(p, "w").close()
    cmd = qemu_command(kver, topo, initrd, console_log, results_log, node_mb, boot_args)
    # Hard limit for the whole boot: the tests' own limits plus boot time.
    slowdown = ICOUNT_SLOWDOWN if topo in ICOUNT_TOPOLOGIES else 1
    limit = (timeout or (sum(l for _, l in tests) + 120)) * slowdown
    # QEMU's messages go to a file: a pipe read only at the end would stop
    # QEMU, and its guest, once full.
    stderr_log = os.path.join(workdir, "qemu.stderr")
    with open(stderr_log, "w") as err_file:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err_file)
    start = time.time()
    shown = 0
    progress = Progress(results_log, tests, slowdown)
    why = None
    while proc.poll() is None:
        why = progress.hang()
        if not why and time.time() - start > limit:
            why = "over the boot's limit of %d s" % limit
        if why:
            proc.kill()
            break
        if stream:
            shown = _stream(results_log, shown)
        time.sleep(0.5)
    proc.wait()
    if stream:
        _stream(results_log, shown)
    if not open(stderr_log, errors="replace").read().strip():
        os.unlink(stderr_log)
    results_text = open(results_log, errors="replace").read()
    console_text = open(console_log, errors="replace").read()
    if why:
        report_kill(tag, time.time() - start, why, console_text, results_text)
    # A guest the harness killed in a test that had not reported stuck.
    hung = progress.running() if why and not progress.stuck_at else None
    results, dmesg = parse(kver, topo, tests, results_text, console_text, hung=hung)
    if any(r.status == "FAIL" and r.name == "boot: dmesg clean" for r in results):
        report_splat(tag, console_text, dmesg)
    # Guest seconds per test, from the END markers (tools/vm/init).
    for line in results_text.splitlines():
        m = re.match(r"@@THPNUMA-END (\d+) rc=\d+ secs=(\d+)", line.strip())
        if m and 0 < int(m.group(1)) <= len(tests):
            results.append(Result("TIME", kver, topo, tests[int(m.group(1)) - 1][0],
                                  "%s s in the guest" % m.group(2)))
    return results, results_text, dmesg


def _stream(path, shown):
    """Echo new test output, leaving out markers and the dmesg dump."""
    text = open(path, errors="replace").read()
    dmesg = text.find("@@THPNUMA-DMESG-BEGIN")
    if dmesg >= 0:
        text = text[:dmesg]
    for line in text[shown:].splitlines(keepends=True):
        if not line.startswith("@@THPNUMA"):
            sys.stdout.write(line)
    sys.stdout.flush()
    return len(text) if text.endswith("\n") else text.rfind("\n") + 1


def self_test(kver, keep_dir):
    """A guest WARN and a failing assertion must each fail the run; a
    stuck test ends the boot; a killed test leaves nothing running."""
    out = []
    results, _, _ = run_boot(kver, "2n", [("selftest-warn.sh", 60)], False,
                             os.path.join(keep_dir, "selftest-warn"))
    caught = any(r.status == "FAIL" and r.name == "boot: dmesg clean" for r in results)
    out.append(Result("PASS" if caught else "FAIL", kver, "2n",
                      "harness self-test: a guest WARN fails the run"))
    results, _, _ = run_boot(kver, "2n", [("selftest-fail.sh", 60)], False,
                             os.path.join(keep_dir, "selftest-fail"))
    caught = any(r.status == "FAIL" and r.name.startswith("selftest-fail.sh:") for r in results)
    clean = any(r.status == "PASS" and r.name == "boot: dmesg clean" for r in results)
    out.append(Result("PASS" if caught and clean else "FAIL", kver, "2n",
                      "harness self-test: a failing assertion fails the run"))
    # The test's limit is 5 s, the boot's 900 s: the guest's report of
    # the stuck test, not the boot's limit, must end it.
    start = time.time()
    results, results_text, _ = run_boot(kver, "2n", [("selftest-stuck.sh", 5)], False,
                                        os.path.join(keep_dir, "selftest-stuck"), timeout=900)
    took = time.time() - start
    named = any(r.status == "FAIL" and r.name == "selftest-stuck.sh"
                and "stuck in the kernel" in r.detail for r in results)
    dumped = "stall_on_load" in results_text and "Show Blocked State" in results_text
    out.append(Result("PASS" if named and dumped and took < 300 else "FAIL", kver, "2n",
                      "harness self-test: a test stuck in the kernel ends the boot, named",
                      "%.0f s, named %s, blocked tasks dumped %s" % (took, named, dumped)))
    # A test killed at its limit: what it left running must not reach
    # the next test (a memory holder would fill the nodes under it).
    results, _, _ = run_boot(kver, "2n", [("selftest-leftover.sh", 5),
                                          ("selftest-leftover-check.sh", 30)], False,
                             os.path.join(keep_dir, "selftest-leftover"))
    cleaned = any(r.status == "PASS" and r.name.startswith("selftest-leftover-check.sh:")
                  for r in results)
    out.append(Result("PASS" if cleaned else "FAIL", kver, "2n",
                      "harness self-test: a killed test's children end with it"))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kernels", nargs="+", required=True)
    ap.add_argument("--core-kernels", nargs="+", default=[],
                    help="of --kernels, those that run only the manifest's core lines")
    ap.add_argument("--manifest", default=os.path.join(TOP, "tests", "guest", "MANIFEST"))
    ap.add_argument("--only", help="run only tests whose name contains this")
    ap.add_argument("--long-forms", metavar="MANIFEST",
                    help="on --long-form-kernels, leave out the tests this manifest "
                    "has a long form of (the same program): they run next")
    ap.add_argument("--long-form-kernels", nargs="+", default=[])
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--logs", default=os.path.join(BUILD, "vm-logs"))
    args = ap.parse_args()

    manifest = read_manifest(args.manifest)
    if args.only:
        manifest = [e for e in manifest if args.only in e[2]]
    unknown = set(args.core_kernels) - set(args.kernels)
    if unknown:
        ap.error("--core-kernels not in --kernels: " + " ".join(sorted(unknown)))
    replaced = []
    if args.long_forms:
        replaced = quick_forms_replaced(manifest, read_manifest(args.long_forms))
        print("left to %s's long forms on %s: %s" % (
            os.path.basename(args.long_forms), " ".join(args.long_form_kernels),
            ", ".join(sorted({e[2] for e in replaced}))), flush=True)
    boots = []
    for kver in args.kernels:
        core_only = kver in args.core_kernels
        skip = replaced if kver in args.long_form_kernels else []
        for topo in TOPOLOGIES:
            for zram in (False, True):
                for boot in sorted({e[5] for e in manifest}):
                    tests = [(n, l) for t, l, n, z, c, b in manifest
                             if t == topo and z == zram and b == boot
                             and (c or not core_only)
                             and (t, l, n, z, c, b) not in skip]
                    if tests:
                        boots.append((kver, topo, tests, zram, boot))

    # Longest boots first, so the two workers finish close together.
    boots.sort(key=lambda b: -sum(limit for _, limit in b[2]))
    results = []
    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        # The self-tests first: their boots are short, and last they
        # would leave one worker idle at the end.
        futures = []
        if args.self_test:
            futures.append(pool.submit(lambda: (self_test(args.kernels[0], args.logs), None, None)))
        futures += [pool.submit(run_boot, k, t, tests, z,
                                os.path.join(args.logs, "zram" if z else "plain"),
                                boot_args=b)
                    for k, t, tests, z, b in boots]
        # As they end, so that a boot that hangs holds back no other's.
        for f in concurrent.futures.as_completed(futures):
            res = f.result()[0]
            with _print_lock:
                for r in res:
                    print(r.line(), flush=True)
            results += res
    passed = sum(r.status == "PASS" for r in results)
    failed = sum(r.status == "FAIL" for r in results)
    skipped = sum(r.status == "SKIP" for r in results)
    print("vm suite: %d boots in %.0f s, logs in %s" % (len(boots), time.time() - start, args.logs))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
