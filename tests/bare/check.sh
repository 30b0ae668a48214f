#!/bin/bash
# The README's quick start on a bare Debian 12. A minimal bookworm
# (debootstrap --variant=minbase, made once in .cache/chroots/bookworm-minbase
# and never changed after), an overlay on it for this run (build/bare),
# the host's apt sources, a clean export of HEAD in /root/thpnuma, then the
# commands of README.md's first sh block up to `make demo`, as written, as
# root. Boots one VM under TCG (no /dev/kvm in the chroot). Prints each
# command's wall time, CPU time and the disk it added.
# With --deps, instead of `make demo`: the downloads and installs alone
# (CPU-light), for demo and then for check, and no VM. Either way the
# kernel images installed (dpkg -l 'linux-image*') must be the same after
# as before: no setup step may change what the machine boots.
# usage: tests/bare/check.sh [--deps]   (root; slow, not part of make check)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
base=$top/.cache/chroots/bookworm-minbase
run=$top/build/bare
root=$run/root
[ "$(id -u)" -eq 0 ] || { echo "bare: run as root" >&2; exit 1; }
src=/etc/apt/sources.list.d/debian.sources
mirror=$(awk '/^URIs:/ { print $2; exit }' "$src")

if [ ! -f "$base/.complete" ]; then
	echo "bare: debootstrap --variant=minbase bookworm into $base" >&2
	rm -rf "$base.tmp"
	debootstrap --variant=minbase bookworm "$base.tmp" "$mirror" >&2
	touch "$base.tmp/.complete"
	mv "$base.tmp" "$base"
fi

cleanup() {
	umount "$root/proc" 2>/dev/null || true
	umount "$root/dev/pts" 2>/dev/null || true
	umount "$root" 2>/dev/null || true
}
trap cleanup EXIT
cleanup
rm -rf "$run"
mkdir -p "$run/upper" "$run/work" "$root" "$run/logs"
mount -t overlay overlay -o "lowerdir=$base,upperdir=$run/upper,workdir=$run/work" "$root"
# What the machine would have: DNS and the same Debian archive as this host.
cp /etc/resolv.conf "$root/etc/resolv.conf"
rm -f "$root/etc/apt/sources.list"
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] && cp "$f" "$root$f"
done
# And how it reaches that archive: a mirror's Acquire:: settings (e.g. a
# frozen mirror's Check-Valid-Until "false", without which sid's expired
# Release is refused).
for f in /etc/apt/apt.conf.d/*; do
	[ -f "$f" ] && grep -q '^Acquire::' "$f" && cp "$f" "$root$f"
done
git -C "$top" archive --prefix=thpnuma/ HEAD | tar -x -C "$root/root"
mount -t proc proc "$root/proc"
mount -t devpts -o newinstance devpts "$root/dev/pts"

# The quick start: the first ```sh block of README.md, up to `make demo`.
mapfile -t cmds < <(awk '/^```sh/ { f = 1; next } f && /^```/ { exit }
	f { sub(/[ \t]*#.*/, ""); if ($0 != "") print; if ($0 ~ /^make demo/) exit }' \
	"$root/root/thpnuma/README.md")
if [ "${1:-}" = --deps ]; then
	cmds=("${cmds[0]}" "tools/build/install-deps.sh demo" "tools/build/install-deps.sh"
		'for k in $(sed -n "s/^SUPPORTED_KERNELS := //p" kernels.mk); do tools/vm/fetch-kernel.sh $k; done')
fi
kib() { du -sk "$run/upper" | cut -f1; }
images() { chroot "$root" dpkg-query -W -f '${Package} ${Status}\n' 'linux-image*' 2>/dev/null |
	grep ' installed$' || true; }
images_before=$(images)
rc=0 n=0
for cmd in "${cmds[@]}"; do
	n=$((n + 1))
	before=$(kib)
	echo "bare: [$n] $cmd" >&2
	set +e
	/usr/bin/time -v -o "$run/logs/$n.time" \
		chroot "$root" /bin/bash -ec "cd /root/thpnuma && $cmd" 2>&1 |
		tee "$run/logs/$n.log"
	rc=${PIPESTATUS[0]}
	set -e
	wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$run/logs/$n.time")
	cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.0f", s }' \
		"$run/logs/$n.time")
	echo "bare: [$n] exit $rc, wall $wall, CPU ${cpu} s, disk +$(( ($(kib) - before) / 1024 )) MiB: $cmd" |
		tee -a "$run/logs/summary" >&2
	[ "$rc" -eq 0 ] || break
done
{
	echo "bare: disk: whole overlay $(( $(kib) / 1024 )) MiB, of which"
	# One du each: du counts a directory once across its arguments.
	for d in root/thpnuma root/thpnuma/.cache root/thpnuma/build \
		var/cache/apt/archives var/lib/apt/lists; do
		[ -d "$root/$d" ] && echo "bare:   $(du -sh "$root/$d" | cut -f1)	/$d"
	done
} | tee -a "$run/logs/summary" >&2
images_after=$(images)
if [ "$images_before" != "$images_after" ]; then
	echo "bare: FAILED: the setup installed a kernel image, which would change what the machine boots:" >&2
	diff <(echo "$images_before") <(echo "$images_after") | sed 's/^/bare:   /' >&2
	rc=1
else
	echo "bare: ok: no kernel image installed (dpkg -l 'linux-image*' unchanged: ${images_before:-none})" >&2
fi
if [ "$rc" -eq 0 ] && { [ "${1:-}" = --deps ] || grep -q "^demo done" "$run/logs/$n.log"; }; then
	echo "bare: ok: README quick start ran on a minimal bookworm" >&2
else
	echo "bare: FAILED (logs in $run/logs)" >&2
	exit 1
fi
