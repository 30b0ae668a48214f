#!/bin/sh
# The settings file (/etc/thpnuma.conf) against the real module: load
# applies its global settings and per-cgroup settings, apply applies it
# again, and after the module is unloaded and loaded again the cgroups'
# settings come back from it. A cgroup that does not exist yet is skipped
# until an apply after it appears; a bad line is named as FILE:LINE and
# changes nothing, loaded or not.
. /tests/lib.sh
T=/tests/thpnumactl
KO=/lib/thpnuma.ko
S=/sys/kernel/thpnuma
P=/sys/module/thpnuma/parameters
CG=/sys/fs/cgroup
C=/tmp/thpnuma.conf
out=/tmp/settings.out
err=/tmp/settings.err
DB=/system.slice/db.service
LATER=/system.slice/later.service
POD=/kubepods.slice/kubepods-burstable.slice

tap_plan 27
[ -e $CG/cgroup.controllers ] || mount -t cgroup2 none $CG ||
	{ skip "cgroup v2" "cannot mount cgroup2"; tap_done; }
mkdir -p $CG$DB $CG$POD

# params: the four settings as the module shows them.
params() { echo "$(cat $P/policy) $(cat $P/zone_reclaim) $(cat $P/scope) $(cat $P/coverage)"; }
# listed LINES: the module's cgroups file is exactly LINES (any order).
listed() {
	_want=$(printf "$1" | sort)
	_got=$(sort $S/cgroups)
	[ "$_got" = "$_want" ] && return 0
	diag "cgroups file: $(echo $_got); expected $(echo $_want)"
	return 1
}
# faulted POLICY: THP faults decided by POLICY through a setting.
faulted() {
	awk -v p="$1" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == p { print $col["by_override"] }' $S/policies
}

cat > $C <<EOF
# The fleet's settings
policy local-then-remote
zone_reclaim reclaim,swap
coverage pmd

cgroup $DB strict-local        # the database
cgroup $POD budget 1 400         # a budget of its own
cgroup $LATER kernel
EOF

# ---- load applies the file ------------------------------------------------
run load --module $KO --config $C
check "load with the settings file" test $rc = 0
check "its global settings are the module's" \
	test "$(params)" = "local-then-remote 5 all pmd"
check "its cgroups' settings are set" listed "$DB strict-local - -\n$POD budget 1 400"
check "a cgroup that does not exist yet gets a note naming its line" \
	grep -qF "note: $C:8: no cgroup $LATER on the cgroup v2 hierarchy yet" $err
echo 1 > $S/reset
sh -c 'echo $$ > "$0/cgroup.procs" && exec /tests/thp-touch 8' $CG$DB > /dev/null
check "a task in the service faults under the file's setting" \
	test "$(faulted strict-local)" = 4 -a "$(faulted local-then-remote)" = 0

# ---- apply applies it again ---------------------------------------------
mkdir $CG$LATER
echo kernel > $P/policy
run apply --config $C
check "apply, once the cgroup exists" test $rc = 0 -a ! -s $err
check "sets that cgroup too" \
	listed "$DB strict-local - -\n$POD budget 1 400\n$LATER kernel - -"
check "and the global settings again" test "$(params)" = "local-then-remote 5 all pmd"
check "apply prints what it set" grep -qx "cgroup $LATER kernel" $out
rmdir $CG$LATER
mkdir $CG$LATER
check "a cgroup made again at that path has no setting" \
	listed "$DB strict-local - -\n$POD budget 1 400"
run apply --config $C
check "until the next apply" \
	listed "$DB strict-local - -\n$POD budget 1 400\n$LATER kernel - -"

# ---- after a reload of the module ------------------------------------------
run unload --force
check "unload --force" test $rc = 0
run load --module $KO --config $C
check "load again" test $rc = 0 -a ! -s $err
check "the cgroups' settings come back from the file" \
	listed "$DB strict-local - -\n$POD budget 1 400\n$LATER kernel - -"
check "and the global ones" test "$(params)" = "local-then-remote 5 all pmd"

# ---- an edited file -----------------------------------------------------------
sed -i "s|^cgroup $DB strict-local.*|cgroup $DB local-then-remote reclaim|; s/^policy .*/policy strict-local/" $C
run apply --config $C
check "apply of an edited file" test $rc = 0
check "changes what the edit changed" \
	listed "$DB local-then-remote 1 -\n$POD budget 1 400\n$LATER kernel - -"
check "the global policy too" test "$(params)" = "strict-local 5 all pmd"

# ---- bad lines change nothing ---------------------------------------------
cp $S/cgroups /tmp/settings.before
before=$(params)
sed "3s/.*/zone_reclaim reclaim,swop/" $C > /tmp/bad.conf
echo "cgroup $DB strict-local" >> /tmp/bad.conf
run apply --config /tmp/bad.conf
check "apply of a bad file: exit 2" test $rc = 2
check "names each bad line" \
	sh -c "grep -qF '/tmp/bad.conf:3: invalid zone_reclaim' $err && grep -qF '/tmp/bad.conf:9: cgroup $DB is set again (first on line 6)' $err"
check "and applies nothing" \
	sh -c "cmp -s /tmp/settings.before $S/cgroups && [ '$(params)' = '$before' ]"
# The initramfs root is 0700: let nobody reach /bin/sh and /tests.
chmod 755 /
su -s /bin/sh nobody -c "$T apply --config $C" > $out 2> $err
check "apply as nobody needs root and changes nothing" \
	sh -c "grep -q root $err && cmp -s /tmp/settings.before $S/cgroups"
run unload --force
run load --module $KO --config /tmp/bad.conf
check "load of a bad file: exit 2, naming the line" \
	sh -c "[ $rc = 2 ] && grep -qF '/tmp/bad.conf:3:' $err"
check "and nothing is loaded" test ! -e /sys/module/thpnuma

# ---- load's options win over the file's -------------------------------------
run load --module $KO --config $C --policy kernel --coverage all
check "load --policy with the file" test $rc = 0
check "the command line's settings win, the file's others stay" \
	test "$(params)" = "kernel 5 all all"
run unload --force
check "module unloads" test $rc = 0
tap_done
