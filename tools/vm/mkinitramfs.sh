#!/bin/sh
# Build the base initramfs for one kernel: busybox, init, the module, the
# static test programs and zram.ko with its dependencies (decompressed).
# usage: mkinitramfs.sh KVER MODULE_DIR GUEST_BIN_DIR OUT.cpio
set -eu
kver=$1 kodir=$2 bindir=$3 out=$4
top=$(cd "$(dirname "$0")/../.." && pwd)
kroot=$top/.cache/kernels/$kver
moddir=$kroot/lib/modules/$kver
root=$(mktemp -d)
chmod 755 "$root"
trap 'rm -rf "$root"' EXIT

mkdir -p "$root/bin" "$root/sbin" "$root/proc" "$root/sys" "$root/dev" \
	 "$root/tests" "$root/lib" "$root/tmp" "$root/etc"
cp /bin/busybox "$root/bin/busybox"
for applet in $(/bin/busybox --list); do
	[ "$applet" = busybox ] || ln -s busybox "$root/bin/$applet"
done
cp "$top/tools/vm/init" "$root/init"
chmod +x "$root/init"
echo "root:x:0:0:root:/:/bin/sh" > "$root/etc/passwd"
echo "nobody:x:65534:65534:nobody:/:/bin/sh" >> "$root/etc/passwd"
echo "root:x:0:" > "$root/etc/group"
echo "nogroup:x:65534:" >> "$root/etc/group"
cp "$kodir"/*.ko "$root/lib/"
cp -r "$bindir"/. "$root/tests/"
# The kernel's own mm selftests, when built (tools/build/conformance-selftests.sh).
selftests=$(dirname "$out")/conformance/selftests
[ -d "$selftests" ] && cp -r "$selftests" "$root/selftests"
# Dynamically linked programs (libkmod has no static library) bring their
# shared libraries and loader along.
for f in "$root"/tests/*; do
	[ -f "$f" ] && [ -x "$f" ] || continue
	ldd "$f" 2>/dev/null | awk '/=> \// { print $3 } /^\t\// { print $1 }' |
	while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		[ -e "$root$lib" ] || cp -L "$lib" "$root$lib"
	done
done

# zram and what it depends on, dependencies first.
deps=$(awk -v m="kernel/drivers/block/zram/zram.ko" \
	'index($1, m) == 1 { sub(":", "", $1); $0 = $0; for (i = NF; i > 1; i--) print $i; print $1 }' \
	"$moddir/modules.dep")
: > "$root/lib/zram.deps"
for d in $deps; do
	base=$(basename "$d")
	case "$base" in
	*.xz) xz -dc "$moddir/$d" > "$root/lib/${base%.xz}"; base=${base%.xz} ;;
	*.zst) zstd -qdc "$moddir/$d" > "$root/lib/${base%.zst}"; base=${base%.zst} ;;
	*) cp "$moddir/$d" "$root/lib/$base" ;;
	esac
	echo "$base" >> "$root/lib/zram.deps"
done

(cd "$root" && find . | cpio -o -H newc --quiet) > "$out"
