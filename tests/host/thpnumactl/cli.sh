#!/bin/sh
# thpnumactl commands run against a fake debugfs and sysfs tree, through
# THPNUMACTL_DEBUGFS and THPNUMACTL_SYSFS. Prints TAP lines.
# env: THPNUMACTL (the binary), FIXTURES (recorded stats and hist files)
T=$THPNUMACTL
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Never the machine's /etc/thpnuma.conf: load reads it when it exists.
export THPNUMACTL_CONF="$work/no-thpnuma.conf"
n=0
fails=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }

# run ARGS...: run the tool, keep stdout, stderr and the exit status.
run() {
	"$T" "$@" > "$work/out" 2> "$work/err"
	rc=$?
}

# expect RC TEXT NAME ARGS...: exit status RC and TEXT in stdout+stderr.
expect() {
	want_rc=$1 text=$2 name=$3
	shift 3
	run "$@"
	if [ "$rc" -eq "$want_rc" ] &&
	   cat "$work/out" "$work/err" | grep -qF -- "$text"; then
		ok "$name"
	else
		not_ok "$name (rc=$rc, want $want_rc and '$text')"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
}

# expect_file FILE CONTENT NAME: the fake control file got CONTENT.
expect_file() {
	if [ "$(cat "$1")" = "$2" ]; then
		ok "$3"
	else
		not_ok "$3 (file has '$(cat "$1")', want '$2')"
	fi
}

# put_table, put_raw: the counter tables in the tree.
. "$here/tables.sh"

# A fake tree shaped like a loaded module of thpnumactl's version on a
# two-node machine, its files in the module's formats (sysfs' tasks starts
# empty: the tests read back what is written to it).
make_tree() {
	root=$1
	dbg=$root/debug/thpnuma
	sys=$root/sys
	ctl=$sys/kernel/thpnuma
	nodes=$ctl/nodes
	mkdir -p "$dbg" "$sys/module/thpnuma/parameters" "$nodes/node0" "$nodes/node1" \
		"$sys/module/thpnuma/holders" \
		"$sys/kernel/mm/transparent_hugepage" "$sys/kernel/thpnuma" \
		"$sys/kernel/security" "$sys/kernel/tracing/events/thpnuma/thp_fault" \
		"$sys/devices/system/node/node0" "$sys/devices/system/node/node1"
	echo "kernel [strict-local] local-then-remote" > "$dbg/policy"
	echo 3 > "$dbg/zone_reclaim"
	echo "[all] madvise" > "$dbg/scope"
	echo "pmd pmd+mthp [all]" > "$dbg/coverage"
	echo 1000 > "$dbg/budget_us"
	: > "$dbg/reset"
	put_table "$FIXTURES/good-2node.txt" stats
	put_table "$FIXTURES/hist-2node.txt" hist
	# good-2node.txt's THPs: anonymous and PMD-size, all on node 0.
	awk 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; print }
	     NR == 2 { $col["local"] = 100; $col["remote"] = 5
		       $col["fallback"] = 2; $col["passthrough"] = 7; print }' \
		"$FIXTURES/orders-2node.txt" > "$work/orders.tree"
	put_table "$work/orders.tree" orders
	# The budget policy's state: both nodes within the default budget.
	printf 'node estimate_ns budget_ns probe_period since_probe state\n0 180000 1000000 2 0 within\n1 0 1000000 2 0 within\n' \
		> "$work/budget.tree"
	put_table "$work/budget.tree" budget
	# tasks and its read-only twin, overrides: the same list.
	printf '412 thp\\040touch strict-local - -\n77 db local-then-remote 3 -\n' \
		> "$dbg/tasks"
	cp "$dbg/tasks" "$dbg/overrides"
	cp "$FIXTURES/policies.txt" "$ctl/policies"
	printf 'version 0.1.0\nkernel 6.1.0-57-amd64\nhooked_symbol vma_alloc_folio\nprobe_missed 0\nunmatched_thp_calls 0\n' \
		> "$ctl/version"
	echo live > "$sys/module/thpnuma/initstate"
	echo test > "$sys/module/thpnuma/version"
	echo 0 > "$sys/module/thpnuma/refcnt"
	echo 0 > "$sys/kernel/tracing/events/thpnuma/thp_fault/enable"
	printf '# Available triggers:\n# traceon traceoff snapshot stacktrace enable_event disable_event enable_hist disable_hist hist\n' \
		> "$sys/kernel/tracing/events/thpnuma/thp_fault/trigger"
	echo strict-local > "$sys/module/thpnuma/parameters/policy"
	echo 3 > "$sys/module/thpnuma/parameters/zone_reclaim"
	echo all > "$sys/module/thpnuma/parameters/scope"
	echo all > "$sys/module/thpnuma/parameters/coverage"
	echo 1000 > "$sys/module/thpnuma/parameters/budget_us"
	: > "$sys/kernel/thpnuma/tasks"
	: > "$sys/kernel/thpnuma/cgroups"
	: > "$sys/kernel/thpnuma/reset"
	echo "[none] integrity confidentiality" > "$sys/kernel/security/lockdown"
	echo "always [madvise] never" > "$sys/kernel/mm/transparent_hugepage/enabled"
	echo "always defer defer+madvise [madvise] never" \
		> "$sys/kernel/mm/transparent_hugepage/defrag"
	echo 0-1 > "$sys/devices/system/node/online"
	printf 'Node 0 MemTotal:  786432 kB\nNode 0 MemFree:   524288 kB\n' \
		> "$sys/devices/system/node/node0/meminfo"
	printf 'Node 1 MemTotal:  786432 kB\nNode 1 MemFree:   262144 kB\n' \
		> "$sys/devices/system/node/node1/meminfo"
}

make_tree "$work/tree"
export THPNUMACTL_DEBUGFS="$dbg" THPNUMACTL_SYSFS="$sys"
# A kernel command line of our own: the host's (debugfs=off, thpnuma.*)
# must not change what the tests see.
echo "BOOT_IMAGE=/boot/vmlinuz-6.1.0-57-amd64 root=/dev/vda ro quiet" > "$work/cmdline"
export THPNUMACTL_CMDLINE="$work/cmdline"
par=$sys/module/thpnuma/parameters
ctl=$sys/kernel/thpnuma

# ---- usage errors: exit 2, a message and a pointer to --help ----------
expect 2 "missing command" "no command is a usage error"
expect 2 "unknown command 'frobnicate'" "unknown command" frobnicate
expect 2 "unknown option '--frob'" "unknown global option" --frob
expect 2 "unknown option '--bogus'" "stat: unknown long option" stat --bogus
expect 2 "unknown option '-x'" "stat: unknown short option" stat -x
expect 2 "option '-n' needs an argument" "stat -n without a node" stat -n
expect 2 "option '--node' needs an argument" "stat --node without a node" stat --node
expect 2 "invalid node 'abc'" "stat -n abc" stat -n abc
expect 2 "invalid node '-1'" "stat -n -1" stat -n -1
expect 2 "exclude each other" "stat --json --prometheus" stat --json --prometheus
expect 2 "exclude each other" "hist --json --prometheus" hist --prometheus --json
expect 2 "invalid node 'x'" "hist -n x" hist -n x
expect 2 "unexpected argument 'all'" "hist extra argument" hist all
expect 2 "Try 'thpnumactl hist --help'" "hist usage errors point to --help" hist --bogus
expect 2 "unexpected argument 'extra'" "stat extra argument" stat extra
expect 2 "Try 'thpnumactl stat --help'" "usage errors point to --help" stat --bogus
expect 2 "invalid interval '0'" "watch -i 0" watch -i 0
expect 2 "invalid interval 'x'" "watch -i x" watch -i x
expect 2 "invalid count '-1'" "watch -c -1" watch -c -1
expect 2 "invalid count '0'" "watch -c 0" watch -c 0
expect 2 "invalid policy 'bogus' (valid: kernel, strict-local, local-then-remote, budget)" \
	"policy bogus" policy bogus
expect 2 "unexpected argument 'kernel'" "policy with two names" policy strict-local kernel
expect 2 "invalid scope 'none'" "scope none" scope none
expect 2 "invalid coverage 'huge' (valid: pmd, pmd+mthp, all)" "coverage huge" \
	coverage huge
expect 2 "unexpected argument 'all'" "coverage with two names" coverage pmd all
expect 2 "invalid zone reclaim mode '8'" "zone-reclaim 8" zone-reclaim 8
expect 2 "invalid zone reclaim mode '12'" "zone-reclaim 12" zone-reclaim 12
expect 2 "invalid zone reclaim mode 'reclaim,foo'" "zone-reclaim unknown name" \
	zone-reclaim reclaim,foo
expect 2 "invalid zone reclaim mode 'reclaim,,swap'" "zone-reclaim empty name" \
	zone-reclaim reclaim,,swap
expect 2 "invalid zone reclaim mode ''" "zone-reclaim empty" zone-reclaim ""
expect 2 "invalid zone reclaim mode '-1'" "zone-reclaim -1 is a bad value, not an option" \
	zone-reclaim -1
# budget_us: 1-1000000 as the module's parser takes it, no sign, space or
# leading zero; "-5" is a bad value, not an unknown option.
for bad in 0 01 0500 1000001 10000000 -5 -0 abc "" " 5" "5 " +5 1e3 1.5 0x10; do
	expect 2 "invalid budget_us '$bad' (1-1000000 microseconds, written without sign or leading zeros)" \
		"budget-us '$bad'" budget-us "$bad"
done
run budget-us -5
if [ "$rc" -eq 2 ] && grep -qxF "Try 'thpnumactl budget-us --help'." "$work/err" &&
   [ ! -s "$work/out" ]; then
	ok "budget-us usage errors point to --help and print nothing"
else
	not_ok "budget-us usage errors point to --help (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
expect 2 "unexpected argument '2'" "budget-us with two values" budget-us 1 2
expect 2 "unknown option '-x'" "budget-us -x is an option" budget-us -x
expect 2 "invalid policy 'fast'" "load --policy fast" load --policy fast
expect 2 "invalid zone reclaim mode '9'" "load --zone-reclaim 9" load --zone-reclaim 9
expect 2 "invalid scope 'some'" "load --scope some" load --scope some
expect 2 "invalid coverage 'thp'" "load --coverage thp" load --coverage thp
expect 2 "invalid budget_us '0' (1-1000000 microseconds" "load --budget-us 0" load --budget-us 0
expect 2 "invalid budget_us '01'" "load -b 01" load -b 01
expect 2 "invalid budget_us '1000001'" "load --budget-us=1000001" load --budget-us=1000001
expect 2 "invalid budget_us '-5'" "load -b -5" load -b -5
expect 2 "option '--budget-us' needs an argument" "load --budget-us without a value" load --budget-us
expect 2 "option '--module' needs an argument" "load --module without a path" load --module
expect 2 "unexpected argument 'thpnuma'" "load with a stray argument" load thpnuma
expect 2 "unexpected argument 'now'" "unload with a stray argument" unload now
expect 2 "unexpected argument 'all'" "reset with a stray argument" reset all
expect 2 "unknown command 'nope'" "help for an unknown command" help nope

# ---- the module's version ----------------------------------------------
echo 0.0.9 > "$sys/module/thpnuma/version"
expect 1 "this thpnuma module is version 0.0.9, thpnumactl is test; load the module of thpnumactl's version" \
	"a module of another version is refused" policy
expect 1 "load the module of thpnumactl's version" \
	"stat refuses a module of another version" stat
echo test > "$sys/module/thpnuma/version"

# ---- help and version ------------------------------------------------
for c in load unload apply status policy zone-reclaim budget-us scope coverage stat watch hist run tasks task cgroups cgroup policies reset; do
	expect 0 "Example" "$c --help shows usage with examples" $c --help
done
expect 0 "Usage: thpnumactl stat" "help stat" help stat
expect 0 "zone-reclaim" "--help lists the commands" --help
expect 0 "thpnumactl test" "--version" --version

# ---- policy, scope, zone-reclaim through the module parameters ---------
expect 0 "strict-local" "policy reads the parameter" policy
: > "$par/policy"
expect 0 "local-then-remote" "policy local-then-remote" policy local-then-remote
expect_file "$par/policy" local-then-remote "policy writes the name to the parameter"
expect_file "$dbg/policy" "kernel [strict-local] local-then-remote" \
	"policy leaves debugfs alone when the parameter takes it"
