#!/bin/sh
# Per-cgroup policy on cgroup v2, as a fleet uses it: a systemd service
# (/system.slice/db.service), a docker container scope and a Kubernetes
# pod's container, built here with mkdir since the guest runs no systemd.
# Tasks that were in the cgroup before the setting, tasks that join later
# through cgroup.procs (as docker exec or kubectl exec do), tasks in
# cgroups below the one with the setting, and a task moved between
# cgroups mid-life each fault their THPs under the setting that applies:
# the per-policy counters say under which, exactly. A process's own
# override wins over its cgroup's; a removed cgroup's setting goes with
# it. Bad input changes nothing.
. /tests/lib.sh
T=/tests/thpnumactl
S=/sys/kernel/thpnuma
CG=/sys/fs/cgroup
out=/tmp/cgroups.out
err=/tmp/cgroups.err
DB=/system.slice/db.service
DOCKER=/system.slice/docker-4c1d5e6f.scope
POD=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod6b0e.slice
CTR=$POD/cri-containerd-9a8b7c.scope

tap_plan 64
[ -e $CG/cgroup.controllers ] || mount -t cgroup2 none $CG ||
	{ skip "cgroup v2" "cannot mount cgroup2"; tap_done; }
for c in $DB $DOCKER $CTR /system.slice/tmp.service /other.slice; do
	mkdir -p $CG$c
done
check "module loads" thpnuma_load policy=kernel

