#!/bin/sh
# The guest side of tools/vm/profile.py: only one mTHP size on, the module
# loaded (PROFILE_MODULE=1, kernel policy) or absent, one warm-up run, the
# kernel's text symbols, then faults of that size until the host's gdb has
# traced what it wants and stops the guest.
T=/sys/kernel/mm/transparent_hugepage
size=${PROFILE_KIND#mthp}
if [ ! -d "$T/hugepages-${size}kB" ]; then
	echo "PROFILE-ERROR no ${size} KiB mTHP on this kernel"
	exit 1
fi
echo madvise > $T/enabled
for d in "$T"/hugepages-*kB; do echo never > "$d/enabled"; done
echo madvise > "$T/hugepages-${size}kB/enabled"
if [ "$PROFILE_MODULE" = 1 ] && ! insmod /lib/thpnuma.ko; then
	echo "PROFILE-ERROR insmod failed"
	exit 1
fi
thp-fault-bench --region 8M --kinds "$PROFILE_KIND" --passes 2 > /dev/null
echo PROFILE-KALLSYMS-BEGIN
grep ' [tT] ' /proc/kallsyms
echo PROFILE-KALLSYMS-END
while :; do
	thp-fault-bench --region 8M --kinds "$PROFILE_KIND" --passes 1 > /dev/null
done
