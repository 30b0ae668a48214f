#!/bin/sh
# make install, then make uninstall, into a DESTDIR: uninstall removes
# exactly what install put there and nothing else. Builds the module for
# the first pinned kernel whose headers are installed, in a copy of the
# tree (kbuild writes objects next to the sources). Prints TAP lines.
. "$(dirname "$0")/tap.sh"

kver=""
for k in $(sed -n 's/^SUPPORTED_KERNELS := //p' "$top/kernels.mk"); do
	if [ -d "/lib/modules/$k/build" ]; then
		kver=$k
		break
	fi
done
if [ -z "$kver" ]; then
	echo "ok 1 - make install/uninstall # SKIP no headers for a pinned kernel"
	exit 0
fi

mkdir "$work/src"
cp -r "$top/Makefile" "$top/Kbuild" "$top/version.mk" "$top/kernels.mk" \
	"$top/module" "$top/userspace" "$top/doc" "$work/src/"
mkdir -p "$work/src/tests"
cp -r "$top/tests/tests.mk" "$top/tests/include" "$work/src/tests/"
mkdir -p "$work/src/tools/vm"
cp "$top/tools/vm/vm.mk" "$work/src/tools/vm/"
rm -rf "$work/src/module/"*.o "$work/src/module/"*.ko "$work/src/module/.*.cmd"
root=$work/root
# Something install did not put there, which uninstall must leave.
mkdir -p "$root/lib/modules/$kver/extra"
echo other > "$root/lib/modules/$kver/extra/other.ko"

if make -s -C "$work/src" install DESTDIR="$root" KVER="$kver" \
	PREFIX=/usr/local > "$work/log" 2>&1; then
	ok "make install DESTDIR=... KVER=$kver"
else
	not_ok "make install DESTDIR=... KVER=$kver"
	tail -20 "$work/log" | sed 's/^/# /'
fi
(cd "$root" && find . -type f | sort) > "$work/installed"
for f in "./lib/modules/$kver/extra/thpnuma.ko" ./usr/local/sbin/thpnumactl \
	./usr/local/share/man/man8/thpnumactl.8 ./usr/local/share/man/man7/thpnuma.7 \
	./usr/local/share/bash-completion/completions/thpnumactl \
	./usr/local/lib/systemd/system/thpnuma.service \
	./usr/local/lib/systemd/system/thpnuma-exporter.service \
	./usr/local/lib/systemd/system/thpnuma-exporter.timer; do
	if grep -q "^$f" "$work/installed"; then
		ok "install put ${f#.}"
	else
		not_ok "install put ${f#.}"
	fi
done
if grep -qx "ExecStart=/usr/local/sbin/thpnumactl stat --prometheus -o .*" \
	"$root/usr/local/lib/systemd/system/thpnuma-exporter.service"; then
	ok "the exporter service runs the installed thpnumactl"
else
	not_ok "the exporter service runs the installed thpnumactl"
fi
if grep -qx "ExecStart=/usr/local/sbin/thpnumactl load" "$root/usr/local/lib/systemd/system/thpnuma.service" &&
   grep -qx "ExecReload=/usr/local/sbin/thpnumactl apply" "$root/usr/local/lib/systemd/system/thpnuma.service"; then
	ok "thpnuma.service loads and applies with the installed thpnumactl"
else
	not_ok "thpnuma.service loads and applies with the installed thpnumactl"
fi
if make -s -C "$work/src" uninstall DESTDIR="$root" KVER="$kver" \
	PREFIX=/usr/local > "$work/log" 2>&1; then
	ok "make uninstall DESTDIR=... KVER=$kver"
else
	not_ok "make uninstall DESTDIR=... KVER=$kver"
	sed 's/^/# /' "$work/log"
fi
left=$(cd "$root" && find . -type f | sort | tr '\n' ' ')
if [ "$left" = "./lib/modules/$kver/extra/other.ko " ]; then
	ok "uninstall removes what install put, and only that"
else
	not_ok "uninstall removes what install put, and only that (left: $left)"
fi
tap_finish
