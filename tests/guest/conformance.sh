#!/bin/sh
# Conformance: the kernel's own THP/NUMA mm selftests (built by
# tests/conformance/build.sh into /selftests) give the same pass, skip and
# fail set with the module loaded in each policy as with it absent.
# Env: CONFORMANCE_POLICIES (default: all three), CONFORMANCE_TESTS
# (default: every test in /selftests/LIST).
. /tests/lib.sh
LIST=/selftests/LIST
policies=${CONFORMANCE_POLICIES:-kernel strict-local local-then-remote}
tests=${CONFORMANCE_TESTS:-$(cut -d' ' -f1 $LIST 2>/dev/null)}
out=/tmp/conformance
ESC=$(printf '\033')
mkdir -p $out
ntests=$(echo $tests | wc -w)
npol=$(echo $policies | wc -w)
tap_plan $((ntests * (2 * npol + 2) + npol))
if [ ! -f $LIST ]; then
	diag "no /selftests in this initramfs"; exit 4
fi

# Known divergences, "POLICY TEST reason": the test still runs and its
# differences are shown, but they are reported as a SKIP with the reason.
KNOWN='strict-local khugepaged collapse_compound_extreme faults ~512 THPs in turn on one node and exits when one is not a THP; strict-local refuses remote THPs by design, and the local node (768 MiB, less than the 1 GiB of THPs the test faults) runs out of free 2 MiB blocks when deferred splits do not free them in time (Failed to allocate huge page)'
known_reason() {
	echo "$KNOWN" | awk -v p="$1" -v t="$2" '$1 == p && $2 == t { $1 = $2 = ""; sub(/^ +/, ""); print }'
}

# verdicts NAME MODE: rc and the test's own TAP verdicts, numbers dropped,
# so that two runs compare line by line. The selftests' output stays in
# files: their "ok N" lines must not reach the harness.
verdicts() {
	_f=$out/$2.$1
	echo "rc=$(cat $_f.rc)"
	# Progress lines end in \r: each piece is a line of its own.
	tr '\r' '\n' < $_f.log | sed "s/$ESC\[[0-9;]*m//g" |
		sed -nE 's/^(ok|not ok) [0-9]+ (.*)$/\1 \2/p; s/^# (Totals: .*)$/\1/p
			s/^(.*[^[:space:]])[[:space:].]+(OK|Fail|Skip)$/\1: \2/p' |
		sed -E 's/ *# (SKIP|skip).*/ # SKIP/'
}

run_all() {
	_mode=$1
	for t in $tests; do
		set -- $(grep "^$t " $LIST)
		_limit=$2; shift 2
		_t0=$(cut -d. -f1 /proc/uptime)
		(cd /tmp && timeout -s KILL $_limit /selftests/$t "$@" > $out/$_mode.$t.log 2>&1)
		_rc=$?
		_secs=$(( $(cut -d. -f1 /proc/uptime) - _t0 ))
		# transhuge-stress on 6.1 runs until stopped: a kill at the limit is its pass.
		[ "$t" = transhuge-stress ] && [ $_rc = 137 ] && [ -z "$*" -o "$*" = 64 ] && _rc=0
		echo $_rc > $out/$_mode.$t.rc
		verdicts $t $_mode > $out/$_mode.$t.v
		[ $_mode = absent ] && [ $_rc != 0 ] && tr '\r' '\n' < $out/$_mode.$t.log | tail -n 4 | sed "s/^/# $t: /"
		check "$_mode: $t ran ($(head -n 1 $out/$_mode.$t.v), $(($(wc -l < $out/$_mode.$t.v) - 1)) subtests, $_secs s)" test $_rc != 137
	done
}

echo always > /sys/kernel/mm/transparent_hugepage/enabled
thpnuma_unload 2>/dev/null
# Two runs without the module: a verdict that differs between them is the
# test's own flakiness under TCG, not something the module can be held to.
run_all absent
run_all absent2
for t in $tests; do
	grep -Fxf $out/absent2.$t.v $out/absent.$t.v > $out/stable.$t.v
	diag "$t without the module: $(tr '\n' ';' < $out/absent.$t.v)"
	grep -Fxvf $out/absent2.$t.v $out/absent.$t.v | sed "s/^/# $t: unstable without the module: /"
done
for p in $policies; do
	check "$p: module loads" thpnuma_load policy=$p zone_reclaim=1
	run_all $p
	for t in $tests; do
		# Every verdict stable without the module must recur with it.
		missing=$(grep -Fxvf $out/$p.$t.v $out/stable.$t.v)
		if [ -z "$missing" ]; then
			ok "$p: $t gives the module-absent verdicts ($(wc -l < $out/stable.$t.v) stable)"
		else
			why=$(known_reason $p $t)
			if [ -n "$why" ]; then
				skip "$p: $t differs from module absent" "known: $why"
			else
				not_ok "$p: $t differs from module absent"
			fi
			echo "$missing" | sed 's/^/# expected: /' | head -n 10
			grep -Fxvf $out/stable.$t.v $out/$p.$t.v | sed 's/^/# got: /' | head -n 10
			tr '\r' '\n' < $out/$p.$t.log | tail -n 5 | sed "s/^/# $t with $p, last lines: /"
		fi
	done
	thpnuma_unload
done
tap_done
