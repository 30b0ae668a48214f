#!/bin/bash
# The bash completion file, with bash-completion's helpers stubbed, and its
# and the man page's command lists against the tool's own. Prints TAP lines.
# env: THPNUMACTL (the binary), SRC (userspace/thpnumactl)
n=0
fails=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }

# As bash-completion 2.11's: with -s, "=" does not split words, and a
# current "--opt=value" becomes prev=--opt, cur=value, split=true.
_init_completion() {
	words=("${COMP_WORDS[@]}")
	cword=$COMP_CWORD
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	if [[ $1 == -s ]]; then
		split=false
		if [[ $cur == --?*=* ]]; then
			prev=${cur%%=*}
			cur=${cur#*=}
			split=true
		fi
	fi
}
# A ps that knows init, kthreadd, one kernel thread and one process.
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
printf '#!/bin/sh\nprintf "    1     0\\n    2     0\\n   33     2\\n  412     1\\n"\n' > "$fake/ps"
chmod +x "$fake/ps"
PATH=$fake:$PATH
_filedir() { COMPREPLY=(FILES); }
# The command after run's and compare's options: its word's index.
_command_offset() { COMPREPLY=("COMMAND@$1"); }
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
expect_completion "pmd pmd+mthp" thpnumactl coverage p
expect_completion "pmd+mthp" thpnumactl coverage pmd+
expect_completion "pmd+mthp" thpnumactl load --coverage=pmd+
expect_completion "all" thpnumactl load -c a
expect_completion "" thpnumactl coverage all ""
expect_completion "--coverage" thpnumactl load --cov
expect_completion "coverage compare" thpnumactl help co
expect_completion "coverage" thpnumactl help cov
expect_completion "FILES" thpnumactl load --module ""
expect_completion "--dry-run" thpnumactl load --dr
expect_completion "--config" thpnumactl load --con
expect_completion "--config --dry-run --help" thpnumactl apply --
expect_completion "--dry-run" thpnumactl apply --config x --d
expect_completion "--stat" thpnumactl cgroups --s
expect_completion "--prometheus" thpnumactl cgroups --stat --p
expect_completion "--output" thpnumactl cgroups --stat --json --o
expect_completion "--user" thpnumactl run --u
expect_completion "root" thpnumactl run -p kernel --user roo
expect_completion "reclaim,write" thpnumactl zone-reclaim reclaim,w
expect_completion "--json" thpnumactl stat --j
expect_completion "hist help" thpnumactl h
expect_completion "--prometheus" thpnumactl hist --p
expect_completion "--node --output --help" thpnumactl hist --json -
expect_completion "FILES" thpnumactl hist -o ""
expect_completion "--interval" thpnumactl watch --i
expect_completion "zone-reclaim" thpnumactl help z
# budget-us: a number of microseconds, nothing to offer but --help.
expect_completion "budget-us" thpnumactl bu
expect_completion "budget" thpnumactl policy b
expect_completion "budget" thpnumactl load -p b
expect_completion "--budget-us" thpnumactl load --bu
expect_completion "" thpnumactl load -b ""
expect_completion "" thpnumactl load --budget-us=""
expect_completion "" thpnumactl budget-us ""
expect_completion "--help" thpnumactl budget-us --
expect_completion "" thpnumactl budget-us 500 ""
expect_completion "budget" thpnumactl task 412 b
expect_completion "budget" thpnumactl cgroup -z 3 /system.slice b
# -b/--budget-us of task, cgroup and run: a number, nothing to offer;
# its value is not an argument.
expect_completion "" thpnumactl task -b ""
expect_completion "" thpnumactl cgroup --budget-us=""
expect_completion "412" thpnumactl task -b 500 4
expect_completion "412" thpnumactl task --budget-us 500 -z 3 4
expect_completion "budget" thpnumactl task -b 500 412 b
expect_completion "budget" thpnumactl cgroup -b 250 /system.slice b
expect_completion "--budget-us --help" thpnumactl task --zone-reclaim 3 -
expect_completion "--zone-reclaim --help" thpnumactl cgroup --budget-us=250 -
expect_completion "" thpnumactl run -p budget -b ""
expect_completion "--zone-reclaim --user --help" thpnumactl run --policy budget --budget-us 250 -
# The bugs of the first-use review (ux-review.md section 3).
expect_completion "1 412" thpnumactl task ""
expect_completion "412" thpnumactl task -z 3 4
expect_completion "412" thpnumactl task -z reclaim 4
expect_completion "412" thpnumactl task --zone-reclaim=3 4
expect_completion "strict-local" thpnumactl task -z 3 412 s
expect_completion "" thpnumactl task 412 kernel ""
expect_completion "strict-local" thpnumactl load --policy=s
expect_completion "madvise" thpnumactl load --scope=m
expect_completion "reclaim,write" thpnumactl load --zone-reclaim=reclaim,w
expect_completion "local-then-remote" thpnumactl run --policy=l
expect_completion "" thpnumactl policy strict-local ""
expect_completion "" thpnumactl scope all ""
expect_completion "--node --output --help" thpnumactl stat --json -
expect_completion "--json --prometheus --help" thpnumactl stat --node=1 --output=f --
expect_completion "" thpnumactl zone-reclaim 3,
expect_completion "" thpnumactl zone-reclaim none,
expect_completion "reclaim,write reclaim,swap" thpnumactl zone-reclaim reclaim,
expect_completion "" thpnumactl zone-reclaim 5 ""
expect_completion "--one-header" thpnumactl watch --o
expect_completion "FILES" thpnumactl stat -o ""
expect_completion "" thpnumactl help stat ""
expect_completion "--force" thpnumactl unload --f
expect_completion "--force --help" thpnumactl unload -
expect_completion "" thpnumactl unload --force --f
expect_completion "--config --dry-run --help" thpnumactl load --policy kernel --zone-reclaim 1 --budget-us 500 --scope all --coverage all --module x.ko -
expect_completion "--budget-us --config --dry-run --help" thpnumactl load --policy kernel --zone-reclaim 1 --scope all --coverage all --module x.ko -
expect_completion "--interval --count --one-header --help" thpnumactl watch -
# compare: a --policies list, --better after --metric, then the command.
expect_completion "kernel strict-local local-then-remote budget" thpnumactl compare -p ""
expect_completion "kernel,strict-local kernel,local-then-remote kernel,budget" thpnumactl compare --policies kernel,
expect_completion "kernel,budget" thpnumactl compare --policies kernel,b
expect_completion "0 1 2 3 4 5 6 7 none" thpnumactl compare -p kernel,budget : ""
expect_completion "kernel,strict-local" thpnumactl compare --policies=kernel,s
# bash splits "local-then-remote:5" at the ":".
expect_completion "0 1 2 3 4 5 6 7 none" thpnumactl compare -p local-then-remote : ""
expect_completion "5,kernel" thpnumactl compare -p local-then-remote : 5,k
expect_completion "COMMAND@7" thpnumactl compare -p local-then-remote : 5 -- ma
expect_completion "COMMAND@5" thpnumactl compare -r 3 -- ""
expect_completion "COMMAND@2" thpnumactl compare ./bench -
expect_completion "" thpnumactl compare --b
expect_completion "--better" thpnumactl compare -m x --b
expect_completion "higher" thpnumactl compare --metric=x --better h
expect_completion "" thpnumactl compare --rounds ""
expect_completion "FILES" thpnumactl compare --svg ""
expect_completion "--metric --help" thpnumactl compare --policies kernel --rounds 3 --threshold 2 --confidence 90 --json --svg f --verbose -

# The man page says what the code does (ux-review-3 P9, P13).
man_section() {
	awk -v s="$1" '/^\.SH / { on = ($2 == s); next } on' "$SRC/thpnumactl.8"
}
if man_section LOCKDOWN | grep -q "overrides" &&
   ! man_section LOCKDOWN | grep -q "only in debugfs' tasks"; then
	ok "man page: under lockdown the overrides are listed (debugfs overrides, 0400)"
else
	not_ok "man page: under lockdown the overrides are listed (debugfs overrides, 0400)"
fi
if grep -qF '\-n ", " \-\-dry\-run' "$SRC/thpnumactl.8" ||
   grep -qF '\-n ", " \-\-one\-header' "$SRC/thpnumactl.8" ||
   grep -qF 'watch \fR[\fB\-n' "$SRC/thpnumactl.8"; then
	not_ok "man page: -n is --node only"
else
	ok "man page: -n is --node only"
fi
if grep -qF 'unload \fR[\fB\-\-force' "$SRC/thpnumactl.8"; then
	ok "man page: unload --force"
else
	not_ok "man page: unload --force"
fi

# The setting choices: the tool's usage text derives them from the
# module's lists (policy.h); the completion and the man page must offer
# the same, as bpftool's test_bpftool_synctypes.py checks its own.
# completions WORDS...: what completing the last (empty) word offers.
completions() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	_thpnumactl
	echo "${COMPREPLY[*]}"
}
for s in policy scope coverage; do
	choices=$("$THPNUMACTL" $s --help |
		sed -n "s/^Usage: thpnumactl $s \[\(.*\)\]\$/\1/p" | tr '|' ' ')
	if [ -z "$choices" ]; then
		not_ok "thpnumactl $s --help lists the choices"
		continue
	fi
	for words in "$s ''" "load --$s ''"; do
		eval "got=\$(completions thpnumactl $words)"
		if [[ "$got" == "$choices" ]]; then
			ok "completion of '$words' offers the tool's $s choices ($choices)"
		else
			not_ok "completion of '$words' offers the tool's $s choices ($choices; got '$got')"
		fi
	done
	# roff: "[\fIa\fR|\fIb\fR]", a hyphen as "\-".
	man=$(sed -n "s/^\.B $s \\\\fR\[\(.*\)\]\$/\1/p" "$SRC/thpnumactl.8" |
		sed 's/\\f[IR]//g; s/\\-/-/g' | tr '|' ' ')
	if [[ "$man" == "$choices" ]]; then
		ok "man page lists the tool's $s choices"
	else
		not_ok "man page lists the tool's $s choices ($choices; got '$man')"
	fi
done
policies=$("$THPNUMACTL" load --help |
	sed -n 's/^  -p, --policy P *//p' | tr '|' ' ')
for words in "run --policy ''" "task 412 ''"; do
	want=$policies
	[[ $words == task* ]] && want="$policies default"
	eval "got=\$(completions thpnumactl $words)"
	if [[ -n "$policies" && "$got" == "$want" ]]; then
		ok "completion of '$words' offers '$want'"
	else
		not_ok "completion of '$words' offers '$want' (got '$got')"
	fi
done

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