expect 0 "all" "scope reads the parameter" scope
: > "$par/scope"
expect 0 "madvise" "scope madvise" scope madvise
expect_file "$par/scope" madvise "scope writes the name"
expect 0 "3 (reclaim,write)" "zone-reclaim reads bits and names" zone-reclaim
for pair in "reclaim,swap 5" "swap,reclaim,write 7" "none 0" "0 0" "6 6" "write 2"; do
	arg=${pair% *} bits=${pair#* }
	: > "$par/zone_reclaim"
	expect 0 "$bits (" "zone-reclaim $arg" zone-reclaim "$arg"
	expect_file "$par/zone_reclaim" "$bits" "zone-reclaim $arg writes $bits"
done
echo 0 > "$par/zone_reclaim"
expect 0 "0 (none)" "zone-reclaim 0 reads as none" zone-reclaim
echo "garbage" > "$par/zone_reclaim"
expect 1 "unexpected contents" "zone-reclaim refuses a garbled parameter" zone-reclaim
echo "[strict-local]" > "$par/policy"
expect 1 "unexpected contents" "policy refuses a parameter that is not a name" policy
echo strict-local > "$par/policy"

# ---- budget-us: a plain number of microseconds ----------------------------
run budget-us
if [ "$rc" -eq 0 ] && [ "$(cat "$work/out")" = 1000 ] && [ ! -s "$work/err" ]; then
	ok "budget-us prints the parameter's number"
else
	not_ok "budget-us prints the parameter's number (rc=$rc, out '$(cat "$work/out")')"
fi
echo budget > "$par/policy"
for v in 1 500 1000000; do
	: > "$par/budget_us"
	run budget-us "$v"
	if [ "$rc" -eq 0 ] && [ "$(cat "$work/out")" = "$v" ] && [ ! -s "$work/err" ]; then
		ok "budget-us $v under budget: set and printed, no note"
	else
		not_ok "budget-us $v under budget (rc=$rc)"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
	expect_file "$par/budget_us" "$v" "budget-us $v writes $v"
done
for bad in 0500 0 1000001 garbage "" "[1000]"; do
	printf '%s\n' "$bad" > "$par/budget_us"
	expect 1 "unexpected contents in $par/budget_us: '$bad'" \
		"budget-us refuses a parameter of '$bad'" budget-us
done
rm "$par/budget_us"
expect 1 "cannot read $par/budget_us: No such file or directory" \
	"budget-us without its parameter (an older module) fails" budget-us
echo 1000 > "$par/budget_us"
echo 3 > "$par/zone_reclaim"
echo strict-local > "$par/policy"
echo all > "$par/scope"

# ---- coverage: the same command shape as scope -----------------------------
expect 0 "all" "coverage reads the parameter" coverage
run coverage
if [ "$rc" -eq 0 ] && [ "$(cat "$work/out")" = all ]; then
	ok "coverage prints the bare name"
else
	not_ok "coverage prints the bare name (rc=$rc, out '$(cat "$work/out")')"
fi
for c in pmd pmd+mthp all; do
	: > "$par/coverage"
	expect 0 "$c" "coverage $c" coverage "$c"
	expect_file "$par/coverage" "$c" "coverage $c writes the name to the parameter"
done
expect_file "$dbg/coverage" "pmd pmd+mthp [all]" \
	"coverage leaves debugfs alone when the parameter takes it"
echo pmd > "$par/coverage"
for bad in huge PMD "pmd " "" "pmd+mthp+shmem"; do
	run coverage "$bad"
	if [ "$rc" -eq 2 ] && grep -qF "invalid coverage '$bad'" "$work/err" &&
	   [ ! -s "$work/out" ] && [ "$(cat "$par/coverage")" = pmd ] &&
	   [ "$(cat "$dbg/coverage")" = "pmd pmd+mthp [all]" ]; then
		ok "coverage '$bad' is a usage error and changes nothing"
	else
		not_ok "coverage '$bad' is a usage error and changes nothing (rc=$rc)"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
done
expect 0 "pmd" "coverage still reads pmd after the refusals" coverage
# A parameter that refuses the write with EINVAL, as the module does:
# /proc/self/oom_score_adj takes only a number, of thpnumactl's own.
mv "$par/coverage" "$work/coverage.saved"
ln -s /proc/self/oom_score_adj "$par/coverage"
if python3 -c 'import os, sys
fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
try:
    os.write(fd, b"pmd")
except OSError as e:
    sys.exit(e.errno != 22)
sys.exit(1)' 2> /dev/null; then
	run coverage pmd+mthp
	if [ "$rc" -eq 1 ] &&
	   grep -qF "the module refused coverage 'pmd+mthp'" "$work/err" &&
	   [ ! -s "$work/out" ] &&
	   [ "$(cat "$dbg/coverage")" = "pmd pmd+mthp [all]" ]; then
		ok "coverage: the module's EINVAL is reported, debugfs untouched"
	else
		not_ok "coverage: the module's EINVAL is reported (rc=$rc)"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
else
	ok "coverage: the module's EINVAL # SKIP /proc/self/oom_score_adj does not refuse with EINVAL here"
fi
rm "$par/coverage"
mv "$work/coverage.saved" "$par/coverage"
expect 0 "pmd" "coverage is unchanged after the refusal" coverage
echo "garbage" > "$par/coverage"
expect 1 "unexpected contents" "coverage refuses a parameter that is not a name" coverage
echo all > "$par/coverage"

# ---- settings that the current policy ignores: a note, exit 0 -------------
# zone_reclaim acts only under local-then-remote.
expect_note() {
	note=$1 name=$2
	shift 2
	run "$@"
	if [ "$rc" -eq 0 ] && grep -qF "note: $note" "$work/err" &&
	   [ "$(wc -l < "$work/err")" -eq 1 ]; then
		ok "$name"
	else
		not_ok "$name (rc=$rc, want the note '$note')"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
}
expect_no_note() {
	name=$1
	shift
	run "$@"
	if [ "$rc" -eq 0 ] && [ ! -s "$work/err" ]; then
		ok "$name"
	else
		not_ok "$name (rc=$rc)"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
}
for p in kernel strict-local; do
	echo "$p" > "$par/policy"
	expect_note "zone_reclaim applies only under local-then-remote and budget; the current policy is $p" \
		"zone-reclaim swap under $p gets a note" zone-reclaim swap
	expect_file "$par/zone_reclaim" 4 "zone-reclaim swap under $p is still set"
done
echo strict-local > "$par/policy"
expect_no_note "zone-reclaim none under strict-local: nothing to note" zone-reclaim none
echo local-then-remote > "$par/policy"
expect_no_note "zone-reclaim 3 under local-then-remote: no note" zone-reclaim 3
expect_note "zone_reclaim 3 (reclaim,write) applies only under local-then-remote and budget; it has no effect under kernel" \
	"policy kernel with zone_reclaim 3 gets a note" policy kernel
: > "$par/policy"
echo 0 > "$par/zone_reclaim"
expect_no_note "policy strict-local with zone_reclaim 0: no note" policy strict-local
echo 3 > "$par/zone_reclaim"
expect_no_note "policy local-then-remote: no note" policy local-then-remote
expect_note "zone_reclaim applies only under local-then-remote and budget; this override's policy is kernel" \
	"task -z with policy kernel gets a note" task -z 3 412 kernel
expect_no_note "task -z with local-then-remote: no note" task -z 3 412 local-then-remote
expect_no_note "task PID strict-local without -z: no note" task 412 strict-local
expect_note "budget_us applies only under budget; this override's policy is local-then-remote" \
	"task -b with policy local-then-remote gets a note" task -b 500 412 local-then-remote
expect_no_note "task -b with budget: no note" task -b 500 412 budget
# budget uses zone_reclaim as its local effort; budget_us only budget.
echo budget > "$par/policy"
expect_no_note "zone-reclaim 3 under budget: no note" zone-reclaim 3
expect_no_note "task -z with budget: no note" task -z 3 412 budget
: > "$par/policy"
expect_no_note "policy budget with zone_reclaim 3: no note" policy budget
expect_file "$par/policy" budget "policy budget writes the name"
for p in kernel strict-local local-then-remote; do
	echo "$p" > "$par/policy"
	: > "$par/budget_us"
	expect_note "budget_us applies only under budget; the current policy is $p" \
		"budget-us 250 under $p gets a note" budget-us 250
	expect_file "$par/budget_us" 250 "budget-us 250 under $p is still set"
done
echo strict-local > "$par/policy"
echo 1000 > "$par/budget_us"
: > "$ctl/tasks"
echo 3 > "$par/zone_reclaim"
echo strict-local > "$par/policy"

# ---- settings are the parameters alone: debugfs is no stand-in -----------
mv "$par" "$work/params.saved"
expect 1 "cannot read $par/policy: No such file or directory" \
	"without its parameter, policy fails" policy
expect 1 "cannot change $par/coverage: No such file or directory" \
	"without its parameter, coverage pmd fails" coverage pmd
expect_file "$dbg/coverage" "pmd pmd+mthp [all]" \
	"without its parameter, coverage pmd leaves debugfs alone"
mv "$work/params.saved" "$par"

# ---- reset ---------------------------------------------------------------
expect 0 "counters reset" "reset" reset
expect_file "$ctl/reset" 1 "reset writes 1 to /sys/kernel/thpnuma/reset"
expect_file "$dbg/reset" "" "reset leaves debugfs' reset alone"
mv "$ctl/reset" "$work/reset.saved"
expect 1 "cannot write $ctl/reset: No such file or directory" \
	"reset without the sysfs file fails" reset
expect_file "$dbg/reset" "" "reset without the sysfs file leaves debugfs' reset alone"
mv "$work/reset.saved" "$ctl/reset"

# ---- stat ----------------------------------------------------------------
expect 0 "Node 1" "stat shows a table" stat
expect 0 "Total" "stat has a Total column" stat
expect 0 "avg alloc us" "stat has derived rows" stat
run stat
if grep -q "^local %  *93.46  *-  *93.46$" "$work/out"; then
	ok "stat: local % per node and total"
else
	not_ok "stat: local % per node and total"
fi
run stat -n 1
if grep -q "Node 1" "$work/out" && ! grep -q "Node 0\|Total" "$work/out"; then
	ok "stat -n 1 shows only node 1"
else
	not_ok "stat -n 1 shows only node 1"
fi
expect 1 "node 5 is not online" "stat -n 5 on a two-node machine" stat -n 5
run stat --json
if [ "$rc" -eq 0 ] && python3 - "$work/out" "$dbg/stats" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
lines = open(sys.argv[2]).read().split("\n")
names = lines[0].split()[1:]
rows = [l.split() for l in lines[1:] if l.strip()]
assert [n["node"] for n in doc["nodes"]] == [int(r[0]) for r in rows]
for node, row in zip(doc["nodes"], rows):
    for name, value in zip(names, row[1:]):
        assert node[name] == int(value), (name, node[name], value)
for name in names:
    assert doc["total"][name] == sum(n[name] for n in doc["nodes"])
assert doc["nodes"][1]["local_pct"] is None
assert abs(doc["nodes"][0]["avg_alloc_us"] - 2000.0) < 1e-9
EOF
then
	ok "stat --json is valid JSON with the file's numbers"
else
	not_ok "stat --json is valid JSON with the file's numbers"
fi
run stat -n 0 --json
if [ "$rc" -eq 0 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert [n["node"] for n in d["nodes"]] == [0]' "$work/out"; then
	ok "stat -n 0 --json holds node 0 only"
else
	not_ok "stat -n 0 --json holds node 0 only"
fi
run stat --prometheus
cp "$work/out" "$work/stdout.prom"
if [ "$rc" -eq 0 ] && python3 "$here/check_prometheus.py" "$work/out" &&
   grep -qx 'thpnuma_thp_local_total{node="0"} 100' "$work/out"; then
	ok "stat --prometheus is valid exposition text"
else
	not_ok "stat --prometheus is valid exposition text"
fi
if grep -qx 'thpnuma_info{version="0.1.0",kernel="6.1.0-57-amd64",hooked_symbol="vma_alloc_folio",policy="strict-local",zone_reclaim="3",scope="all",coverage="all",budget_us="1000"} 1' "$work/out" &&
   grep -qx '# TYPE thpnuma_info gauge' "$work/out"; then
	ok "stat --prometheus has thpnuma_info with version and settings"
else
	not_ok "stat --prometheus has thpnuma_info with version and settings"
	grep '^thpnuma_info' "$work/out" | sed 's/^/# /'
fi
if grep -qx 'thpnuma_policy_thp_local_total{policy="kernel"} 120' "$work/out" &&
   grep -qx 'thpnuma_policy_by_override_total{policy="strict-local"} 209' "$work/out" &&
   grep -qx 'thpnuma_policy_tasks{policy="strict-local"} 1' "$work/out" &&
   grep -qx '# TYPE thpnuma_policy_thp_remote_total counter' "$work/out" &&
   grep -q '^# HELP thpnuma_policy_tasks ' "$work/out"; then
	ok "stat --prometheus has the per-policy totals"
else
	not_ok "stat --prometheus has the per-policy totals"
fi
# A real parser: promtool, from Debian's prometheus package (unpacked
# into .cache by tools/build/install-deps.sh, or installed).
promtool=$here/../../../.cache/promtool/usr/bin/promtool
[ -x "$promtool" ] || promtool=$(command -v promtool || true)
if [ -n "$promtool" ]; then
	if "$promtool" check metrics < "$work/out" > "$work/promtool" 2>&1; then
		ok "promtool check metrics accepts stat --prometheus"
	else
		not_ok "promtool check metrics accepts stat --prometheus"
		sed 's/^/# /' "$work/promtool"
	fi
else
	ok "promtool check metrics # SKIP no promtool (tools/build/install-deps.sh unpacks it)"
fi
# A full disk or a closed pipe: the exit status says so.
for args in "stat --prometheus" "stat --json" "stat" "hist" "hist --json" \
	"hist --prometheus" "tasks --json" "status" "--version"; do
	# shellcheck disable=SC2086
	"$T" $args > /dev/full 2> "$work/err"
	rc=$?
	if [ "$rc" -eq 1 ] && grep -q "write error on standard output" "$work/err"; then
		ok "$args > /dev/full exits 1"
	else
		not_ok "$args > /dev/full exits 1 (rc=$rc)"
		sed 's/^/# /' "$work/err"
	fi
done
# --output: a temporary file in the same directory, renamed over FILE.
prom=$work/textfile
mkdir -p "$prom"
echo old > "$prom/thpnuma.prom"
inode=$(stat -c %i "$prom/thpnuma.prom")
(umask 022 && "$T" stat --prometheus -o "$prom/thpnuma.prom" > "$work/out" 2> "$work/err")
rc=$?
if [ "$rc" -eq 0 ] && [ ! -s "$work/out" ] &&
   cmp -s "$prom/thpnuma.prom" "$work/stdout.prom" &&
   [ "$(stat -c %i "$prom/thpnuma.prom")" != "$inode" ] &&
   [ "$(stat -c %a "$prom/thpnuma.prom")" = 644 ] &&
   [ "$(ls -A "$prom")" = thpnuma.prom ]; then
	ok "stat -o replaces the file by rename, 0644, no temporary left"
else
	not_ok "stat -o replaces the file by rename, 0644, no temporary left (rc=$rc)"
	ls -lai "$prom" | sed 's/^/# /'
fi
# The collector runs as another user: 0644 under a service's umask too.
for mask in 077 027 002; do
	(umask $mask && "$T" hist --prometheus -o "$prom/thpnuma_hist.prom")
	rc=$?
	if [ "$rc" -eq 0 ] && [ "$(stat -c %a "$prom/thpnuma_hist.prom")" = 644 ]; then
		ok "hist -o under umask $mask writes a 0644 file"
	else
		not_ok "hist -o under umask $mask writes a 0644 file (rc=$rc, mode $(stat -c %a "$prom/thpnuma_hist.prom"))"
	fi
done
rm -f "$prom/thpnuma_hist.prom"
put_raw "$FIXTURES/bad-empty.txt" stats
run stat --prometheus -o "$prom/thpnuma.prom"
if [ "$rc" -eq 1 ] && cmp -s "$prom/thpnuma.prom" "$work/stdout.prom" &&
   [ "$(ls -A "$prom")" = thpnuma.prom ]; then
	ok "stat -o leaves FILE as it was when the stats cannot be read"
else
	not_ok "stat -o leaves FILE as it was when the stats cannot be read (rc=$rc)"
fi
put_table "$FIXTURES/good-2node.txt" stats
expect 1 "cannot create a temporary file for $work/no/such/dir/t.prom" \
	"stat -o into a missing directory" stat --prometheus -o "$work/no/such/dir/t.prom"
expect 2 "empty --output" "stat -o ''" stat -o ""
(cd "$prom" && "$T" stat --json -o rel.json) && python3 -m json.tool "$prom/rel.json" > /dev/null
if [ $? -eq 0 ]; then
	ok "stat --json -o with a relative name"
else
	not_ok "stat --json -o with a relative name"
fi
for f in bad-non-numeric bad-missing-column bad-empty bad-overflow; do
	put_raw "$FIXTURES/$f.txt" stats
	expect 1 "cannot parse $nodes/node*/stats: " "stat refuses $f" stat
done
put_table "$FIXTURES/good-4node-huge.txt" stats
expect 0 "18446744073709551615" "stat shows 64-bit maxima" stat
# Each node's file is read on its own: they must agree on the columns.
sed '1s/ thp_local / thp_here /' "$nodes/node2/stats" > "$work/node2"
cp "$work/node2" "$nodes/node2/stats"
expect 1 "cannot parse $nodes/node2/stats: its header is not $nodes/node0/stats's" \
	"stat refuses nodes whose headers differ" stat
# In node order, not the directory's: node10 comes after node3.
put_table "$FIXTURES/good-4node-huge.txt" stats
mv "$nodes/node2" "$nodes/node10"
for t in stats hist orders; do
	sed -i 's/^2 /10 /' "$nodes/node10/$t"
done
run stat --json
if [ "$rc" -eq 0 ] && python3 -c '
import json, sys
assert [n["node"] for n in json.load(open(sys.argv[1]))["nodes"]] == [0, 1, 3, 10], sys.argv[1]
' "$work/out"; then
	ok "stat: the nodes' files joined in node order"
else
	not_ok "stat: the nodes' files joined in node order (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
rm -r "$nodes/node10"
put_table "$FIXTURES/good-4node-huge.txt" stats
mv "$nodes" "$work/nodes.saved"
expect 1 "cannot read $nodes: No such file or directory" \
	"stat names the missing nodes directory" stat
mv "$work/nodes.saved" "$nodes"

# ---- stat: the orders table (per node, THP kind and order) ----------------
# The tree's orders file: good-2node.txt's THPs, in one row.
put_table "$FIXTURES/good-2node.txt" stats
cp "$dbg/orders" "$work/orders.saved"
run stat
sed -n '/^orders/,$p' "$work/out" > "$work/orders"
if [ "$rc" -eq 0 ] && [ "$(wc -l < "$work/orders")" -eq 3 ] &&
   grep -q "^anon 2048kB  *100  *5  *2  *7$" "$work/orders" &&
   [ "$(grep -c '^$' "$work/out")" -eq 1 ]; then
	ok "stat: the node table, then the orders file's"
else
	not_ok "stat: the node table, then the orders file's (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
# The module has the file: without it, stat fails rather than leave its
# part out.
rm "$dbg/orders" "$nodes"/node*/orders
run stat
if [ "$rc" -eq 1 ] && [ ! -s "$work/out" ] &&
   grep -qF "cannot read $nodes/node0/orders: No such file or directory" "$work/err"; then
	ok "stat without the orders file fails, printing nothing"
else
	not_ok "stat without the orders file fails, printing nothing (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
put_table "$work/orders.saved" orders
put_table "$FIXTURES/good-2node-orders.txt" stats
put_table "$FIXTURES/orders-2node.txt" orders
# orders_table [ARGS]: stat's lines from the orders header on.
orders_table() {
	run stat "$@"
	sed -n '/^orders/,$p' "$work/out" > "$work/orders"
}
orders_table
cat > "$work/want" <<'EOT'
orders                     local          remote        fallback     passthrough
                 --------------- --------------- --------------- ---------------
anon 2048kB                   15               4               1               1
anon 64kB                    100               3               0               0
shmem 2048kB                   5               0               0               2
shmem 16kB                     0               0               7               0
EOT
if [ "$rc" -eq 0 ] && cmp -s "$work/orders" "$work/want" &&
   grep -q "^thp_local  *117  *3  *120$" "$work/out" &&
   [ "$(grep -c '^$' "$work/out")" -eq 1 ]; then
	ok "stat: the orders table after the node table, summed over nodes"
else
	not_ok "stat: the orders table after the node table, summed over nodes (rc=$rc)"
	diff "$work/want" "$work/orders" | sed 's/^/# /'
	sed 's/^/# /' "$work/err"
fi
orders_table -n 1
cat > "$work/want" <<'EOT'
orders                     local          remote        fallback     passthrough
                 --------------- --------------- --------------- ---------------
anon 2048kB                    3               4               0               1
shmem 16kB                     0               0               7               0
EOT
if [ "$rc" -eq 0 ] && cmp -s "$work/orders" "$work/want"; then
	ok "stat -n 1: the orders of node 1 only"
else
	not_ok "stat -n 1: the orders of node 1 only (rc=$rc)"
	diff "$work/want" "$work/orders" | sed 's/^/# /'
fi
orders_table -n 0
if [ "$rc" -eq 0 ] && grep -q "^anon 2048kB  *12  *0  *1  *0$" "$work/orders" &&
   grep -q "^shmem 2048kB " "$work/orders" && ! grep -q "16kB" "$work/orders"; then
	ok "stat -n 0: the orders of node 0 only"
else
	not_ok "stat -n 0: the orders of node 0 only (rc=$rc)"
	sed 's/^/# /' "$work/orders"
fi
run stat --json
if [ "$rc" -eq 0 ] && python3 - "$work/out" "$dbg/orders" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
lines = [l.split() for l in open(sys.argv[2]) if l.strip()]
names = lines[0]
want = []
for row in lines[1:]:
    obj = dict(zip(names, row))
    want.append({k: v if k == "kind" else int(v) for k, v in obj.items()})
assert doc["orders"] == want, doc["orders"]
assert list(doc["orders"][0]) == names
assert doc["orders"][0]["size_kb"] == 2048 and doc["orders"][1]["order"] == 4
# The node table's columns are the totals over kinds and orders.
for node in doc["nodes"]:
    mine = [o for o in doc["orders"] if o["node"] == node["node"]]
    for o, n in (("local", "thp_local"), ("remote", "thp_remote"),
                 ("fallback", "thp_fallback"), ("passthrough", "passthrough")):
        assert sum(r[o] for r in mine) == node[n], (node["node"], o)
EOF
then
	ok "stat --json: an orders array with the file's rows and numbers"
else
	not_ok "stat --json: an orders array with the file's rows and numbers (rc=$rc)"
	sed 's/^/# /' "$work/err"
fi
run stat -n 1 --json
if [ "$rc" -eq 0 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert [n["node"] for n in d["nodes"]] == [1]
assert [(o["node"], o["kind"], o["size_kb"]) for o in d["orders"]] == \
    [(1, "anon", 2048), (1, "shmem", 16)], d["orders"]' "$work/out"; then
	ok "stat -n 1 --json: node 1's orders only"
else
	not_ok "stat -n 1 --json: node 1's orders only (rc=$rc)"
fi
run stat --prometheus
cp "$work/out" "$work/orders.prom"
if [ "$rc" -eq 0 ] && python3 "$here/check_prometheus.py" "$work/out" &&
   grep -qx 'thpnuma_order_local_total{node="0",kind="anon",size_kb="2048"} 12' "$work/out" &&
   grep -qx 'thpnuma_order_remote_total{node="0",kind="anon",size_kb="64"} 3' "$work/out" &&
   grep -qx 'thpnuma_order_fallback_total{node="1",kind="shmem",size_kb="16"} 7' "$work/out" &&
   grep -qx 'thpnuma_order_passthrough_total{node="0",kind="shmem",size_kb="2048"} 2' "$work/out" &&
   grep -qx "# HELP thpnuma_order_local_total THPs of this order placed on the faulting CPU's node." "$work/out" &&
   grep -qx '# TYPE thpnuma_order_passthrough_total counter' "$work/out" &&
   [ "$(grep -c '^thpnuma_order_' "$work/out")" -eq 20 ] &&
   [ "$(grep -c '^# HELP thpnuma_order_' "$work/out")" -eq 4 ] &&
   grep -q '^thpnuma_info{' "$work/out"; then
	ok "stat --prometheus: one counter per outcome, by node, kind and size"
else
	not_ok "stat --prometheus: one counter per outcome, by node, kind and size (rc=$rc)"
	grep 'order' "$work/out" | sed 's/^/# /'
fi
run stat -n 1 --prometheus
if [ "$rc" -eq 0 ] && python3 "$here/check_prometheus.py" "$work/out" &&
   [ "$(grep -c '^thpnuma_order_.*node="1"' "$work/out")" -eq 8 ] &&
   ! grep -q '^thpnuma_order_.*node="0"' "$work/out"; then
	ok "stat -n 1 --prometheus: node 1's orders only"
else
	not_ok "stat -n 1 --prometheus: node 1's orders only (rc=$rc)"
fi
# A header alone: nothing counted yet.
head -1 "$FIXTURES/orders-2node.txt" > "$work/orders.empty"
put_table "$work/orders.empty" orders
run stat
if [ "$rc" -eq 0 ] &&
   [ "$(tail -1 "$work/out")" = "orders: no THP of any kind or order counted yet" ]; then
	ok "stat with an empty orders table says so in one line"
else
	not_ok "stat with an empty orders table says so in one line (rc=$rc)"
	tail -3 "$work/out" | sed 's/^/# /'
fi
run stat --json
if [ "$rc" -eq 0 ] && python3 -c '
import json, sys
assert json.load(open(sys.argv[1]))["orders"] == []' "$work/out"; then
	ok "stat --json with an empty orders table: orders is []"
else
	not_ok "stat --json with an empty orders table: orders is [] (rc=$rc)"
fi
run stat --prometheus
if [ "$rc" -eq 0 ] && python3 "$here/check_prometheus.py" "$work/out" &&
   ! grep -q '^thpnuma_order_' "$work/out"; then
	ok "stat --prometheus with an empty orders table has no order samples"
else
	not_ok "stat --prometheus with an empty orders table has no order samples (rc=$rc)"
fi
# good-2node.txt's node 1 placed nothing: no rows for it.
put_table "$FIXTURES/good-2node.txt" stats
sed '/^1 /d' "$FIXTURES/orders-2node.txt" > "$work/orders.node0"
put_table "$work/orders.node0" orders
orders_table -n 1
if [ "$rc" -eq 0 ] &&
   [ "$(cat "$work/orders")" = "orders: no THP of any kind or order counted yet" ]; then
	ok "stat -n NODE: a node with no orders rows gets the one line"
else
	not_ok "stat -n NODE: a node with no orders rows gets the one line (rc=$rc)"
	sed 's/^/# /' "$work/out"
fi
# Malformed files: exit 1, the file and the line named, nothing printed.
for pair in \
	"orders-bad-empty|empty orders file" \
	"orders-bad-header|line 1: header does not start with \"node kind order size_kb\"" \
	"orders-bad-header-lacks-outcome|line 1: header lacks column \"fallback\"" \
	"orders-bad-kind|line 2: unknown THP kind \"file\"" \
	"orders-bad-order-range|line 2: bad order \"10\" (1 to 9)" \
	"orders-bad-size|line 2: size_kb \"4096\" is not order 9's 2048" \
	"orders-bad-duplicate|line 3: node 0 anon order 9 appears twice" \
	"orders-bad-order|line 3: out of order" \
	"orders-bad-non-numeric|line 2: remote value \"x\" is not a number" \
	"orders-bad-overflow|line 2: local value \"18446744073709551616\" exceeds 64 bits" \
	"orders-bad-missing-field|line 2: too few fields, the header has 8"; do
	f=${pair%%|*} why=${pair#*|}
	put_raw "$FIXTURES/$f.txt" orders
	for args in "stat" "stat --json" "stat --prometheus"; do
		# shellcheck disable=SC2086
		run $args
		if [ "$rc" -eq 1 ] && [ ! -s "$work/out" ] &&
		   grep -qF "cannot parse $nodes/node*/orders: $why" "$work/err"; then
			ok "$args refuses $f"
		else
			not_ok "$args refuses $f (rc=$rc, want '$why')"
			sed 's/^/# /' "$work/out" "$work/err"
		fi
	done
done
put_table "$work/orders.saved" orders

# ---- hist ----------------------------------------------------------------------
put_table "$FIXTURES/good-2node.txt" stats
run hist
if [ "$rc" -eq 0 ] && cmp -s "$work/out" "$FIXTURES/hist-2node.expected"; then
	ok "hist renders the histograms as the expected text"
else
	not_ok "hist renders the histograms as the expected text (rc=$rc)"
	diff "$FIXTURES/hist-2node.expected" "$work/out" | sed 's/^/# /'
	sed 's/^/# /' "$work/err"
fi
run hist -n 0
if [ "$rc" -eq 0 ] && cmp -s "$work/out" "$FIXTURES/hist-2node.expected"; then
	ok "hist -n 0: node 0 holds every allocation"
else
	not_ok "hist -n 0: node 0 holds every allocation (rc=$rc)"
fi
expect 0 "no THP allocation timed yet" "hist -n 1: nothing timed on node 1" hist -n 1
expect 1 "node 5 is not online" "hist -n 5 on a two-node machine" hist -n 5
run hist --json
if [ "$rc" -eq 0 ] && python3 - "$work/out" "$dbg/hist" "$dbg/stats" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))["histograms"]
lines = [l.split() for l in open(sys.argv[2]) if l.strip()]
bounds = [int(b) for b in lines[0][4:-1]] + [None]
rows = lines[1:]
assert [(h["node"], h["outcome"]) for h in doc] == [(int(r[0]), r[1]) for r in rows]
for h, r in zip(doc, rows):
    assert h["count"] == int(r[2]) and h["sum_ns"] == int(r[3]), h
    assert [b["count"] for b in h["buckets"]] == [int(v) for v in r[4:]]
    assert [b["lt_ns"] for b in h["buckets"]] == bounds
    assert [b["ge_ns"] for b in h["buckets"]] == [0] + bounds[:-1]
# The module's invariants, which the fixtures keep.
st = [l.split() for l in open(sys.argv[3]) if l.strip()]
col = {n: i for i, n in enumerate(st[0])}
for row in st[1:]:
    mine = [h for h in doc if h["node"] == int(row[0])]
    for h in mine:
        assert h["count"] == int(row[col["thp_" + h["outcome"]]])
    assert sum(h["sum_ns"] for h in mine) == int(row[col["alloc_ns"]])
local0 = doc[0]
assert (local0["p50_ns"], local0["p99_ns"], local0["max_ns"]) == \
    (2097152, 8388608, 33554432), local0
assert doc[-1]["p50_ns"] is None
EOF
then
	ok "hist --json holds the file's histograms, bounds and percentiles"
else
	not_ok "hist --json holds the file's histograms, bounds and percentiles (rc=$rc)"
fi
run hist --prometheus
cp "$work/out" "$work/hist.prom"
if [ "$rc" -eq 0 ] && python3 "$here/check_prometheus.py" "$work/out" &&
   grep -qx '# TYPE thpnuma_alloc_duration_seconds histogram' "$work/out" &&
   grep -qx 'thpnuma_alloc_duration_seconds_bucket{node="0",outcome="local",le="+Inf"} 100' "$work/out" &&
   grep -qx 'thpnuma_alloc_duration_seconds_count{node="1",outcome="fallback"} 0' "$work/out"; then
	ok "hist --prometheus is a valid histogram, empty ones included"
else
	not_ok "hist --prometheus is a valid histogram, empty ones included (rc=$rc)"
fi
# node_exporter's textfile collector reads both files into one scrape.
"$T" stat --prometheus > "$work/both.prom" && cat "$work/hist.prom" >> "$work/both.prom"
if [ -n "$promtool" ]; then
	# orders.prom: stat --prometheus with the orders table.
	for f in hist both orders; do
		if "$promtool" check metrics < "$work/$f.prom" > "$work/promtool" 2>&1; then
			ok "promtool check metrics accepts $f.prom"
		else
			not_ok "promtool check metrics accepts $f.prom"
			sed 's/^/# /' "$work/promtool"
		fi
	done
else
	ok "promtool check metrics of hist and orders # SKIP no promtool"
fi
run hist --prometheus -o "$prom/hist.prom"
if [ "$rc" -eq 0 ] && cmp -s "$prom/hist.prom" "$work/hist.prom"; then
	ok "hist -o writes the file"
else
	not_ok "hist -o writes the file (rc=$rc)"
fi
for f in hist-bad-bound hist-bad-more-buckets; do
	put_raw "$FIXTURES/$f.txt" hist
	expect 1 "cannot parse $nodes/node*/hist: line 1: column" "hist refuses $f" hist
done
expect 1 "the module's histogram layout is not thpnumactl's" \
	"hist names a layout mismatch as such" hist
put_raw "$FIXTURES/hist-bad-count.txt" hist
expect 1 "count 3 is not the sum of the buckets" "hist refuses a wrong count" hist
rm "$dbg/hist" "$nodes"/node*/hist
expect 1 "cannot read $nodes/node0/hist" "hist on a module without the hist file" hist
put_table "$FIXTURES/hist-2node.txt" hist

# ---- watch ----------------------------------------------------------------
put_table "$FIXTURES/good-2node.txt" stats
expect 2 "invalid interval 'x'" "watch x" watch x
expect 2 "invalid count '0'" "watch 1 0" watch 1 0
expect 2 "unexpected argument 'more'" "watch 1 2 more" watch 1 2 more
expect 2 "the interval is given twice" "watch -i 1 2" watch -i 1 2
expect 2 "the count is given twice" "watch -c 2 1 3" watch -c 2 1 3
run watch -i 0.1 -c 2
if [ "$rc" -eq 0 ] && [ "$(grep -c ' all ' "$work/out")" -eq 2 ] &&
   head -1 "$work/out" | grep -q "^time  *node  *local"; then
	ok "watch -c 2 prints a header and two reports"
else
	not_ok "watch -c 2 prints a header and two reports (rc=$rc)"
fi
# vmstat's form: the first report since load, then per-interval deltas.
sed 's/^0 100 5 /0 150 5 /' "$FIXTURES/good-2node.txt" > "$work/stats.more"
"$T" watch 1 3 > "$work/out" 2> "$work/err" &
pid=$!
# The change lands after the first report, whole (a rename): a fixed
# sleep before it lost the race to all three reads on a loaded machine.
for i in $(seq 100); do
	grep -q ' all ' "$work/out" && break
	sleep 0.05
done
put_table "$work/stats.more" stats
wait $pid
rc=$?
rows=$(awk '$2 == "0" { print $3, $4, $5, $6 }' "$work/out" | tr '\n' ,)
case $rows in
"100 5 2 7,50 0 0 0,0 0 0 0," | "100 5 2 7,0 0 0 0,50 0 0 0,") seen=1 ;;
*) seen=0 ;;
esac
if [ "$rc" -eq 0 ] && [ "$seen" -eq 1 ] &&
   [ "$(grep -c '^time' "$work/out")" -eq 1 ]; then
	ok "watch 1 3: totals since load, then what changed per interval"
