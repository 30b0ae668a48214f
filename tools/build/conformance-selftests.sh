#!/bin/sh
# Build the kernel's own THP/NUMA mm selftests, statically, from Debian's
# linux-source tarball, for the conformance test (tests/guest/conformance.sh).
# Kernels this machine builds: the installed linux-source package. Others:
# the linux-source package of their suite (tools/build/kernel-suite.sh),
# downloaded through its private apt view into .cache/debs, not installed.
# usage: build.sh KVER OUTDIR
# OUTDIR/selftests/ gets the binaries and LIST: "NAME TIMEOUT ARGS..." lines.
set -eu
kver=$1 out=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
ver=$(echo "$kver" | cut -d. -f1,2)
suite=$("$top/tools/build/kernel-suite.sh" "$kver")
builder=$("$top/tools/build/kernel-suite.sh" --builder "$kver")
src=$out/src/linux-source-$ver
rm -rf "$out/src" "$out/selftests"
mkdir -p "$out/src" "$out/selftests" "$out/uapi/linux" "$out/uapi/asm-generic"
if [ "$builder" = host ]; then
	tarball() { cat "/usr/src/linux-source-$ver.tar.xz"; }
else
	debs=$top/.cache/debs
	mkdir -p "$debs"
	if ! ls "$debs/linux-source-${ver}_"*.deb >/dev/null 2>&1; then
		conf=$("$top/tools/build/aptconf.sh" "$suite")
		(cd "$debs" && apt-get -c "$conf" -q download "linux-source-$ver")
	fi
	deb=$(ls "$debs/linux-source-${ver}_"*.deb | tail -n 1)
	tarball() {
		dpkg-deb --fsys-tarfile "$deb" |
			tar -xO "./usr/src/linux-source-$ver.tar.xz"
	}
fi
# 5.10 and 6.1 keep them in selftests/vm, later kernels in selftests/mm;
# 5.10 has no mm/gup_test.h (gup_benchmark.c carries its own).
gup_test="linux-source-$ver/mm/gup_test.h"
[ "$ver" = 5.10 ] && gup_test=
tarball | tar -xJ -C "$out/src" --wildcards --no-wildcards-match-slash \
	"linux-source-$ver/tools/testing/selftests/[vm]m/*" \
	"linux-source-$ver/tools/testing/selftests/kselftest*.h" \
	"linux-source-$ver/include/uapi/linux/*" \
	"linux-source-$ver/include/uapi/asm-generic/*" $gup_test
dir=$src/tools/testing/selftests/mm
[ -d "$dir" ] || dir=$src/tools/testing/selftests/vm

# The few uapi headers newer than the build machine's, made installable as
# headers_install would (no __user and friends); the rest from the system.
for h in linux/fs.h linux/mman.h asm-generic/mman-common.h linux/userfaultfd.h \
	 linux/memfd.h; do
	[ -f "$src/include/uapi/$h" ] || continue
	sed -E 's/([[:space:](])(__user|__force|__iomem)[[:space:]]/\1/g; s/__attribute_const__//g' \
		"$src/include/uapi/$h" > "$out/uapi/$h"
done
: > "$out/uapi/local_config.h"	# cow.c: built without liburing
: > "$out/uapi/local_config.h_gen"	# (its name from 7.x on)

# name, timeout (s), arguments: sized for TCG (see README "Safety tests").
# A name's part before "@" is the program: khugepaged runs once per mode.
# 5.10 has no split_huge_page_test nor migration test, and its
# transhuge-stress runs until stopped, as 6.1's does: at 5 s, as long as
# 7.x's -d 5. Shmem THP: khugepaged all:shmem (6.1 on),
# split_huge_page_test (tmpfs huge=); tmpfs huge=advise: khugepaged
# all:file on the mount conformance.sh makes; mTHP (6.8 on): cow,
# khugepaged -s (anon and shmem sizes) and -c (mTHP collapse). They set
# and restore their own sysfs.
# Left out: 7.x's folio_split_race_test (shmem splits under 16 readers),
# about 1 min per run on an idle host and over 4 on a busy one, five runs
# per boot: it alone took .ci/run past 60 minutes.
case $ver in
5.10) tests="transhuge-stress:5:64 khugepaged:600 compaction_test:300" ;;
6.1) tests="transhuge-stress:5:64 split_huge_page_test:900 khugepaged:600
	khugepaged@shmem:300:all:shmem khugepaged@tmpfs:300:all:file,/tmp/thp-tmpfs
	migration:300 compaction_test:300" ;;
*) tests="transhuge-stress:60:-d,5,64 split_huge_page_test:900 khugepaged:600
	khugepaged@shmem:300:all:shmem khugepaged@tmpfs:300:all:file,/tmp/thp-tmpfs
	khugepaged@mthp:300:-s,2
	khugepaged@shmem-mthp:300:-s,4,all:shmem
	khugepaged@mthp-collapse:300:-c,4,mthp_khugepaged:anon
	prctl_thp_disable:120 soft-dirty:120
	migration:300 compaction_test:300 cow:900" ;;
esac
helpers=""
for h in vm_util.c thp_settings.c hugepage_settings.c; do	# 7.x: hugepage_
	[ -f "$dir/$h" ] && helpers="$helpers $dir/$h"
done
: > "$out/selftests/LIST"
for t in $tests; do
	name=${t%%:*} rest=${t#*:}
	limit=${rest%%:*} args=$(echo "${rest#"$limit"}" | sed 's/^://; s/,/ /g')
	prog=${name%%@*}
	[ -f "$out/selftests/$prog" ] ||
	${CC:-cc} -O2 -w -static -D_GNU_SOURCE -include sys/uio.h -include "$dir/../kselftest.h" \
		-I"$out/uapi" -I"$dir/.." -I"$dir" -o "$out/selftests/$prog" \
		"$dir/$prog.c" $helpers -lnuma -lpthread -lrt
	echo "$name $limit $args" >> "$out/selftests/LIST"
done
