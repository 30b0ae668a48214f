#!/bin/sh
# Build the Debian packages (debian/) with `dpkg-buildpackage -us -uc -b`
# from a clean export of the tree: the last commit plus the changes to
# tracked files (what a clean clone of the next commit would hold; files
# not added to git are left out). Nothing built in the checkout leaks in.
# Run as root, the build itself runs as nobody, without a network.
# usage: build.sh       the .debs end up in build/deb/
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/build/deb
version=$(sed -n 's/^THPNUMA_VERSION := //p' "$top/version.mk")
src=$out/thpnuma-$version
rm -rf "$out"
mkdir -p "$src" "$out/home"

index=$out/index
cp "$(git -C "$top" rev-parse --path-format=absolute --git-path index)" "$index"
GIT_INDEX_FILE=$index git -C "$top" add -u
tree=$(GIT_INDEX_FILE=$index git -C "$top" write-tree)
rm -f "$index"
git -C "$top" archive "$tree" | tar -x -C "$src"

cd "$src"
if [ "$(id -u)" -eq 0 ]; then
	# Rules-Requires-Root: no, so the whole build works unprivileged.
	chown -R nobody:nogroup "$out"
	nonet="unshare --net"
	$nonet true 2>/dev/null || nonet=""	# a container may forbid it
	$nonet setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env HOME="$out/home" dpkg-buildpackage -us -uc -b
else
	dpkg-buildpackage -us -uc -b
fi
ls "$out"/*.deb
