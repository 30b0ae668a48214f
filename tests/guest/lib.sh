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
