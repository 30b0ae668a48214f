#!/bin/bash
# make check: host unit tests, the DKMS build test and the VM suite on every
# supported kernel; with CHECK_STRESS=1, make check-stress too. Each part
# prints its own "N passed, N failed" line; the last line here is their
# total.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/summary.sh"
logdir=$top/build/check-logs
mkdir -p "$logdir"
passed=0 failed=0 skipped=0 broken="" logs=""
start=$(date +%s)

part() {
	local name=$1 log=$logdir/$1.log summary p f s t0=$(date +%s)
	shift
	echo "== $name: $*"
	logs="$logs $log"
	"$@" 2>&1 | tee "$log"
	local rc=${PIPESTATUS[0]}
	echo "== $name: finished in $(( $(date +%s) - t0 )) s"
	summary=$(summary_counts < "$log")
	if [ -z "$summary" ]; then
		broken="$broken $name"
		failed=$((failed + 1))
		return
	fi
	read -r p f s <<<"$summary"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		broken="$broken $name"
		failed=$((failed + 1))
	fi
}

kernels=$(sed -n 's/^SUPPORTED_KERNELS := //p' "$top/kernels.mk")
part host make -s -C "$top/tests/host" check
part dkms "$top/tests/dkms/check-dkms.sh" $kernels
part deb "$top/tests/deb/check-deb.sh"
# CI adds the long safety tests, so that one total line covers both; on
# their kernels, check-vm then leaves their quick forms to them.
# make check made the images just before: the parts do not remake them.
part vm make -s -C "$top" check-vm THPNUMA_PREPARED=1 ${CHECK_STRESS:+STRESS_FOLLOWS=1}
[ -n "${CHECK_STRESS:-}" ] && part stress make -s -C "$top" check-stress THPNUMA_PREPARED=1

# The failures again, so that the end of a long log names them.
if [ "$failed" -ne 0 ]; then
	echo "== failures:"
	grep -hE '^(FAIL |not ok |host: .* exited with)' $logs
fi
echo "check: finished in $(( $(date +%s) - start )) s; logs in $logdir${broken:+; parts that broke:$broken}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