# policy_col POLICY NAME: one policy's counter, from the policies file.
policy_col() {
	awk -v p="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == p { print $col[c] }' $S/policies
}
# faulted POLICY: the THP faults that POLICY placed or let fall back.
faulted() {
	echo $(( $(policy_col "$1" thp_local) + $(policy_col "$1" thp_remote) +
		$(policy_col "$1" thp_fallback) ))
}
# counted POLICY N: since the last reset, exactly N THP faults were
# decided by POLICY, all by a setting other than the global one, and none
# by any other policy.
counted() {
	_all=0
	for _p in kernel strict-local local-then-remote; do
		_all=$((_all + $(faulted $_p)))
	done
	_f=$(faulted "$1")
	_o=$(policy_col "$1" by_override)
	[ "$_f" = "$2" ] && [ "$_o" = "$2" ] && [ "$_all" = "$2" ] && return 0
	diag "$1: $_f faults, $_o by a setting, $_all in all; expected $2"
	return 1
}
# cg_row CGROUP: CGROUP's per-cgroup counters, "local remote fallback
# passthrough alloc_ns", zeros without a row; cg_hist CGROUP: its
# histograms' "count sum_ns" summed over the outcomes; all_cgroups: every
# row's faults.
cg_row() {
	awk -v p="$1" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == p { r = $col["thp_local"] " " $col["thp_remote"] " " $col["thp_fallback"] " " \
			$col["passthrough"] " " $col["alloc_ns"] }
		END { print (r == "" ? "0 0 0 0 0" : r) }' $S/cgroup_stats
}
cg_hist() {
	awk -v p="$1" '$1 == p { n += $3; t += $4 } END { print n + 0, t + 0 }' $S/cgroup_hist
}
all_cgroups() {
	awk 'NR > 1 { n += $2 + $3 + $4 + $5 } END { print n + 0 }' $S/cgroup_stats
}
# cg_counted CGROUP N: since the last reset, CGROUP's setting decided
# exactly N THP faults (placed or fallen back), no other cgroup's any, and
# its histograms hold the same N faults and the same time as alloc_ns.
cg_counted() {
	set -- "$1" "$2" $(cg_row "$1")
	_h=$(cg_hist "$1")
	_all=$(all_cgroups)
	[ $(($3 + $4 + $5)) = "$2" ] && [ "$_h" = "$2 $7" ] && [ "$_all" = "$2" ] && return 0
	diag "$1: local $3 remote $4 fallback $5 passthrough $6 alloc_ns $7, histograms '$_h', all cgroups $_all; expected $2"
	return 1
}
reset() { echo 1 > $S/reset; }
# in_cg CGROUP CMD...: run CMD inside CGROUP, which it joins through
# cgroup.procs; its PID in /tmp/cg.pid.
in_cg() {
	_cg=$1
	shift
	sh -c 'echo $$ > "$0/cgroup.procs" && echo $$ > /tmp/cg.pid && exec "$@"' \
		"$CG$_cg" "$@"
}
# no_dying CGROUP: no removed cgroup below CGROUP is still held (a while).
no_dying() {
	_i=0
	while grep -q "nr_dying_descendants [1-9]" $CG$1/cgroup.stat && [ $_i -lt 300 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	grep -qx "nr_dying_descendants 0" $CG$1/cgroup.stat
}

# ---- a systemd service ---------------------------------------------------
mkfifo /tmp/cg.go
in_cg $DB sh -c 'read x < /tmp/cg.go; exec /tests/thp-touch 16' > /dev/null &
before=$!
check "a policy is set on $DB" sh -c "$T cgroup $DB strict-local > $out 2> $err"
check "and listed" sh -c "$T cgroups | grep -q '^strict-local  *global  *global  *$DB\$'"
check "sysfs lists it" grep -qx "$DB strict-local - -" $S/cgroups
check "thpnumactl cgroup shows it" sh -c "$T cgroup $DB | grep -qx '$DB strict-local zone_reclaim=global budget_us=global'"
reset
echo go > /tmp/cg.go
wait $before
check "a task in the service before the setting faults under it" counted strict-local 8
check "counted in the service's counters and histograms" cg_counted $DB 8
reset
in_cg $DB /tests/thp-touch 16 > /dev/null
check "a task that joins later faults under it" counted strict-local 8
check "counted in the service's counters" cg_counted $DB 8
reset
check "reset zeroes the per-cgroup counters" test "$(cg_row $DB) $(cg_hist $DB)" = "0 0 0 0 0 0 0"
in_cg $DB /tests/thp-touch 16 mempolicy > /dev/null
check "a task with a mempolicy: passthrough, in the service's counters" \
	test "$(cg_row $DB) $(cg_hist $DB)" = "0 0 0 8 0 0 0"
reset
in_cg /other.slice /tests/thp-touch 16 > /dev/null
check "a task in another cgroup faults under the global policy" \
	test "$(faulted kernel)" = 8 -a "$(policy_col kernel by_override)" = 0
check "and in no cgroup's counters" test "$(all_cgroups)" = 0

mkdir "$CG/system.slice/serial\\x2dgetty.service"
check "a name with systemd's escapes takes a setting" \
	sh -c "$T cgroup '/system.slice/serial\\x2dgetty.service' kernel > $out 2> $err &&
		grep -qxF '/system.slice/serial\\x2dgetty.service kernel - -' $S/cgroups"

# ---- a docker container scope, set by its directory ----------------------
check "a policy is set by directory with a zone_reclaim" \
	sh -c "$T cgroup -z 1 $CG$DOCKER local-then-remote > $out 2> $err"
check "the path is the cgroup's" grep -qx "$DOCKER local-then-remote 1 -" $S/cgroups
reset
in_cg $DOCKER /tests/thp-touch 16 > /dev/null
check "an exec into the container faults under it" counted local-then-remote 8
check "counted in the container's counters" cg_counted $DOCKER 8
check "thpnumactl cgroups --stat shows them" \
	sh -c "$T cgroups --stat | awk -v p=$DOCKER '\$NF == p { n = \$1 + \$2 + \$3 } END { exit n != 8 }'"
# A budget of its own: the container's faults decide with it.
TR=/sys/kernel/tracing
check "a setting takes a budget_us" sh -c "echo '$DOCKER budget - 33' > $S/cgroups"
check "and lists it" grep -qx "$DOCKER budget - 33" $S/cgroups
echo > $TR/trace
echo 1 > $TR/tracing_on
echo 1 > $TR/events/thpnuma/thp_fault/enable
in_cg $DOCKER /tests/thp-touch 16 > /dev/null
echo 0 > $TR/events/thpnuma/thp_fault/enable
check "the container's THP faults decide with it" \
	test "$(grep -c 'policy=budget .*override=1 .*order=9 .*budget_us=33 ' $TR/trace)" = 8
echo "$DOCKER local-then-remote 1" > $S/cgroups

# ---- a Kubernetes pod: the pod's setting covers its containers ------------
check "a policy is set on the pod" sh -c "$T cgroup $POD strict-local > $out 2> $err"
check "the container shows the pod's" \
	sh -c "$T cgroup $CTR | grep -qx '$CTR strict-local zone_reclaim=global budget_us=global (from $POD)'"
reset
in_cg $CTR /tests/thp-touch 16 > /dev/null
check "a task in the container faults under the pod's policy" counted strict-local 8
check "counted in the pod's counters" cg_counted $POD 8
check "a setting on the container" sh -c "$T cgroup $CTR local-then-remote > $out 2> $err"
reset
in_cg $CTR /tests/thp-touch 16 > /dev/null
check "wins over the pod's" counted local-then-remote 8
check "and counts in the container's, not the pod's" cg_counted $CTR 8
check "clearing it" sh -c "$T cgroup $CTR default > $out 2> $err"
check "leaves the pod's" sh -c "! grep -q '^$CTR ' $S/cgroups && grep -qx '$POD strict-local - -' $S/cgroups"

# ---- precedence and moves --------------------------------------------------
reset
$T run -p local-then-remote -- sh -c 'echo $$ > "$0/cgroup.procs" && exec /tests/thp-touch 16' \
	"$CG$DB" > /dev/null
check "a process's own override wins over its cgroup's" counted local-then-remote 8
check "its faults count in no cgroup's counters" test "$(all_cgroups)" = 0
rm -f /tmp/cg.moved /tmp/cg.pid
reset
in_cg $DB /tests/thp-touch 16 "" /tmp/cg.moved > /tmp/cg.touch &
i=0
while ! grep -q "^faulted" /tmp/cg.touch && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
check "a task faults under its first cgroup" counted strict-local 8
check "counted in the first cgroup's counters" cg_counted $DB 8
cat /tmp/cg.pid > $CG$DOCKER/cgroup.procs
reset
touch /tmp/cg.moved
wait
check "moved to another, it faults under that one's" counted local-then-remote 8
check "counted in that one's counters" cg_counted $DOCKER 8

# ---- a removed cgroup's setting goes with it -------------------------------
check "a policy is set on a cgroup" \
	sh -c "$T cgroup /system.slice/tmp.service local-then-remote > $out 2> $err"
check "the cgroup is removed" rmdir $CG/system.slice/tmp.service
# Unlisted, the module lets it go within its prune interval (10 s).
check "the module lets the removed cgroup go" no_dying /system.slice
check "its setting is no longer listed" sh -c "! grep -q tmp.service $S/cgroups"
check "nor its counters" sh -c "! grep -q tmp.service $S/cgroup_stats $S/cgroup_hist"
mkdir $CG/system.slice/tmp.service
check "a new cgroup at its path has no setting" \
	sh -c "$T cgroup /system.slice/tmp.service | grep -qx '/system.slice/tmp.service default'"
reset
in_cg /system.slice/tmp.service /tests/thp-touch 16 > /dev/null
check "and faults under the global policy" \
	test "$(faulted kernel)" = 8 -a "$(policy_col kernel by_override)" = 0

# ---- bad input changes nothing ----------------------------------------------
cp $S/cgroups /tmp/cg.before
run cgroup /no/such.slice strict-local
check "a path that is no cgroup is refused" \
	sh -c "[ $rc = 1 ] && grep -q 'no cgroup /no/such.slice' $err"
mkdir -p /tmp/v1
if mount -t cgroup -o none,name=thpnumatest cgroup /tmp/v1 2>/dev/null; then
	mkdir -p /tmp/v1/job
	run cgroup /tmp/v1/job strict-local
	check "a cgroup v1 hierarchy is refused" \
		sh -c "[ $rc = 1 ] && grep -q 'cgroup v1' $err"
	rmdir /tmp/v1/job
	umount /tmp/v1
else
	skip "a cgroup v1 hierarchy is refused" "cannot mount a named v1 hierarchy"
fi
rmdir $CG/other.slice
check "a removed cgroup is refused by the module" \
	sh -c "! echo '/other.slice kernel' > $S/cgroups && dmesg | grep -q 'cgroups: /other.slice: no such cgroup'"
for bad in "relative kernel" "/a//b kernel" "$DB/.. kernel" "$DB strict_local" "$DB kernel 8" "$DB budget 7 0" "$DB budget - 1000001"; do
	check "malformed '$bad' refused" sh -c "! printf '%s' '$bad' > $S/cgroups"
done
# The initramfs root is 0700: let nobody reach /bin/sh and /tests.
chmod 755 /
su -s /bin/sh nobody -c "echo '$DB kernel' > $S/cgroups" > $out 2> $err
check "a write as nobody is refused" grep -q "Permission denied" $err
su -s /bin/sh nobody -c "$T cgroup $DB kernel" > $out 2> $err
check "and thpnumactl says it needs root" grep -q "root" $err
su -s /bin/sh nobody -c "cat $S/cgroup_stats $S/cgroup_hist" > $out 2> $err
check "nobody reads the per-cgroup counters and histograms" \
	sh -c "grep -q '^$DB [0-9]' $out && [ \$(grep -c '^$DB ' $out) = 4 ]"
check "the settings are unchanged" cmp -s /tmp/cg.before $S/cgroups

# ---- the limit, and unloading with settings ----------------------------------
check "module unloads with settings present" thpnuma_unload
rmdir $CG$DOCKER $CG$CTR
released() { no_dying /system.slice && no_dying /kubepods.slice; }
check "and lets their cgroups go" released
check "module loads with max_cgroups=2" thpnuma_load max_cgroups=2
$T cgroup $DB strict-local > /dev/null
$T cgroup $POD strict-local > /dev/null
run cgroup /system.slice local-then-remote
check "the entry past the limit is refused" \
	sh -c "[ $rc = 1 ] && grep -q 'max_cgroups=2' $err"
check "and the table keeps its two" test "$(wc -l < $S/cgroups)" = 2
check "module unloads" thpnuma_unload
tap_done
