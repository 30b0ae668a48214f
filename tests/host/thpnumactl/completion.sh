#!/bin/bash
# The bash completion file, with bash-completion's helpers stubbed, and its
# and the man page's command lists against the tool's own. Prints TAP lines.
# env: THPNUMACTL (the binary), SRC (userspace/thpnumactl)
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }

_init_completion() {
	words=("${COMP_WORDS[@]}")
	cword=$COMP_CWORD
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
}
_filedir() { COMPREPLY=(FILES); }
# shellcheck source=/dev/null
. "$SRC/thpnumactl.bash-completion"

# expect_completion WANT WORDS...: completing the last word gives WANT.
expect_completion() {
	local want=$1
	shift
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	_thpnumactl
	if [[ "${COMPREPLY[*]}" == "$want" ]]; then
		ok "completes '$*' to '$want'"
	else
		not_ok "completes '$*' to '$want' (got '${COMPREPLY[*]}')"
	fi
}

expect_completion "policy policies" thpnumactl po
expect_completion "policies" thpnumactl policie
expect_completion "tasks task" thpnumactl tas
expect_completion "strict-local" thpnumactl run --policy st
expect_completion "kernel" thpnumactl task 42 k
expect_completion "--json" thpnumactl tasks --j
expect_completion "status stat" thpnumactl sta
expect_completion "--help --version" thpnumactl -
expect_completion "strict-local" thpnumactl policy s
expect_completion "local-then-remote" thpnumactl load --policy l
expect_completion "madvise" thpnumactl load --scope m
expect_completion "FILES" thpnumactl load --module ""
expect_completion "--dry-run" thpnumactl load --dr
expect_completion "--user" thpnumactl run --u
expect_completion "root" thpnumactl run -p kernel --user roo
expect_completion "reclaim,write" thpnumactl zone-reclaim reclaim,w
expect_completion "--json" thpnumactl stat --j
expect_completion "--interval" thpnumactl watch --i
expect_completion "zone-reclaim" thpnumactl help z

# Every command the tool lists is completed and documented.
commands=$("$THPNUMACTL" --help | awk '/^Commands:/ { on = 1; next }
	on && NF == 0 { exit } on { print $1 }')
[ -n "$commands" ] || not_ok "the tool lists its commands"
for c in $commands; do
	COMP_WORDS=(thpnumactl "")
	COMP_CWORD=1
	_thpnumactl
	if [[ " ${COMPREPLY[*]} " == *" $c "* ]]; then
		ok "completion offers '$c'"
	else
		not_ok "completion offers '$c'"
	fi
	# roff writes a hyphen as "\-".
	if grep -qF ".B ${c//-/\\-}" "$SRC/thpnumactl.8"; then
		ok "man page documents '$c'"
	else
		not_ok "man page documents '$c'"
	fi
done
[ "$fails" -eq 0 ]
