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
thpnuma_load() { insmod /lib/thpnuma.ko "$@"; }
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
