# TAP helpers for guest shell tests, in the kselftest output format.
_tap_n=0
_tap_fail=0
tap_plan() { echo "TAP version 13"; echo "1..$1"; }
ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n $*"; }
not_ok() { _tap_n=$((_tap_n + 1)); _tap_fail=$((_tap_fail + 1)); echo "not ok $_tap_n $*"; }
skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n $1 # SKIP $2"; }
# check NAME CMD...: ok if CMD succeeds.
check() { _name=$1; shift; if "$@"; then ok "$_name"; else not_ok "$_name"; fi; }
diag() { echo "# $*"; }
tap_done() { [ "$_tap_fail" -eq 0 ]; exit $?; }

THPNUMA_DIR=/sys/kernel/debug/thpnuma
# One finit_module(2) call (helpers/modload.c), not busybox's insmod.
thpnuma_load() { /tests/modload "$@"; }
thpnuma_unload() { rmmod thpnuma; }

# The stats file's counters, found by their header names (never by column
# position). stat_col NODE NAME: one node's counter.
stat_col() {
	awk -v n="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i
			if (!(c in col)) exit 1; next }
		$1 == n { print $col[c] }' $THPNUMA_DIR/stats
}
# stats_sum [NAME...]: those counters summed over all nodes; with no NAME,
# every counter. Fails, printing nothing, if a NAME is not a column.
stats_sum() {
	awk -v want="$*" 'NR == 1 { for (i = 2; i <= NF; i++) col[$i] = i
			n = split(want, w, " ")
			for (j = 1; j <= n; j++) { if (!(w[j] in col)) { bad = 1; exit 1 }; use[col[w[j]]] = 1 }
			if (!n) for (i = 2; i <= NF; i++) use[i] = 1
			next }
		{ for (i in use) s += $i } END { if (NR && !bad) print s + 0 }' $THPNUMA_DIR/stats
}

# sysfs_table NAME: the nodes' sysfs NAME files (stats, hist, orders)
# joined in node order under one header, which reads as debugfs' NAME.
sysfs_table() {
	_first=1
	for _nid in $(ls /sys/kernel/thpnuma/nodes | sed 's/^node//' | sort -n); do
		if [ $_first = 1 ]; then
			cat /sys/kernel/thpnuma/nodes/node$_nid/$1
			_first=0
		else
			tail -n +2 /sys/kernel/thpnuma/nodes/node$_nid/$1
		fi
	done
}
# same_reads CMD1 CMD2: the two (eval'd) print the same, non-empty, once
# the counters hold still between them (a few tries).
same_reads() {
	for _try in 1 2 3 4 5; do
		eval "$1" > /tmp/reads.1 2>&1 && eval "$2" > /tmp/reads.2 2>&1 &&
			[ -s /tmp/reads.1 ] && cmp -s /tmp/reads.1 /tmp/reads.2 && return 0
		sleep 0.2
	done
	diff /tmp/reads.1 /tmp/reads.2 | sed 's/^/# /'
	return 1
}

# The CLI tests: run thpnumactl ($T) ARGS..., its output in $out and $err
# (set by the test), its exit status in $rc.
run() { "$T" "$@" > $out 2> $err; rc=$?; }

# expect NAME RC TEXT ARGS...: exit status RC and TEXT in the output.
expect() {
	_name=$1 _rc=$2 _text=$3
	shift 3
	run "$@"
	if [ "$rc" -eq "$_rc" ] && cat $out $err | grep -qF -- "$_text"; then
		ok "$_name"
	else
		not_ok "$_name"
		diag "rc=$rc, wanted $_rc and '$_text'"
		cat $out $err | sed 's/^/# /'
	fi
}