else
	not_ok "watch 1 3: totals since load, then per interval (rc=$rc, node 0 rows '$rows')"
	sed 's/^/# /' "$work/out" "$work/err"
fi
put_table "$FIXTURES/good-2node.txt" stats
# Not a terminal: like vmstat, a header every 22 rows (3 rows a report).
run watch 0.1 9
if [ "$rc" -eq 0 ] && [ "$(grep -c '^time' "$work/out")" -eq 2 ] &&
   [ "$(grep -c ' all ' "$work/out")" -eq 9 ]; then
	ok "watch repeats the header"
else
	not_ok "watch repeats the header (rc=$rc)"
fi
run watch --one-header 0.1 9
if [ "$rc" -eq 0 ] && [ "$(grep -c '^time' "$work/out")" -eq 1 ]; then
	ok "watch --one-header prints the header once"
else
	not_ok "watch --one-header prints the header once (rc=$rc)"
fi
# -n is --node wherever it exists (numastat's meaning), nothing else.
expect 2 "unknown option '-n'" "watch -n is a usage error" watch -n 0.1 1
expect 2 "unknown option '-n'" "load -n is a usage error" load -n
run stat --help
if grep -q -- "-n, --node" "$work/out"; then
	ok "stat -n is --node"
else
	not_ok "stat -n is --node"
