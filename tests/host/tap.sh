# Sourced by the host test scripts: TAP lines after kselftest's
# ktap_helpers.sh, a scratch directory removed on exit, and a copy of the
# working tree. Sets top (the tree) and work (the scratch directory).
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0 fails=0 skips=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }
# skip NAME REASON
skip() { n=$((n + 1)); skips=$((skips + 1)); echo "ok $n - $1 # SKIP $2"; }
# show [FILE...]: as TAP diagnostics.
show() { sed 's/^/# /' "$@"; }
# check NAME CMD...: ok if CMD succeeds; the end of its output if not.
check() {
	_name=$1
	shift
	if "$@" > "$work/check.log" 2>&1; then
		ok "$_name"
	else
		not_ok "$_name"
		tail -n 30 "$work/check.log" | show
	fi
}
# The plan and the total line; the exit status says whether all passed.
tap_finish() {
	echo "1..$n"
	echo "$((n - fails - skips)) passed, $fails failed, $skips skipped"
	[ "$fails" -eq 0 ]
	exit
}
# copy_tree DIR: the working tree as it is (uncommitted changes too),
# without build output and caches.
copy_tree() {
	mkdir -p "$1"
	(cd "$top" && git ls-files -co --exclude-standard -z |
		grep -zv -e '^build/' -e '^\.cache/' | xargs -0 tar cf - --) |
		(cd "$1" && tar xf -)
}