fi
for c in watch load; do
	run $c --help
	if [ "$rc" -eq 0 ] && ! grep -qE -- "(^| )-n[ ,\]]" "$work/out"; then
		ok "$c --help lists no -n"
	else
		not_ok "$c --help lists no -n"
		grep -E -- "-n" "$work/out" | sed 's/^/# /'
	fi
done
"$T" watch 5 > "$work/out" 2> "$work/err" &
pid=$!
# Signal only after the first report: its handler is in place by then.
# Until then the SIGINT a non-interactive shell's background job starts
# with ignored would be lost, and watch would run on.
for i in $(seq 100); do
	grep -q "^time" "$work/out" && break
	sleep 0.1
done
kill -INT $pid
( sleep 10; kill -KILL $pid 2> /dev/null ) &
guard=$!
wait $pid
rc=$?
kill $guard 2> /dev/null
if [ "$rc" -eq 0 ] && grep -q "^time" "$work/out" && [ ! -s "$work/err" ]; then
	ok "watch ends cleanly on SIGINT"
else
	not_ok "watch ends cleanly on SIGINT (rc=$rc)"
fi

# ---- status -----------------------------------------------------------------
run status
if [ "$rc" -eq 0 ] &&
   grep -q "^module: *loaded (live)" "$work/out" &&
   grep -q "^version: *0.1.0" "$work/out" &&
   grep -q "^built for: *6.1.0-57-amd64" "$work/out" &&
   grep -q "^hooked symbol: *vma_alloc_folio" "$work/out" &&
   grep -q "^probe missed: *0$" "$work/out" &&
   grep -q "^policy: *strict-local" "$work/out" &&
   grep -q "^zone_reclaim: *3 (reclaim,write)" "$work/out" &&
   grep -q "^scope: *all" "$work/out" &&
   grep -q "^coverage: *all" "$work/out" &&
   grep -q "^THP enabled: *madvise" "$work/out" &&
   grep -q "^THP defrag: *madvise" "$work/out" &&
   grep -q "^lockdown: *none" "$work/out" &&
   grep -q "^nodes online: *0-1" "$work/out" &&
   grep -q "^node 0 free: *512.0 MiB" "$work/out" &&
   grep -q "^node 1 free: *256.0 MiB" "$work/out"; then
	ok "status shows module, settings, THP mode and node memory"
else
	not_ok "status shows module, settings, THP mode and node memory"
	sed 's/^/# /' "$work/out"
fi

# status: budget_us, and each node's budget state when it matters.
run status
if [ "$rc" -eq 0 ] && grep -q "^budget_us: *1000$" "$work/out" &&
   ! grep -q "^budget node" "$work/out"; then
	ok "status shows budget_us; no budget lines under strict-local while every node is within"
else
	not_ok "status shows budget_us, no budget lines (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
echo budget > "$par/policy"
run status
if [ "$rc" -eq 0 ] && [ ! -s "$work/err" ] &&
   grep -qx "budget node 0:   estimate 180 us, within the 1 ms budget" "$work/out" &&
   grep -qx "budget node 1:   estimate 0 ns, within the 1 ms budget" "$work/out" &&
   [ "$(grep -n '^budget node 0' "$work/out" | cut -d: -f1)" -gt \
     "$(grep -n '^node 1 free' "$work/out" | cut -d: -f1)" ]; then
	ok "status under budget: one line per online node, after the node memory"
else
	not_ok "status under budget: one line per online node (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
cp "$work/budget.tree" "$work/budget.saved"
printf 'node estimate_ns budget_ns probe_period since_probe state\n0 1234567 1000000 8 3 over\n1 999999 1000000 2 0 within\n' \
	> "$work/budget.tree"
put_table "$work/budget.tree" budget
echo strict-local > "$par/policy"
run status
if [ "$rc" -eq 0 ] &&
   grep -qx "budget node 0:   estimate 1.23 ms, over the 1 ms budget, probe every 8 faults" "$work/out" &&
   grep -qx "budget node 1:   estimate 1 ms, within the 1 ms budget" "$work/out"; then
	ok "status under strict-local with a node over (an override's budget): the budget lines"
else
	not_ok "status with a node over its budget (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
# A node gone offline has only the header; a newer module's extra column
# is skipped.
printf 'node estimate_ns budget_ns probe_period since_probe state extra\n0 2500000000 500000 128 17 over x\n' \
	> "$work/budget.tree"
put_table "$work/budget.tree" budget
run status
if [ "$rc" -eq 0 ] &&
   grep -qx "budget node 0:   estimate 2.5 s, over the 500 us budget, probe every 128 faults" "$work/out" &&
   [ "$(grep -c '^budget node' "$work/out")" -eq 1 ]; then
	ok "status: a node without a row gets no line, extra columns are skipped"
else
	not_ok "status: a node without a row, extra columns (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
for pair in "0 5 1000000 2 0 maybe|line 2: state 'maybe' is not within or over" \
	"0 x 1000000 2 0 over|line 2: estimate_ns value \"x\" is not a number" \
	"1 5 1000000 2 0 within|line 2 is node 1's" \
	"0 5 1000000|line 2 has no probe_period"; do
	row=${pair%%|*} msg=${pair#*|}
	printf 'node estimate_ns budget_ns probe_period since_probe state\n%s\n' "$row" > "$nodes/node0/budget"
	run status
	if [ "$rc" -eq 1 ] && grep -qF "cannot parse $nodes/node0/budget: $msg" "$work/err" &&
	   grep -q "^node 1 free" "$work/out" && ! grep -q "^budget node" "$work/out"; then
		ok "status refuses a budget row '$row', after the rest of the status"
	else
		not_ok "status refuses a budget row '$row' (rc=$rc, want '$msg')"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
done
printf 'node estimate_ns state\n' > "$nodes/node0/budget"
run status
if [ "$rc" -eq 1 ] && grep -qF "cannot parse $nodes/node0/budget: " "$work/err" &&
   grep -qF "budget_ns" "$work/err"; then
	ok "status refuses a budget header without budget_ns"
else
	not_ok "status refuses a budget header without budget_ns (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
rm "$nodes/node0/budget" "$nodes/node1/budget"
echo budget > "$par/policy"
run status
if [ "$rc" -eq 0 ] && [ ! -s "$work/err" ] && ! grep -q "^budget node" "$work/out"; then
	ok "status of a module without the budget files: no budget lines, no error"
else
	not_ok "status of a module without the budget files (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
echo strict-local > "$par/policy"
put_table "$work/budget.saved" budget
cp "$work/budget.saved" "$work/budget.tree"

# status: unmatched_thp_calls, hooked THP calls from no known fault path.
run status
if [ "$rc" -eq 0 ] && grep -q "^unmatched calls: *0$" "$work/out" &&
   [ ! -s "$work/err" ]; then
	ok "status shows unmatched_thp_calls 0 without a warning"
else
	not_ok "status shows unmatched_thp_calls 0 without a warning (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
cp "$ctl/version" "$work/version.saved"
sed -i 's/^unmatched_thp_calls .*/unmatched_thp_calls 17/' "$ctl/version"
run status
if [ "$rc" -eq 0 ] && grep -q "^unmatched calls: *17$" "$work/out" &&
   grep -q "warning: 17 THP allocations bypassed the policy" "$work/err" &&
   grep -q "livepatch" "$work/err" && grep -q "dmesg" "$work/err"; then
	ok "status warns when THP allocations bypassed the policy"
else
	not_ok "status warns when THP allocations bypassed the policy (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
for bad in x -1 "1 2" 18446744073709551616 ""; do
	sed "s/^unmatched_thp_calls .*/unmatched_thp_calls $bad/" "$work/version.saved" \
		> "$ctl/version"
	run status
	if [ "$rc" -eq 1 ] && grep -qF "cannot parse $ctl/version: unmatched_thp_calls" "$work/err"; then
		ok "status refuses unmatched_thp_calls '$bad'"
	else
		not_ok "status refuses unmatched_thp_calls '$bad' (rc=$rc)"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
done
grep -v '^unmatched_thp_calls' "$work/version.saved" > "$ctl/version"
run status
if [ "$rc" -eq 0 ] && ! grep -q "unmatched" "$work/out" "$work/err" &&
   grep -q "^probe missed: *0$" "$work/out"; then
	ok "status of a module without unmatched_thp_calls: no such line"
else
	not_ok "status of a module without unmatched_thp_calls: no such line (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
cp "$work/version.saved" "$ctl/version"

# ---- per-process overrides -----------------------------------------------
expect 2 "missing PID" "task without a PID" task
expect 2 "invalid PID 'abc'" "task abc" task abc
expect 2 "invalid PID '0'" "task 0" task 0
expect 2 "invalid PID '4194305'" "task beyond PID_MAX_LIMIT" task 4194305
expect 2 "invalid PID '-5'" "task -5" task -- -5
expect 2 "invalid policy 'bogus'" "task 1 bogus" task 1 bogus
expect 2 "unexpected argument 'extra'" "task with three arguments" task 1 kernel extra
expect 2 "--zone-reclaim needs a POLICY" "task -z without a policy" task -z 3 1 default
expect 2 "invalid zone reclaim mode '9'" "task -z 9" task -z 9 1 kernel
expect 2 "--budget-us needs a POLICY" "task -b without a policy" task -b 250 1
expect 2 "--budget-us needs a POLICY" "task -b with default" task --budget-us 250 1 default
# The global budget-us command's check, word for word.
for bad in 0 01 1000001 -5 +5 x ""; do
	expect 2 "invalid budget_us '$bad' (1-1000000 microseconds, written without sign or leading zeros)" \
		"task -b '$bad'" task -b "$bad" 1 budget
done
expect 2 "option '-b' needs an argument" "task -b without a value" task 1 budget -b
# compare: bad input is refused before any cgroup is made.
expect 2 "missing command to run" "compare without a command" compare --rounds 2
expect 2 "invalid policy 'nope'" "compare --policies kernel,nope" compare -p kernel,nope -- true
expect 2 "at least two policies" "compare with one policy" compare -p kernel -- true
expect 2 "'kernel' is named twice" "compare with a policy twice" compare -p kernel,kernel -- true
expect 2 "zone_reclaim '9'" "compare with zone_reclaim 9" compare -p kernel,local-then-remote:9 -- true
# budget and budget:ZR are policies to compare: accepted, then named twice.
expect 2 "'budget' is named twice" "compare takes budget" compare -p budget,budget -- true
expect 2 "'budget:3' is named twice" "compare takes budget:ZONE_RECLAIM" \
	compare -p budget:3,budget:3 -- true
expect 2 "zone_reclaim '8'" "compare with budget:8" compare -p kernel,budget:8 -- true
expect 2 "--rounds: '0'" "compare --rounds 0" compare --rounds 0 -- true
expect 2 "--rounds: '1001'" "compare --rounds 1001" compare --rounds 1001 -- true
expect 2 "--better needs --metric" "compare --better without --metric" compare --better higher -- true
expect 2 "--better: 'up'" "compare --better up" compare -m x --better up -- true
expect 2 "--metric: '('" "compare with a bad regex" compare -m '(' -- true
expect 2 "--confidence: '100'" "compare --confidence 100" compare --confidence 100 -- true
expect 2 "--policy is required" "run without --policy" run -- true
expect 2 "missing command to run" "run without a command" run --policy kernel
expect 2 "invalid policy 'nope'" "run --policy nope" run --policy nope -- true
expect 2 "invalid zone reclaim mode 'x'" "run -z x" run -p kernel -z x -- true
expect 2 "option '-u' needs an argument" "run -u without a user" run -p kernel -u
expect 2 "option '--user' needs an argument" "run --user without a user" run -p kernel --user
expect 2 "unknown user 'no-such-user-x'" "run --user with an unknown name" \
	run -p kernel --user no-such-user-x -- true
expect 2 "unknown user '4000000000'" "run --user with an unknown uid" \
	run -p kernel -u 4000000000 -- true
expect 2 "--policy is required" "run --user without --policy" run -u root -- true
expect 0 "     412  thp touch         strict-local        global" \
	"tasks lists overrides, command names unescaped" tasks
run tasks
if [ "$(sed -n 2p "$work/out" | awk '{print $1}')" = 77 ]; then
	ok "tasks sorts by PID"
else
	not_ok "tasks sorts by PID"
fi
# The read-only twin, which lockdown leaves readable, is the one read.
printf '9 sh kernel - -\n' > "$dbg/overrides"
run tasks
if [ "$rc" -eq 0 ] && [ "$(wc -l < "$work/out")" -eq 2 ] &&
   grep -qF "       9  sh                kernel              global" "$work/out"; then
	ok "tasks reads the read-only overrides file, not tasks"
else
	not_ok "tasks reads the read-only overrides file, not tasks (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
rm "$dbg/overrides"
expect 1 "cannot read $dbg/overrides: No such file or directory" \
	"tasks without the overrides file fails" tasks
cp "$dbg/tasks" "$dbg/overrides"
run tasks --json
if [ "$rc" -eq 0 ] && python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["tasks"]
assert [x["pid"] for x in t] == [77, 412]
assert t[1]["comm"] == "thp touch" and t[1]["zone_reclaim"] is None
assert t[0]["policy"] == "local-then-remote" and t[0]["zone_reclaim"] == 3
assert t[0]["budget_us"] is None and t[1]["budget_us"] is None
' "$work/out"; then
	ok "tasks --json"
else
	not_ok "tasks --json (rc=$rc)"
	sed 's/^/# /' "$work/out"
fi
expect 0 "77  db                local-then-remote   3" "task PID shows its override" task 77
expect 0 "$$ default" "task PID without an override" task $$
expect 1 "no process with PID 4194303" "task for a missing process" task 4194303
cp "$dbg/tasks" "$work/tasks.saved"
expect 0 "412 kernel" "task PID POLICY" task 412 kernel
expect_file "$ctl/tasks" "412 kernel" "task writes PID POLICY to /sys/kernel/thpnuma/tasks"
expect_file "$dbg/tasks" "$(cat "$work/tasks.saved")" "task leaves debugfs' tasks alone"
: > "$ctl/tasks"
expect 0 "412 local-then-remote" "task -z" task -z reclaim,swap 412 local-then-remote
expect_file "$ctl/tasks" "412 local-then-remote 5" "task -z writes the bits"
: > "$ctl/tasks"
expect 0 "412 budget" "task -b" task -b 500 412 budget
expect_file "$ctl/tasks" "412 budget - 500" "task -b alone writes '-' for zone_reclaim"
: > "$ctl/tasks"
expect 0 "412 budget" "task -z -b" task --zone-reclaim 3 --budget-us=1 412 budget
expect_file "$ctl/tasks" "412 budget 3 1" "task -z -b writes both"
: > "$ctl/tasks"
# budget_us in the listings: a fifth column, "global" (JSON null) for "-".
cp "$dbg/overrides" "$work/overrides.saved"
printf '412 thp\\040touch budget - 1000000\n77 db budget 3 250\n9 sh strict-local - -\n' \
	> "$dbg/overrides"
run tasks
if [ "$rc" -eq 0 ] && [ "$(cat "$work/out")" = "     PID  COMMAND           POLICY              ZONE_RECLAIM  BUDGET_US
       9  sh                strict-local        global        global
      77  db                budget              3             250
     412  thp touch         budget              global        1000000" ]; then
	ok "tasks shows each override's budget_us"
else
	not_ok "tasks shows each override's budget_us (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
expect 0 "      77  db                budget              3             250" \
	"task PID shows its budget_us" task 77
run tasks --json
if [ "$rc" -eq 0 ] && python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["tasks"]
assert [(x["pid"], x["zone_reclaim"], x["budget_us"]) for x in t] == \
	[(9, None, None), (77, 3, 250), (412, None, 1000000)], t
' "$work/out"; then
	ok "tasks --json: budget_us a number, or null when global"
else
	not_ok "tasks --json: budget_us a number, or null when global (rc=$rc)"
	sed 's/^/# /' "$work/out"
fi
# Module and thpnumactl ship together: an older module's four columns,
# or any other count, are refused rather than guessed at.
for bad in "9 sh kernel -" "9 sh kernel" "9 sh kernel - - -"; do
	echo "$bad" > "$dbg/overrides"
	expect 1 "cannot parse $dbg/overrides: line 1: expected PID COMMAND POLICY ZONE_RECLAIM BUDGET_US" \
		"tasks refuses the row '$bad'" tasks
done
for bad in 0 1000001 x -1 global 4294967296; do
	echo "9 sh budget - $bad" > "$dbg/overrides"
	expect 1 "cannot parse $dbg/overrides: line 1: bad budget_us '$bad'" \
		"tasks refuses budget_us '$bad'" tasks
done
cp "$work/overrides.saved" "$dbg/overrides"
expect 0 "412 default" "task PID default" task 412 default
expect_file "$ctl/tasks" "412 default" "task PID default writes default"
mv "$ctl/tasks" "$work/ctl-tasks.saved"
expect 1 "cannot write $ctl/tasks: No such file or directory" \
	"task PID POLICY without the sysfs file fails" task 412 kernel
expect_file "$dbg/tasks" "$(cat "$work/tasks.saved")" \
	"task PID POLICY without the sysfs file leaves debugfs' tasks alone"
mv "$work/ctl-tasks.saved" "$ctl/tasks"
# ---- cgroup, cgroups: /sys/kernel/thpnuma/cgroups; directories found
# through a mountinfo of our own, cgroup2 at cg/ and a v1 hierarchy at v1/.
real=$(cd "$work" && pwd -P)
mkdir -p "$real/cg/system.slice/db.service" "$real/cg/kubepods.slice/pod1.slice/ctr.scope" \
	"$real/v1/job"
cat > "$work/mountinfo" <<EOF
22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw
30 22 0:27 / $real/cg rw,nosuid shared:9 - cgroup2 cgroup2 rw
31 22 0:28 / $real/v1 rw,relatime shared:10 - cgroup cgroup rw,name=test
EOF
export THPNUMACTL_MOUNTINFO="$work/mountinfo"
expect 0 "/system.slice/db.service strict-local" "cgroup PATH POLICY" \
	cgroup /system.slice/db.service strict-local
expect_file "$ctl/cgroups" "/system.slice/db.service strict-local" \
	"cgroup writes PATH POLICY to /sys/kernel/thpnuma/cgroups"
: > "$ctl/cgroups"
expect 0 "/kubepods.slice/pod1.slice local-then-remote" "cgroup DIRECTORY -z" \
	cgroup -z reclaim "$real/cg/kubepods.slice/pod1.slice" local-then-remote
expect_file "$ctl/cgroups" "/kubepods.slice/pod1.slice local-then-remote 1" \
	"cgroup DIRECTORY writes its cgroup path and the bits"
: > "$ctl/cgroups"
expect 0 "/ kernel" "cgroup on the cgroup2 mount itself" cgroup "$real/cg/" kernel
expect_file "$ctl/cgroups" "/ kernel" "the mount is the root cgroup"
: > "$ctl/cgroups"
expect 0 "/system.slice/db.service default" "cgroup PATH default" \
	cgroup /system.slice/db.service default
expect_file "$ctl/cgroups" "/system.slice/db.service default" "cgroup PATH default writes default"
: > "$ctl/cgroups"
expect 1 "is on a cgroup v1 hierarchy" "cgroup on a v1 hierarchy is refused" \
	cgroup "$real/v1/job" strict-local
expect 1 "no cgroup /no/such.slice on the cgroup v2 hierarchy" "cgroup PATH that is no cgroup" \
	cgroup /no/such.slice strict-local
expect_file "$ctl/cgroups" "" "refused cgroup writes write nothing"
expect 2 "is not a cgroup v2 path" "cgroup relative PATH" cgroup relative kernel
expect 2 "missing PATH" "cgroup without a PATH" cgroup
expect 2 "invalid policy 'bogus'" "cgroup PATH bogus" cgroup /system.slice bogus
expect 2 "--zone-reclaim needs a POLICY" "cgroup -z without a policy" cgroup -z 1 /system.slice
expect 2 "--budget-us needs a POLICY" "cgroup -b without a policy" cgroup -b 250 /system.slice
expect 2 "--budget-us needs a POLICY" "cgroup -b with default" cgroup -b 250 /system.slice default
expect 2 "invalid budget_us '0' (1-1000000 microseconds" "cgroup -b 0" cgroup -b 0 /system.slice budget
expect 2 "option '--budget-us' needs an argument" "cgroup --budget-us without a value" \
	cgroup /system.slice budget --budget-us
expect 2 "unexpected argument 'extra'" "cgroup with three arguments" cgroup / kernel extra
expect_file "$ctl/cgroups" "" "refused cgroup -b writes write nothing"
expect_note "zone_reclaim applies only under local-then-remote and budget; this setting's policy is strict-local" \
	"cgroup -z with policy strict-local gets a note" cgroup -z 3 /system.slice strict-local
: > "$ctl/cgroups"
expect 0 "/system.slice/db.service budget" "cgroup -b" \
	cgroup -b 250 /system.slice/db.service budget
expect_file "$ctl/cgroups" "/system.slice/db.service budget - 250" \
	"cgroup -b alone writes '-' for zone_reclaim and the budget"
: > "$ctl/cgroups"
expect_no_note "cgroup -z -b with budget: no note" \
	cgroup --zone-reclaim=reclaim --budget-us=1000000 /system.slice/db.service budget
expect_file "$ctl/cgroups" "/system.slice/db.service budget 1 1000000" \
	"cgroup -z -b writes both"
: > "$ctl/cgroups"
expect_note "budget_us applies only under budget; this setting's policy is local-then-remote" \
	"cgroup -b with policy local-then-remote gets a note" \
	cgroup -b 250 /system.slice/db.service local-then-remote
: > "$ctl/cgroups"
printf '/system.slice/db.service local-then-remote 3 -\n/kubepods.slice/pod1.slice budget - 250\n' \
	> "$ctl/cgroups"
expect 0 "/kubepods.slice/pod1.slice/ctr.scope budget zone_reclaim=global budget_us=250 (from /kubepods.slice/pod1.slice)" \
	"cgroup PATH shows an ancestor's setting" cgroup /kubepods.slice/pod1.slice/ctr.scope
expect 0 "/system.slice/db.service local-then-remote zone_reclaim=3 budget_us=global" \
	"cgroup DIRECTORY shows its own setting" cgroup "$real/cg/system.slice/db.service"
expect 0 "/system.slice default" "cgroup PATH without a setting" cgroup /system.slice
run cgroups
if [ "$rc" -eq 0 ] && [ "$(cat "$work/out")" = "POLICY              ZONE_RECLAIM  BUDGET_US  CGROUP
budget              global        250        /kubepods.slice/pod1.slice
local-then-remote   3             global     /system.slice/db.service" ]; then
	ok "cgroups lists the settings, budget_us too"
else
	not_ok "cgroups lists the settings, budget_us too (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
run cgroups --json
if [ "$rc" -eq 0 ] && python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["cgroups"]
assert [x["path"] for x in c] == ["/kubepods.slice/pod1.slice", "/system.slice/db.service"]
assert c[0]["zone_reclaim"] is None and c[1]["zone_reclaim"] == 3
assert c[0]["budget_us"] == 250 and c[1]["budget_us"] is None
assert c[1]["policy"] == "local-then-remote" and c[0]["policy"] == "budget"
' "$work/out"; then
	ok "cgroups --json, sorted by path, budget_us null when global"
else
	not_ok "cgroups --json, sorted by path, budget_us null when global (rc=$rc)"
	sed 's/^/# /' "$work/out"
fi
# Module and thpnumactl ship together: a listing of another layout (an
# older module's three columns) is refused, not guessed at.
for bad in "/system.slice kernel" "/system.slice kernel -" "/system.slice kernel - - -"; do
	echo "$bad" > "$ctl/cgroups"
	expect 1 "cannot parse $ctl/cgroups: line 1: expected PATH POLICY ZONE_RECLAIM BUDGET_US" \
		"cgroups refuses the row '$bad'" cgroups
done
for bad in "0" "1000001" "x" "-1" "global"; do
	echo "/system.slice budget - $bad" > "$ctl/cgroups"
	expect 1 "cannot parse $ctl/cgroups: line 1: bad budget_us '$bad'" \
		"cgroups refuses budget_us '$bad'" cgroups
done
echo "/system.slice budget 8 -" > "$ctl/cgroups"
expect 1 "cannot parse $ctl/cgroups: line 1: bad zone_reclaim '8'" \
	"cgroups refuses zone_reclaim 8" cgroups
mv "$ctl/cgroups" "$work/ctl-cgroups.saved"
expect 1 "cannot write $ctl/cgroups: No such file or directory" \
	"cgroup PATH POLICY without the sysfs file fails" cgroup / kernel
mv "$work/ctl-cgroups.saved" "$ctl/cgroups"
: > "$ctl/cgroups"
unset THPNUMACTL_MOUNTINFO

# ---- cgroups --stat: cgroup_stats and cgroup_hist, world-readable -----------
# cg_hist_row PATH OUTCOME N NS BUCKET: N allocations of NS ns in all,
# all in bucket number BUCKET.
cg_hist_header() {
	printf 'cgroup outcome count sum_ns'
	b=0
	while [ $b -lt 25 ]; do printf ' %s' $((1 << (10 + b))); b=$((b + 1)); done
	printf ' inf\n'
}
cg_hist_row() {
	printf '%s %s %s %s' "$1" "$2" "$3" "$4"
	b=0
	while [ $b -lt 26 ]; do
		if [ $b = "$5" ]; then printf ' %s' "$3"; else printf ' 0'; fi
		b=$((b + 1))
	done
	printf '\n'
}
{
	echo "cgroup thp_local thp_remote thp_fallback passthrough alloc_ns"
	echo "/system.slice/db.service 6 2 0 1 4000000"
	echo "/kubepods.slice/pod1.slice 0 0 3 0 900000"
} > "$ctl/cgroup_stats"
{
	cg_hist_header
	# db.service: 6 local in [256K, 512K), 2 remote in [1M, 2M)
	cg_hist_row /system.slice/db.service local 6 2000000 9
	cg_hist_row /system.slice/db.service remote 2 2000000 11
	cg_hist_row /system.slice/db.service fallback 0 0 0
	cg_hist_row /kubepods.slice/pod1.slice local 0 0 0
	cg_hist_row /kubepods.slice/pod1.slice remote 0 0 0
	cg_hist_row /kubepods.slice/pod1.slice fallback 3 900000 9
} > "$ctl/cgroup_hist"
run cgroups --stat
if [ "$rc" -eq 0 ] &&
   [ "$(sed -n 1p "$work/out" | tr -s ' ')" = " thp_local thp_remote thp_fallback passthrough remote% alloc_p50 alloc_p99 cgroup" ] &&
   [ "$(sed -n 2p "$work/out" | tr -s ' ')" = " 0 0 3 0 - < 512K ns < 512K ns /kubepods.slice/pod1.slice" ] &&
   [ "$(sed -n 3p "$work/out" | tr -s ' ')" = " 6 2 0 1 25.0 < 512K ns < 2M ns /system.slice/db.service" ]; then
	ok "cgroups --stat: counters, remote share and latency bounds per cgroup, by path"
else
	not_ok "cgroups --stat (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
run cgroups --stat --json
if [ "$rc" -eq 0 ] && python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["cgroups"]
assert [x["path"] for x in c] == ["/kubepods.slice/pod1.slice", "/system.slice/db.service"], c
d = c[1]
assert (d["thp_local"], d["thp_remote"], d["thp_fallback"], d["passthrough"], d["alloc_ns"]) == (6, 2, 0, 1, 4000000)
h = {x["outcome"]: x for x in d["histograms"]}
assert h["local"]["count"] == 6 and h["local"]["p99_ns"] == 524288, h["local"]
assert h["remote"]["sum_ns"] == 2000000 and h["fallback"]["p50_ns"] is None
' "$work/out"; then
	ok "cgroups --stat --json: every counter and histogram per cgroup"
else
	not_ok "cgroups --stat --json (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
run cgroups --stat --prometheus
if [ "$rc" -eq 0 ] && python3 "$here/check_prometheus.py" "$work/out" &&
   grep -qxF 'thpnuma_cgroup_thp_remote_total{cgroup="/system.slice/db.service"} 2' "$work/out" &&
   grep -qxF 'thpnuma_cgroup_alloc_seconds_total{cgroup="/system.slice/db.service"} 0.004000000' "$work/out" &&
   grep -qxF 'thpnuma_cgroup_alloc_duration_seconds_count{cgroup="/kubepods.slice/pod1.slice",outcome="fallback"} 3' "$work/out"; then
	ok "cgroups --stat --prometheus: valid, labelled by cgroup"
else
	not_ok "cgroups --stat --prometheus (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
run cgroups --stat --prometheus -o "$work/cg.prom"
if [ "$rc" -eq 0 ] && [ ! -s "$work/out" ] && python3 "$here/check_prometheus.py" "$work/cg.prom" &&
   [ "$(stat -c %a "$work/cg.prom")" = 644 ]; then
	ok "cgroups --stat -o writes the file, mode 0644"
else
	not_ok "cgroups --stat -o (rc=$rc)"
fi
expect 2 "--node does not apply" "cgroups --stat -n is refused" cgroups --stat -n 0
expect 2 "unknown option '--prometheus'" "cgroups --prometheus without --stat" cgroups --prometheus
# A setting removed between the two reads: its row has no histograms.
cg_hist_header > "$ctl/cgroup_hist"
cg_hist_row /system.slice/db.service local 6 2000000 9 >> "$ctl/cgroup_hist"
cg_hist_row /system.slice/db.service remote 2 2000000 11 >> "$ctl/cgroup_hist"
cg_hist_row /system.slice/db.service fallback 0 0 0 >> "$ctl/cgroup_hist"
run cgroups --stat
if [ "$rc" -eq 0 ] && [ "$(wc -l < "$work/out")" = 2 ] && grep -q "db.service" "$work/out"; then
	ok "cgroups --stat leaves out a cgroup missing from the histograms"
else
	not_ok "cgroups --stat with a cgroup missing from the histograms (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
cg_hist_row /system.slice/db.service local 5 2000000 9 > "$work/bad-row"
sed -i "2s|.*|$(cat "$work/bad-row")|" "$ctl/cgroup_hist"
sed -i '2s/ 5 2000000/ 6 2000000/' "$ctl/cgroup_hist"
expect 1 "cgroup_hist line 2: count 6 is not the sum of the buckets (5)" \
	"a histogram whose count is not its buckets' sum is refused" cgroups --stat
sed -i 's/^cgroup thp_local/cgroup thp_locale/' "$ctl/cgroup_stats"
expect 1 "cgroup_stats line 1: not the header thpnumactl expects" \
	"cgroups --stat refuses another layout" cgroups --stat
rm "$ctl/cgroup_stats" "$ctl/cgroup_hist"

# run: the override is on thpnumactl's PID, which exec hands to COMMAND.
: > "$ctl/tasks"
run run --policy strict-local -z 1 -- sh -c 'echo $$'
if [ "$rc" -eq 0 ] && [ "$(cat "$ctl/tasks")" = "$(cat "$work/out") strict-local 1" ]; then
	ok "run sets the override on the PID that the command runs as"
else
	not_ok "run sets the override on the PID that the command runs as (rc=$rc, file '$(cat "$ctl/tasks")', pid '$(cat "$work/out")')"
fi
: > "$ctl/tasks"
run run --policy budget -b 300 -- sh -c 'echo $$'
if [ "$rc" -eq 0 ] && [ "$(cat "$ctl/tasks")" = "$(cat "$work/out") budget - 300" ] &&
   [ ! -s "$work/err" ]; then
	ok "run -b sets the override's budget_us, zone_reclaim '-'"
else
	not_ok "run -b sets the override's budget_us (rc=$rc, file '$(cat "$ctl/tasks")', pid '$(cat "$work/out")')"
fi
: > "$ctl/tasks"
run run -p strict-local --budget-us 300 -z 2 -- true
if [ "$rc" -eq 0 ] && grep -q " strict-local 2 300$" "$ctl/tasks" &&
   grep -qF "note: zone_reclaim applies only under local-then-remote and budget; this override's policy is strict-local" "$work/err" &&
   grep -qF "note: budget_us applies only under budget; this override's policy is strict-local" "$work/err"; then
	ok "run -p strict-local -z -b: both written, both noted"
else
	not_ok "run -p strict-local -z -b: both written, both noted (rc=$rc, file '$(cat "$ctl/tasks")')"
	sed 's/^/# /' "$work/err"
fi
expect 2 "invalid budget_us '0'" "run -b 0" run -p budget -b 0 -- true
# run --user: the same PID, after initgroups, setgid and setuid.
if [ "$(id -u)" -eq 0 ] && id nobody > /dev/null 2>&1; then
	: > "$ctl/tasks"
	run run -p strict-local --user nobody -- sh -c 'echo $$ $(id -u) $(id -g) $(id -G)'
	set -- $(cat "$work/out")
	if [ "$rc" -eq 0 ] && [ "$(cat "$ctl/tasks")" = "$1 strict-local" ] &&
	   [ "$2" = "$(id -u nobody)" ] && [ "$3" = "$(id -g nobody)" ] &&
	   [ "$4" = "$(id -G nobody)" ]; then
		ok "run --user nobody: the command runs as nobody under the override"
	else
		not_ok "run --user nobody (rc=$rc, file '$(cat "$ctl/tasks")', out '$(cat "$work/out")')"
		sed 's/^/# /' "$work/err"
	fi
	run run -p kernel -u "$(id -u nobody)" -- id -un
	if [ "$rc" -eq 0 ] && [ "$(cat "$work/out")" = nobody ]; then
		ok "run -u UID"
	else
		not_ok "run -u UID (rc=$rc, out '$(cat "$work/out")')"
	fi
else
	n=$((n + 1))
	echo "ok $n - run --user # SKIP needs root and a nobody account"
fi
: > "$ctl/tasks"
run run --policy kernel sh -c 'exit 3'
if [ "$rc" -eq 3 ]; then
	ok "run returns the command's exit status"
else
	not_ok "run returns the command's exit status (rc=$rc)"
fi
expect 127 "cannot run '/nonexistent'" "run a missing command" run -p kernel -- /nonexistent
# ---- hostile command names ---------------------------------------------------
# A process names itself (prctl PR_SET_NAME). The module escapes every
# control character, space and backslash as \ooo; other bytes arrive raw.
printf '%s\n' \
	'5 a\011b\012\040\040\040\040\040\040\040666\040fake strict-local - -' \
	"$(printf '6 q"\\134x\\015\377\200\303( kernel 3 -')" \
	"$(printf '7 caf\303\251 kernel - -')" > "$dbg/overrides"
run tasks
if [ "$rc" -eq 0 ] && [ "$(wc -l < "$work/out")" -eq 4 ] &&
   [ "$(tr -d '\040-\176\n' < "$work/out" | wc -c)" -eq 0 ] &&
   grep -qF '       5  a\011b\012       666 fake  strict-local        global' "$work/out" &&
   grep -qF '       6  q"\134x\015\377\200\303(  kernel              3' "$work/out" &&
   grep -qF '       7  caf\303\251' "$work/out"; then
	ok "tasks escapes control and non-ASCII bytes: no forged rows"
else
	not_ok "tasks escapes control and non-ASCII bytes: no forged rows (rc=$rc)"
	sed 's/^/# /' "$work/out"
fi
run task 6
if [ "$rc" -eq 0 ] && [ "$(wc -l < "$work/out")" -eq 2 ] &&
   grep -qF '       6  q"\134x\015\377\200\303(  kernel' "$work/out"; then
	ok "task PID escapes the name too"
else
	not_ok "task PID escapes the name too (rc=$rc)"
	sed 's/^/# /' "$work/out"
fi
run tasks --json
if [ "$rc" -eq 0 ] && [ "$(tr -d '\040-\176\n' < "$work/out" | wc -c)" -eq 0 ] &&
   python3 -m json.tool "$work/out" > /dev/null && python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["tasks"]
assert t[0]["comm"] == "a\tb\n       666 fake", t[0]
assert t[1]["comm"] == "q\"\\x\r\ufffd\ufffd\ufffd(", t[1]
assert t[2]["comm"] == "caf\u00e9", t[2]
' "$work/out" && { ! command -v jq > /dev/null || jq -e . "$work/out" > /dev/null; }; then
	ok "tasks --json stays valid ASCII JSON (U+FFFD for malformed UTF-8)"
else
	not_ok "tasks --json stays valid ASCII JSON (rc=$rc)"
	sed 's/^/# /' "$work/out"
fi
# A raw control character is not the module's format.
printf '6 x\001y kernel 3 -\n' > "$dbg/overrides"
expect 1 "cannot parse $dbg/overrides: line 1: bad command name" \
	"tasks refuses a command name with a raw control character" tasks
cp "$work/tasks.saved" "$dbg/overrides"
expect 0 "by_override" "policies prints the table" policies
expect 0 "strict-local                    1" "policies shows the override count" policies
run policies --json
if [ "$rc" -eq 0 ] && python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["policies"]
assert p["strict-local"]["tasks"] == 1 and p["kernel"]["thp_local"] == 120
' "$work/out"; then
	ok "policies --json"
else
	not_ok "policies --json (rc=$rc)"
	sed 's/^/# /' "$work/out"
fi
echo "policy tasks thp_local" > "$ctl/policies"
expect 1 "cannot parse" "policies refuses a garbled file" policies
cp "$FIXTURES/policies.txt" "$ctl/policies"

# ---- nothing but ASCII, whatever the locale -------------------------------
nonascii=""
for args in "stat" "stat --json" "stat --prometheus" "hist" "hist --json" \
	"hist --prometheus" "status" "tasks" \
	"tasks --json" "policies" "watch 0.1 1" "--help"; do
	# shellcheck disable=SC2086
	LC_ALL=C "$T" $args > "$work/out" 2>&1
	[ "$(tr -d '\000-\177' < "$work/out" | wc -c)" -eq 0 ] || nonascii="$nonascii '$args'"
done
for c in $("$T" --help | awk '/^Commands:/ { on = 1; next } on && NF { print $1 }'); do
	LC_ALL=C "$T" "$c" --help > "$work/out" 2>&1
	[ "$(tr -d '\000-\177' < "$work/out" | wc -c)" -eq 0 ] || nonascii="$nonascii '$c --help'"
done
if [ -z "$nonascii" ]; then
	ok "output and --help texts are ASCII"
else
	not_ok "non-ASCII output from:$nonascii"
fi

# ---- module not loaded ----------------------------------------------------------
rm "$sys/module/thpnuma/initstate"
expect 3 "not loaded" "status says not loaded, exit 3" status
THPNUMACTL_DEBUGFS=$work/nowhere
expect 1 "thpnuma is not loaded; load it with: thpnumactl load" \
	"policy without the module says how to load it" policy
expect 1 "thpnuma is not loaded" "stat without the module" stat
expect 1 "thpnuma is not loaded" "hist without the module" hist
expect 1 "thpnuma is not loaded" "reset without the module" reset
expect 1 "thpnuma is not loaded" "task PID POLICY without the module" task 1 kernel
expect 1 "thpnuma is not loaded" "run without the module" run -p kernel -- true
THPNUMACTL_DEBUGFS=$dbg

# ---- load: modprobe.d options, then ours (dry runs, nothing is loaded) -------
# A private modprobe.d (THPNUMACTL_MODPROBE_D) and a stand-in .ko: a dry
# run resolves the options as modprobe would and stops before the kernel.
mp=$work/modprobe.d
mkdir -p "$mp"
: > "$work/thpnuma.ko"
ko=$work/thpnuma.ko
export THPNUMACTL_MODPROBE_D="$mp"
dry() { run load --dry-run --module "$ko" "$@"; }
expect_dry() {
	want=$1 name=$2
	shift 2
	dry "$@"
	if [ "$rc" -eq 0 ] && [ "$(cat "$work/out")" = "would load $ko with options: $want" ]; then
		ok "$name"
	else
		not_ok "$name (rc=$rc, want options '$want')"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
}
expect_dry "none" "load --dry-run: no modprobe.d options, none of ours"
expect_dry "policy=kernel zone_reclaim=5 scope=madvise" \
	"load --dry-run: our options alone" -p kernel -z reclaim,swap -s madvise
expect_dry "scope=madvise coverage=pmd+mthp" \
	"load --dry-run --coverage" --scope madvise --coverage pmd+mthp
expect_dry "coverage=pmd" "load --dry-run -c" -c pmd
expect_dry "policy=budget budget_us=500" "load --dry-run -p budget -b 500" -p budget -b 500
expect_dry "policy=budget zone_reclaim=3 budget_us=1000000" \
	"load --dry-run --budget-us=1000000 with budget's zone_reclaim" \
	--policy budget --zone-reclaim 3 --budget-us=1000000
printf '# thpnuma\noptions thpnuma policy=strict-local zone_reclaim=1\noptions other policy=kernel\n' \
	> "$mp/thpnuma.conf"
expect_dry "policy=strict-local zone_reclaim=1" "load --dry-run: modprobe.d options are applied"
expect_dry "zone_reclaim=1 policy=local-then-remote" \
	"load --dry-run: our --policy replaces modprobe.d's" --policy local-then-remote
echo "options thpnuma scope=madvise" > "$mp/zz-scope.conf"
expect_dry "policy=strict-local scope=madvise zone_reclaim=0" \
	"load --dry-run: every modprobe.d file, then ours" -z none
rm "$mp/zz-scope.conf"

# modprobe.d values are checked as the command line's are, and named by
# FILE:LINE; nothing is loaded (exit 2).
# expect_conf_error RC MESSAGE NAME ARGS...: nothing on stdout.
expect_conf_error() {
	want_rc=$1 msg=$2 name=$3
	shift 3
	dry "$@"
	if [ "$rc" -eq "$want_rc" ] && [ ! -s "$work/out" ] &&
	   grep -qxF "thpnumactl: $msg" "$work/err"; then
		ok "$name"
	else
		not_ok "$name (rc=$rc, want $want_rc and '$msg')"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
}
printf 'options thpnuma policy=strict_local\n' > "$mp/thpnuma.conf"
expect_conf_error 2 "$mp/thpnuma.conf:1: invalid policy 'strict_local' (valid: kernel, strict-local, local-then-remote, budget)" \
	"load --dry-run refuses a bad modprobe.d policy, naming FILE:LINE"
dry --policy strict-local
if [ "$rc" -eq 0 ] && [ "$(cat "$work/out")" = "would load $ko with options: policy=strict-local" ] &&
   grep -qF "$mp/thpnuma.conf:1: invalid policy 'strict_local'" "$work/err" &&
   grep -qF -- "--policy replaces it" "$work/err"; then
	ok "load --policy replaces a bad modprobe.d policy, with a note on the file"
else
	not_ok "load --policy replaces a bad modprobe.d policy (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
expect_conf_error 2 "$mp/thpnuma.conf:1: invalid policy 'strict_local' (valid: kernel, strict-local, local-then-remote, budget)" \
	"load --scope does not excuse a bad policy" --scope all
printf '# comment\n\noptions other policy=bad\noptions thpnuma scope=all \\\n\tzone_reclaim=reclaim coverage=pmd\n' \
	> "$mp/thpnuma.conf"
expect_conf_error 2 "$mp/thpnuma.conf:5: invalid zone_reclaim 'reclaim' (0-7: a sum of 1 reclaim, 2 write, 4 swap)" \
	"a continued line: the value's own line is named"
expect_dry "scope=all coverage=pmd zone_reclaim=5" \
	"--zone-reclaim replaces the bad value, the rest stays" -z 5
printf 'options thpnuma polcy=kernel\n' > "$mp/thpnuma.conf"
expect_conf_error 2 "$mp/thpnuma.conf:1: unknown parameter 'polcy' (thpnuma has policy, zone_reclaim, scope, coverage, budget_us, max_tasks, max_cgroups, budget_cut; the kernel would ignore it)" \
	"an unknown parameter is refused"
printf 'options thpnuma policy\n' > "$mp/thpnuma.conf"
expect_conf_error 2 "$mp/thpnuma.conf:1: policy has no value (policy=...)" \
	"a parameter without a value is refused"
for pair in "0|invalid max_tasks '0' (1-65536)" "65537|invalid max_tasks '65537' (1-65536)" \
	"1k|invalid max_tasks '1k' (1-65536)" "|invalid max_tasks '' (1-65536)"; do
	v=${pair%%|*} msg=${pair#*|}
	printf 'options thpnuma max_tasks=%s\n' "$v" > "$mp/thpnuma.conf"
	expect_conf_error 2 "$mp/thpnuma.conf:1: $msg" "max_tasks=$v is refused"
done
for pair in "0|invalid max_cgroups '0' (1-65536)" "65537|invalid max_cgroups '65537' (1-65536)" \
	"maybe|invalid budget_cut 'maybe' (Y, N, 1, 0, on or off)" \
	"o|invalid budget_cut 'o' (Y, N, 1, 0, on or off)"; do
	v=${pair%%|*} msg=${pair#*|} name=${msg#invalid }
	printf 'options thpnuma %s=%s\n' "${name%% *}" "$v" > "$mp/thpnuma.conf"
	expect_conf_error 2 "$mp/thpnuma.conf:1: $msg" "${name%% *}=$v is refused"
done
# The load-time parameters stay in modprobe.d, as thpnumactl(8) says.
printf 'options thpnuma max_cgroups=32768 budget_cut=N\n' > "$mp/thpnuma.conf"
expect_dry 'max_cgroups=32768 budget_cut=N' "max_cgroups and budget_cut are accepted"
printf 'options thpnuma budget_cut=off\n' > "$mp/thpnuma.conf"
expect_dry 'budget_cut=off' "budget_cut=off is accepted, as kstrtobool() takes it"
printf 'options thpnuma budget-cut\n' > "$mp/thpnuma.conf"
expect_dry 'budget-cut' "budget_cut without a value is accepted (a bool: Y)"
printf 'options thpnuma max_tasks=2048 zone-reclaim=3 policy="kernel" dyndbg=+p\n' > "$mp/thpnuma.conf"
expect_dry 'max_tasks=2048 zone-reclaim=3 policy="kernel" dyndbg=+p' \
	"dashes, quotes and the kernel's own dyndbg are accepted as the kernel takes them"
expect_dry 'max_tasks=2048 policy="kernel" dyndbg=+p zone_reclaim=0' \
	"--zone-reclaim replaces zone-reclaim= (the kernel's dash is an underscore)" -z 0
printf 'options thpnuma scope=al\n' > "$mp/thpnuma.txt"
printf 'options thpnuma scope=al\n' > "$mp/.hidden.conf"
: > "$mp/thpnuma.conf"
expect_dry "none" "files that are not *.conf are not read, as by kmod"
rm "$mp/thpnuma.txt" "$mp/.hidden.conf"
# kmod's precedence: a file in an earlier directory hides one of the same
# name in a later one; files are read in name order across directories.
mkdir -p "$work/mp-etc" "$work/mp-lib"
printf 'options thpnuma policy=bad\n' > "$work/mp-lib/thpnuma.conf"
printf 'options thpnuma policy=kernel\n' > "$work/mp-etc/thpnuma.conf"
printf 'options thpnuma scope=madvise\n' > "$work/mp-lib/50-scope.conf"
printf 'options thpnuma coverage=pmd\n' > "$work/mp-etc/90-coverage.conf"
THPNUMACTL_MODPROBE_D="$work/mp-etc:$work/mp-lib"
expect_dry "scope=madvise coverage=pmd policy=kernel" \
	"modprobe.d directories in kmod's precedence, files in name order"
echo "options thpnuma scope=none" > "$work/mp-lib/50-scope.conf"
expect_conf_error 2 "$work/mp-lib/50-scope.conf:1: invalid scope 'none' (valid: all, madvise)" \
	"a bad value in a later directory is named with its path"
rm -r "$work/mp-etc" "$work/mp-lib"
THPNUMACTL_MODPROBE_D=$mp
# The kernel command line's thpnuma.PARAM=VALUE, which kmod adds last.
echo "ro quiet thpnuma.policy=strict-local thpnuma.scope=bogus other.x=1" > "$work/cmdline"
expect_conf_error 2 "kernel command line: invalid scope 'bogus' (valid: all, madvise)" \
	"a bad thpnuma.scope= on the kernel command line is refused"
expect_dry "policy=strict-local scope=all" \
	"the kernel command line's options, and ours replacing them" --scope all
echo "BOOT_IMAGE=/boot/vmlinuz-6.1.0-57-amd64 root=/dev/vda ro quiet" > "$work/cmdline"
: > "$mp/thpnuma.conf"
# zone_reclaim is ignored unless the policy is local-then-remote.
dry -p strict-local -z 7
if [ "$rc" -eq 0 ] && grep -qF "note: zone_reclaim applies only under local-then-remote and budget; the policy will be strict-local" "$work/err"; then
	ok "load -p strict-local -z 7 notes that zone_reclaim has no effect"
else
	not_ok "load -p strict-local -z 7 notes that zone_reclaim has no effect (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
printf 'options thpnuma zone_reclaim=1\n' > "$mp/thpnuma.conf"
dry
if [ "$rc" -eq 0 ] && grep -qF "note: zone_reclaim applies only under local-then-remote and budget; the policy will be kernel" "$work/err"; then
	ok "load with modprobe.d's zone_reclaim and the default policy gets the note"
else
	not_ok "load with modprobe.d's zone_reclaim and the default policy gets the note (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
dry -p local-then-remote
if [ "$rc" -eq 0 ] && [ ! -s "$work/err" ]; then
	ok "load -p local-then-remote with zone_reclaim: no note"
else
	not_ok "load -p local-then-remote with zone_reclaim: no note (rc=$rc)"
	sed 's/^/# /' "$work/err"
fi
dry -p budget -b 250
if [ "$rc" -eq 0 ] && [ ! -s "$work/err" ]; then
	ok "load -p budget -b 250 with zone_reclaim: no note"
else
	not_ok "load -p budget -b 250 with zone_reclaim: no note (rc=$rc)"
	sed 's/^/# /' "$work/err"
fi
: > "$mp/thpnuma.conf"
dry -p local-then-remote -b 250
if [ "$rc" -eq 0 ] && grep -qxF "thpnumactl: note: budget_us applies only under budget; the policy will be local-then-remote" "$work/err"; then
	ok "load -p local-then-remote -b 250 notes that budget_us has no effect"
else
	not_ok "load -p local-then-remote -b 250 notes that budget_us has no effect (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
printf 'options thpnuma budget_us=2000\n' > "$mp/thpnuma.conf"
expect_dry "budget_us=2000" "load --dry-run: modprobe.d's budget_us is checked and kept"
dry
if [ "$rc" -eq 0 ] && grep -qF "note: budget_us applies only under budget; the policy will be kernel" "$work/err"; then
	ok "load with modprobe.d's budget_us and the default policy gets the note"
else
	not_ok "load with modprobe.d's budget_us and the default policy gets the note (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
dry -p budget
if [ "$rc" -eq 0 ] && [ ! -s "$work/err" ] &&
   [ "$(cat "$work/out")" = "would load $ko with options: budget_us=2000 policy=budget" ]; then
	ok "load -p budget with modprobe.d's budget_us: both, no note"
else
	not_ok "load -p budget with modprobe.d's budget_us (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
printf 'options thpnuma budget_us=0500\n' > "$mp/thpnuma.conf"
expect_conf_error 2 "$mp/thpnuma.conf:1: invalid budget_us '0500' (1-1000000 microseconds, written without sign or leading zeros)" \
	"load --dry-run refuses modprobe.d's budget_us=0500, naming FILE:LINE"
expect_dry "budget_us=500" "--budget-us replaces modprobe.d's bad budget_us" -b 500
: > "$mp/thpnuma.conf"
cp "$here/../../../userspace/thpnuma.modprobe.conf" "$mp/thpnuma.conf"
expect_dry "none" "the example modprobe.d file sets nothing until edited"
sed -i 's/^#[[:space:]]*\(options thpnuma policy=\)/\1/' "$mp/thpnuma.conf"
dry
if [ "$rc" -eq 0 ] && grep -q "with options: policy=" "$work/out"; then
	ok "the example's policy line takes effect once uncommented"
else
	not_ok "the example's policy line takes effect once uncommented (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
sed 's/^#options /options /' "$here/../../../userspace/thpnuma.modprobe.conf" > "$mp/thpnuma.conf"
expect_dry "policy=local-then-remote zone_reclaim=1 budget_us=1000 scope=all coverage=all max_tasks=1024" \
	"every line of the example passes load's checks once uncommented"
expect 1 "no such file" "load --dry-run of a missing file" \
	load --dry-run --module "$work/missing.ko"
expect 2 "invalid policy 'x'" "load --dry-run --policy x" load --dry-run -p x

# ---- load: the settings file's global settings between modprobe.d and ours
conf=$work/thpnuma.conf
printf 'options thpnuma policy=strict-local scope=madvise\n' > "$mp/thpnuma.conf"
printf '# ours\npolicy local-then-remote\nzone_reclaim reclaim  # comment\n' > "$conf"
expect_dry "scope=madvise policy=local-then-remote zone_reclaim=1" \
	"load --config: the file's settings replace modprobe.d's" --config "$conf"
expect_dry "scope=madvise policy=kernel zone_reclaim=1" \
	"load --config --policy: the command line replaces the file's" -C "$conf" -p kernel
THPNUMACTL_CONF=$conf expect_dry "scope=madvise policy=local-then-remote zone_reclaim=1" \
	"load reads the default settings file"
printf 'policy budget\nbudget_us 750\n' > "$work/budget.conf"
expect_dry "scope=madvise policy=budget budget_us=750" \
	"load --config: the file's budget_us" -C "$work/budget.conf"
expect_dry "scope=madvise policy=budget budget_us=90" \
	"load --config --budget-us: the command line replaces the file's" -C "$work/budget.conf" -b 90
printf 'options thpnuma policy=strict_local\n' > "$mp/thpnuma.conf"
dry -C "$conf"
if [ "$rc" -eq 0 ] && grep -qF "$mp/thpnuma.conf:1: invalid policy 'strict_local'" "$work/err" &&
   grep -qF "$conf:2 replaces it for this load, but modprobe would fail" "$work/err"; then
	ok "a bad modprobe.d policy that the settings file replaces gets a note naming both"
else
	not_ok "a bad modprobe.d policy that the settings file replaces (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
: > "$mp/thpnuma.conf"
printf 'policy local-then-remote\nscope most\ncgroup /system.slice kernel\n' > "$conf"
dry -C "$conf"
if [ "$rc" -eq 2 ] && [ ! -s "$work/out" ] &&
   grep -qxF "thpnumactl: $conf:2: invalid scope 'most' (valid: all, madvise)" "$work/err" &&
   grep -qxF "thpnumactl: nothing was applied: correct $conf first" "$work/err"; then
	ok "load refuses a bad settings file, naming FILE:LINE, and loads nothing"
else
	not_ok "load refuses a bad settings file (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
expect 1 "cannot read $work/none.conf: No such file or directory" \
	"load --config of a missing file" load --dry-run --module "$ko" -C "$work/none.conf"
cp "$here/../../../userspace/thpnuma.conf" "$conf"
expect_dry "none" "the example settings file sets nothing until edited" -C "$conf"

# ---- load on a kernel without the module: supported series or not -----------
# THPNUMACTL_KERNEL_RELEASE stands in for uname -r (and /lib/modules/R).
# The supported series are kernels.mk's, which thpnumactl is built with.
# shellcheck disable=SC2016 # $(SUPPORTED_SERIES) is make's
series=$(make -s --no-print-directory -f "$here/../../../kernels.mk" \
	--eval 'print-value: ; @echo $(SUPPORTED_SERIES)' print-value)
series_list=$(echo "$series" | sed 's/ /, /g')
THPNUMACTL_KERNEL_RELEASE=6.18.0-test "$T" load --dry-run > "$work/out" 2> "$work/err"
rc=$?
if [ "$rc" -eq 1 ] && [ -n "$series_list" ] &&
   grep -qF "thpnuma does not support kernel 6.18.0-test (series 6.18; supported series: $series_list)" "$work/err" &&
   grep -qF "dkms status thpnuma" "$work/err" &&
   ! grep -q "install it" "$work/err"; then
	ok "load on an unsupported kernel series names the supported ones"
else
	not_ok "load on an unsupported kernel series names the supported ones (rc=$rc, want '$series_list')"
	sed 's/^/# /' "$work/out" "$work/err"
fi
THPNUMACTL_KERNEL_RELEASE=6.1.0-99-amd64 "$T" load --dry-run > "$work/out" 2> "$work/err"
rc=$?
if [ "$rc" -eq 1 ] &&
   grep -qF "module thpnuma not found in /lib/modules/6.1.0-99-amd64" "$work/err" &&
   grep -qF "dkms status thpnuma" "$work/err" &&
   grep -qF -- "--module PATH" "$work/err" &&
   ! grep -q "does not support" "$work/err"; then
	ok "load on a supported series without the module: an install hint and dkms status"
else
	not_ok "load on a supported series without the module (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
unset THPNUMACTL_MODPROBE_D

# The module is loaded again for the rest.
echo live > "$sys/module/thpnuma/initstate"

# ---- apply: the settings file on a loaded module ---------------------------
# Written through the parameters and the cgroups file, emptied first: a
# fake file keeps the last write (over what was there).
export THPNUMACTL_MOUNTINFO="$work/mountinfo"
conf=$work/thpnuma.conf
save_settings() {
	for f in "$par/policy" "$par/zone_reclaim" "$par/scope" "$par/coverage" "$ctl/cgroups"; do
		: > "$f"
	done
}
settings_are() {
	[ "$(cat "$par/policy")|$(cat "$par/zone_reclaim")|$(cat "$par/scope")|$(cat "$par/coverage")|$(cat "$ctl/cgroups")" = "$1" ]
}
save_settings
printf 'policy local-then-remote\nzone-reclaim swap\nscope madvise\ncoverage pmd\ncgroup /system.slice/db.service strict-local 1\n' > "$conf"
run apply -C "$conf"
if [ "$rc" -eq 0 ] && [ ! -s "$work/err" ] &&
   settings_are "local-then-remote|4|madvise|pmd|/system.slice/db.service strict-local 1" &&
   [ "$(cat "$work/out")" = "zone_reclaim 4 (swap)
scope madvise
coverage pmd
policy local-then-remote
cgroup /system.slice/db.service strict-local 1" ]; then
	ok "apply sets the global settings, then the cgroup's"
else
	not_ok "apply sets the global settings, then the cgroup's (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err" "$par/policy" "$par/zone_reclaim" "$ctl/cgroups"
fi
# A cgroup line's budget_us, after a zone_reclaim or its "-": written as
# the module takes it, the shortest form.
for pair in "budget - 250|budget - 250" "budget reclaim,write 1000000 # c|budget 3 1000000" \
	"budget none -|budget 0" "budget - -|budget" "local-then-remote swap|local-then-remote 4"; do
	words=${pair%%|*} want=${pair#*|}
	save_settings
	printf 'cgroup /system.slice/db.service %s\n' "$words" > "$conf"
	run apply -C "$conf"
	if [ "$rc" -eq 0 ] && [ ! -s "$work/err" ] &&
	   settings_are "||||/system.slice/db.service $want" &&
	   [ "$(cat "$work/out")" = "cgroup /system.slice/db.service $want" ]; then
		ok "apply: 'cgroup PATH $words' writes '$want'"
	else
		not_ok "apply: 'cgroup PATH $words' writes '$want' (rc=$rc, file '$(cat "$ctl/cgroups")')"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
done
save_settings
printf 'cgroup /system.slice/db.service strict-local - 250\n' > "$conf"
run apply --dry-run -C "$conf"
if [ "$rc" -eq 0 ] && settings_are "||||" &&
   [ "$(cat "$work/out")" = "would set cgroup /system.slice/db.service strict-local - 250" ]; then
	ok "apply --dry-run prints a cgroup's budget_us and sets nothing"
else
	not_ok "apply --dry-run prints a cgroup's budget_us (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
save_settings
printf 'cgroup %s kernel\n' "$real/cg/kubepods.slice/pod1.slice" > "$conf"
expect 0 "cgroup /kubepods.slice/pod1.slice kernel" "apply takes a cgroup's directory" apply -C "$conf"
expect_file "$ctl/cgroups" "/kubepods.slice/pod1.slice kernel" "apply writes the directory's cgroup path"
save_settings
printf 'policy kernel\ncgroup /not/yet.service strict-local\n' > "$conf"
run apply -C "$conf"
if [ "$rc" -eq 0 ] && settings_are "kernel||||" &&
   grep -qxF "thpnumactl: note: $conf:2: no cgroup /not/yet.service on the cgroup v2 hierarchy yet; its setting applies once it exists and 'thpnumactl apply' runs again" "$work/err" &&
   grep -qxF "applied 0 of 1 cgroup settings from $conf" "$work/out"; then
	ok "apply: a cgroup that does not exist yet gets a note, the rest applies"
else
	not_ok "apply: a cgroup that does not exist yet (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
save_settings
printf 'cgroup %s kernel\ncgroup /system.slice kernel\n' "$real/v1/job" > "$conf"
run apply -C "$conf"
if [ "$rc" -eq 1 ] && grep -qF "is on a cgroup v1 hierarchy" "$work/err" &&
   [ "$(cat "$ctl/cgroups")" = "/system.slice kernel" ]; then
	ok "apply: a cgroup v1 directory fails the apply, the other lines still apply"
else
	not_ok "apply: a cgroup v1 directory (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
for pair in "policy strict_local|3: invalid policy 'strict_local' (valid: kernel, strict-local, local-then-remote, budget)" \
	"zone_reclaim 8|3: invalid zone_reclaim '8' (0-7, none, or a comma list of reclaim,write,swap)" \
	"policy|3: policy takes one value (policy VALUE)" \
	"scope all madvise|3: scope takes one value (scope VALUE)" \
	"max_tasks 10|3: unknown setting 'max_tasks' (policy, zone_reclaim, scope, coverage, budget_us or cgroup)" \
	"cgroup system.slice kernel|3: 'system.slice' is not a cgroup v2 path" \
	"cgroup /a/./b kernel|3: '/a/./b' is not a cgroup v2 path" \
	"cgroup /system.slice|3: cgroup takes a path, a policy, an optional zone_reclaim and budget_us (cgroup PATH POLICY [ZONE_RECLAIM|- [BUDGET_US|-]])" \
	"cgroup /system.slice default|3: invalid policy 'default'" \
	"cgroup /system.slice kernel 1 2 3|3: cgroup takes a path, a policy, an optional zone_reclaim and budget_us" \
	"cgroup /system.slice kernel 1 2 3 4 5 6 7|3: cgroup takes a path, a policy, an optional zone_reclaim and budget_us" \
	"cgroup /system.slice kernel 8|3: invalid zone_reclaim '8' (0-7, none, or a comma list of reclaim,write,swap; - for the global one)" \
	"cgroup /system.slice budget x 250|3: invalid zone_reclaim 'x'" \
	"cgroup /system.slice budget - 0|3: invalid budget_us '0' (1-1000000 microseconds, written without sign or leading zeros)" \
	"cgroup /system.slice budget 1 01|3: invalid budget_us '01'" \
	"cgroup /system.slice budget 1 1000001|3: invalid budget_us '1000001'" \
	"cgroup /system.slice budget 1 1ms|3: invalid budget_us '1ms'" \
	"cgroup /system.slice budget 1 --|3: invalid budget_us '--'" \
	"cgroup /system.slice/db.service kernel|3: cgroup /system.slice/db.service is set again (first on line 2)" \
	"policy kernel\n\npolicy kernel|5: policy is set again (first on line 3)" \
	"coverage pmd|3: coverage is set again (first on line 1)" \
	"budget_us 0|3: invalid budget_us '0' (1-1000000 microseconds, written without sign or leading zeros)" \
	"budget_us 01|3: invalid budget_us '01'" \
	"budget_us 1000001|3: invalid budget_us '1000001'" \
	"budget_us 1ms|3: invalid budget_us '1ms'" \
	"budget_us|3: budget_us takes one value (budget_us VALUE)" \
	"budget-us 5 6|3: budget_us takes one value (budget_us VALUE)" \
	"budget_us 5\nbudget_us 5|4: budget_us is set again (first on line 3)"; do
	lines=${pair%%|*} msg=$conf:${pair#*|}
	save_settings
	printf "coverage pmd+mthp\ncgroup /system.slice/db.service strict-local\n$lines\n" > "$conf"
	run apply -C "$conf"
	if [ "$rc" -eq 2 ] && [ ! -s "$work/out" ] && grep -qF "thpnumactl: $msg" "$work/err" &&
	   grep -qxF "thpnumactl: nothing was applied: correct $conf first" "$work/err" &&
	   settings_are "||||"; then
		ok "apply refuses '$(printf '%s' "$lines" | sed 's/\\n/ | /g')': FILE:LINE, nothing applied"
	else
		not_ok "apply refuses '$lines' (rc=$rc, want '$msg' and nothing applied)"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
done
# budget_us before the policy, as zone_reclaim: the new policy starts
# with the file's budget.
: > "$par/budget_us"
save_settings
printf 'policy budget\nbudget-us 250\nzone_reclaim 1\n' > "$conf"
run apply -C "$conf"
if [ "$rc" -eq 0 ] && [ ! -s "$work/err" ] &&
   [ "$(cat "$par/budget_us")" = 250 ] && settings_are "budget|1|||" &&
   [ "$(cat "$work/out")" = "zone_reclaim 1 (reclaim)
budget_us 250
policy budget" ]; then
	ok "apply sets budget_us after zone_reclaim and before the policy"
else
	not_ok "apply sets budget_us (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err" "$par/budget_us"
fi
save_settings
run apply --dry-run -C "$conf"
if [ "$rc" -eq 0 ] && settings_are "||||" &&
   grep -qx "would set budget_us 250" "$work/out"; then
	ok "apply --dry-run prints budget_us and sets nothing"
else
	not_ok "apply --dry-run prints budget_us (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
echo 1000 > "$par/budget_us"
printf 'policy kernel\npolicy bad\nscope none\n' > "$conf"
run apply -C "$conf"
if [ "$rc" -eq 2 ] && [ "$(grep -c "^thpnumactl: $conf:" "$work/err")" -eq 2 ]; then
	ok "apply names every bad line, not only the first"
else
	not_ok "apply names every bad line (rc=$rc)"
	sed 's/^/# /' "$work/err"
fi
save_settings
printf 'policy kernel\ncgroup /system.slice kernel 5\n' > "$conf"
run apply --dry-run -C "$conf"
if [ "$rc" -eq 0 ] && settings_are "||||" &&
   [ "$(cat "$work/out")" = "would set policy kernel
would set cgroup /system.slice kernel 5" ]; then
	ok "apply --dry-run prints what it would set and sets nothing"
else
	not_ok "apply --dry-run (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
expect 1 "cannot read $work/none.conf: No such file or directory" \
	"apply of a missing file" apply -C "$work/none.conf"
THPNUMACTL_CONF=$work/none.conf expect 1 "cannot read $work/none.conf" \
	"apply of a missing default file" apply
cp "$here/../../../userspace/thpnuma.conf" "$conf"
expect 0 "$conf sets nothing" "apply of the example settings file: nothing" apply -C "$conf"
sed 's/^#\([a-z]\)/\1/' "$here/../../../userspace/thpnuma.conf" > "$conf"
run apply --dry-run -C "$conf"
if [ "$rc" -eq 0 ] && [ "$(grep -c '^would set' "$work/out")" -ge 4 ]; then
	ok "every line of the example settings file passes once uncommented"
else
	not_ok "every line of the example settings file passes once uncommented (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
expect 2 "unexpected argument 'now'" "apply with a stray argument" apply now
echo strict-local > "$par/policy"; echo 3 > "$par/zone_reclaim"
echo all > "$par/scope"; echo all > "$par/coverage"; : > "$ctl/cgroups"
unset THPNUMACTL_MOUNTINFO

# ---- unload: overrides and users -------------------------------------------
# The checks read the fake sysfs; with THPNUMACTL_SYSFS set, unload stops
# before asking the kernel, so the running kernel's thpnuma is never
# touched. Needs root (unload refuses earlier without it).
if [ "$(id -u)" -eq 0 ]; then
	cp "$FIXTURES/policies.txt" "$ctl/policies"
	printf '412 thp\\040touch strict-local - -\n77 db local-then-remote 3 -\n' > "$dbg/overrides"
	run unload
	if [ "$rc" -eq 1 ] &&
	   grep -qF "2 processes have a per-process override; unloading would lose them:" "$work/err" &&
	   grep -qF "     412  thp touch         strict-local        global" "$work/err" &&
	   grep -qF "      77  db                local-then-remote   3" "$work/err" &&
	   grep -qF "unload --force unloads anyway and the overrides are lost" "$work/err" &&
	   [ ! -s "$work/out" ]; then
		ok "unload refuses while overrides exist and lists them"
	else
		not_ok "unload refuses while overrides exist and lists them (rc=$rc)"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
	run unload --force
	if [ "$rc" -eq 1 ] && ! grep -q "per-process override" "$work/err" &&
	   grep -qF "not unloading the running kernel's thpnuma" "$work/err"; then
		ok "unload --force goes past the overrides (to the test tree's stop)"
	else
		not_ok "unload --force goes past the overrides (rc=$rc)"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
	: > "$dbg/overrides"
	run unload
	if [ "$rc" -eq 1 ] && ! grep -q "per-process override" "$work/err" &&
	   grep -qF "not unloading the running kernel's thpnuma" "$work/err"; then
		ok "unload without overrides goes on (the overrides file, not tasks)"
	else
		not_ok "unload without overrides goes on (rc=$rc)"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
	printf '/system.slice/db.service strict-local - -\n' > "$ctl/cgroups"
	run unload
	if [ "$rc" -eq 1 ] &&
	   grep -qF "1 cgroup has a setting; unloading would lose it:" "$work/err" &&
	   grep -qF "strict-local        global        global     /system.slice/db.service" "$work/err" &&
	   grep -qF "unload --force unloads anyway and the settings are lost" "$work/err"; then
		ok "unload refuses while cgroups have settings and lists them"
	else
		not_ok "unload refuses while cgroups have settings and lists them (rc=$rc)"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
	run unload --force
	if [ "$rc" -eq 1 ] && ! grep -q "has a setting" "$work/err" &&
	   grep -qF "not unloading the running kernel's thpnuma" "$work/err"; then
		ok "unload --force goes past the cgroup settings"
	else
		not_ok "unload --force goes past the cgroup settings (rc=$rc)"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
	: > "$ctl/cgroups"
	printf 'policy tasks\n' > "$dbg/overrides"
	run unload
	if [ "$rc" -eq 1 ] && grep -qF "cannot tell whether processes have per-process overrides" "$work/err" &&
	   grep -qF -- "--force" "$work/err"; then
		ok "unload refuses when the overrides cannot be read"
	else
		not_ok "unload refuses when the overrides cannot be read (rc=$rc)"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
	cp "$work/tasks.saved" "$dbg/overrides"
	expect 2 "unexpected argument 'now'" "unload --force with a stray argument" unload --force now
	# The reference count: who holds it (P10).
	: > "$dbg/overrides"
	echo 1 > "$sys/module/thpnuma/refcnt"
	run unload --force
	if [ "$rc" -eq 1 ] && grep -qF "thpnuma is in use (reference count 1)" "$work/err" &&
	   grep -qF "perf" "$work/err" && grep -qF "bpftrace" "$work/err" &&
	   grep -qF "thpnuma:thp_fault" "$work/err" && grep -qF "debugfs" "$work/err"; then
		ok "unload of a busy module names tracers and debugfs readers"
	else
		not_ok "unload of a busy module names tracers and debugfs readers (rc=$rc)"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
	ev=$sys/kernel/tracing/events/thpnuma/thp_fault
	echo 1 > "$ev/enable"
	echo "hist:keys=node:vals=hitcount:sort=hitcount:size=2048 [active]" >> "$ev/trigger"
	run unload
	if [ "$rc" -eq 1 ] &&
	   grep -qF "the thpnuma:thp_fault event is enabled (echo 0 > $ev/enable)" "$work/err" &&
	   grep -qF "a trigger is set on thpnuma:thp_fault ($ev/trigger: hist:keys=node" "$work/err"; then
		ok "unload of a busy module names the enabled event and its trigger"
	else
		not_ok "unload of a busy module names the enabled event and its trigger (rc=$rc)"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
	echo 0 > "$ev/enable"
	head -2 "$ev/trigger" > "$work/trigger" && cp "$work/trigger" "$ev/trigger"
	echo 0 > "$sys/module/thpnuma/refcnt"
	mkdir "$sys/module/thpnuma/holders/thpnuma_ext"
	expect 1 "thpnuma is in use by other modules: thpnuma_ext" "unload names holder modules" unload
	rmdir "$sys/module/thpnuma/holders/thpnuma_ext"
	cp "$work/tasks.saved" "$dbg/overrides"
else
	n=$((n + 1))
	echo "ok $n - unload checks # SKIP needs root"
fi
expect 0 "--force" "unload --help shows --force" unload --help

# ---- debugfs disabled by the kernel (debugfs=off, debugfs=no-mount) ---------
# Everything but the debugfs files works: settings and overrides in sysfs,
# and the statistics, which thpnumactl reads from sysfs alone.
for args in stat hist policies; do
	# shellcheck disable=SC2086
	run $args
	cp "$work/out" "$work/with-debugfs.$args"
done
THPNUMACTL_DEBUGFS=$work/no-debugfs
for param in off no-mount; do
	echo "BOOT_IMAGE=/vmlinuz ro debugfs=$param quiet" > "$work/cmdline"
	for args in stat hist policies; do
		run $args
		if [ "$rc" -eq 0 ] && [ ! -s "$work/err" ] &&
		   [ -s "$work/out" ] && cmp -s "$work/out" "$work/with-debugfs.$args"; then
			ok "debugfs=$param: $args reads the statistics from sysfs"
		else
			not_ok "debugfs=$param: $args reads the statistics from sysfs (rc=$rc)"
			sed 's/^/# /' "$work/out" "$work/err"
		fi
	done
	run watch 0.1 2
	if [ "$rc" -eq 0 ] && [ "$(grep -c ' all ' "$work/out")" -eq 2 ]; then
		ok "debugfs=$param: watch reads the statistics from sysfs"
	else
		not_ok "debugfs=$param: watch reads the statistics from sysfs (rc=$rc)"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
done
run status
if [ "$rc" -eq 0 ] && grep -q "^version: *0.1.0$" "$work/out" &&
   grep -q "^policy: *strict-local" "$work/out"; then
	ok "debugfs disabled: status shows the settings and the version from sysfs"
else
	not_ok "debugfs disabled: status shows the settings and the version from sysfs (rc=$rc)"
	sed 's/^/# /' "$work/out" "$work/err"
fi
expect 0 "strict-local" "debugfs disabled: policy reads the parameter" policy
: > "$par/coverage"
expect 0 "pmd" "debugfs disabled: coverage pmd" coverage pmd
expect_file "$par/coverage" pmd "debugfs disabled: coverage writes the parameter"
echo all > "$par/coverage"
expect 0 "counters reset" "debugfs disabled: reset through sysfs" reset
: > "$ctl/tasks"
expect 0 "412 kernel" "debugfs disabled: task PID POLICY" task 412 kernel
expect_file "$ctl/tasks" "412 kernel" "debugfs disabled: task writes /sys/kernel/thpnuma/tasks"
# /sys/kernel/thpnuma/tasks lists the overrides as debugfs does.
printf '412 thp\\040touch strict-local - -\n77 db local-then-remote 3 -\n' > "$ctl/tasks"
expect 0 "     412  thp touch         strict-local        global" \
	"debugfs disabled: tasks reads /sys/kernel/thpnuma/tasks" tasks
expect 0 "77  db                local-then-remote   3" \
	"debugfs disabled: task PID reads /sys/kernel/thpnuma/tasks" task 77
if [ "$(id -u)" -eq 0 ]; then
	run unload
	if [ "$rc" -eq 1 ] && grep -qF "2 processes have a per-process override" "$work/err" &&
	   grep -qF "     412  thp touch" "$work/err"; then
		ok "debugfs disabled: unload lists the overrides from sysfs"
	else
		not_ok "debugfs disabled: unload lists the overrides from sysfs (rc=$rc)"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
fi
: > "$ctl/tasks"
echo "BOOT_IMAGE=/boot/vmlinuz-6.1.0-57-amd64 root=/dev/vda ro quiet" > "$work/cmdline"
THPNUMACTL_DEBUGFS=$dbg

# ---- not root ----------------------------------------------------------------
# debugfs is 0700 root: an ordinary user cannot even look inside.
# uid 65534 runs a copy of the binary from the work directory: the build
# tree may sit under a directory it cannot enter (a mktemp -d checkout).
nobody_skip="needs root and setpriv to drop it"
if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null; then
	priv=$work/priv
	mkdir -p "$priv"
	make_tree "$priv/t"
	cp "$T" "$priv/thpnumactl"
	chmod 755 "$work" "$priv" "$priv/t" "$priv/thpnumactl"
	chmod 700 "$priv/t/debug"
	# Probed through env as the checks run it: setpriv's own exec has
	# been seen to succeed where a child's does not.
	if setpriv --reuid=65534 --regid=65534 --clear-groups \
		env "$priv/thpnumactl" --help > /dev/null 2>&1; then
		nobody_skip=""
	else
		nobody_skip="uid 65534 cannot run $priv/thpnumactl (a parent directory is closed to it)"
	fi
fi
if [ -z "$nobody_skip" ]; then
	as_nobody() {
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			env THPNUMACTL_DEBUGFS="$priv/t/debug/thpnuma" \
			THPNUMACTL_SYSFS="$priv/t/sys" "$priv/thpnumactl" "$@" \
			> "$work/out" 2> "$work/err"
		rc=$?
	}
	for args in "policy kernel" "zone-reclaim 1" "budget-us 500" "scope all" "coverage pmd" "reset" "load" "unload" \
		"tasks" "task 1 kernel" "run --policy kernel -- true" "compare -p kernel,budget:3 -- true"; do
		# shellcheck disable=SC2086
		as_nobody $args
		if [ "$rc" -eq 1 ] && grep -q "needs root" "$work/err"; then
			ok "non-root '$args' is told it needs root"
		else
			not_ok "non-root '$args' is told it needs root (rc=$rc)"
			sed 's/^/# /' "$work/err"
		fi
	done
	as_nobody policy
	if [ "$rc" -eq 0 ] && grep -qx "strict-local" "$work/out"; then
		ok "non-root policy reads the world-readable parameter"
	else
		not_ok "non-root policy reads the world-readable parameter (rc=$rc)"
		sed 's/^/# /' "$work/err"
	fi
	as_nobody load --policy fast
	if [ "$rc" -eq 2 ]; then
		ok "non-root usage errors stay usage errors"
	else
		not_ok "non-root usage errors stay usage errors (rc=$rc)"
	fi
	# The statistics are world-readable in sysfs: an exporter needs no root.
	for args in stat hist policies "stat --json" "stat --prometheus" "hist --prometheus"; do
		# shellcheck disable=SC2086
		THPNUMACTL_DEBUGFS="$priv/t/debug/thpnuma" \
			THPNUMACTL_SYSFS="$priv/t/sys" "$T" $args > "$work/as-root"
		# shellcheck disable=SC2086
		as_nobody $args
		if [ "$rc" -eq 0 ] && [ ! -s "$work/err" ] &&
		   [ -s "$work/out" ] && cmp -s "$work/out" "$work/as-root"; then
			ok "non-root '$args' reads what root reads"
		else
			not_ok "non-root '$args' reads what root reads (rc=$rc)"
			sed 's/^/# /' "$work/err"
		fi
	done
	as_nobody status
	if [ "$rc" -eq 0 ] && grep -q "^version: *0.1.0$" "$work/out" &&
	   grep -q "^policy: *strict-local" "$work/out"; then
		ok "non-root status reads the settings and the version from sysfs"
	else
		not_ok "non-root status reads the settings and the version from sysfs (rc=$rc)"
	fi
	echo budget > "$priv/t/sys/module/thpnuma/parameters/policy"
	as_nobody status
	if [ "$rc" -eq 0 ] && [ ! -s "$work/err" ] &&
	   grep -q "^budget node 0: *estimate 180 us, within the 1 ms budget$" "$work/out"; then
		ok "non-root status reads each node's budget state from sysfs"
	else
		not_ok "non-root status reads each node's budget state from sysfs (rc=$rc)"
		sed 's/^/# /' "$work/out" "$work/err"
	fi
else
	n=$((n + 1))
	echo "ok $n - non-root checks # SKIP $nobody_skip"
fi

[ "$fails" -eq 0 ]
