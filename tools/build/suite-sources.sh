#!/bin/sh
# The apt sources of one Debian suite, on the mirrors the machine's own
# sources name, for tools/build/aptconf.sh (this machine's private apt view)
# and tools/build/mkchroot.sh (the chroot's). bullseye-backports is archived
# (no longer on the mirrors), so bullseye has no backports line.
# usage: suite-sources.sh SUITE [OPTIONS]    OPTIONS: e.g. "[signed-by=...]"
set -eu
suite=${1:?usage: suite-sources.sh SUITE [OPTIONS]}
opts=${2:+$2 }
src=/etc/apt/sources.list.d/debian.sources
mirror=$(awk '/^URIs:/ { print $2; exit }' "$src")
secmirror=$(awk '/^URIs:/ { u = $2 } END { print u }' "$src")
[ -n "$mirror" ] && [ -n "$secmirror" ] || {
	echo "suite-sources: no URIs in $src" >&2; exit 1; }
case $suite in
sid) suites=sid ;;
bullseye) suites="bullseye bullseye-updates" ;;
*) suites="$suite $suite-updates $suite-backports" ;;
esac
for s in $suites; do
	echo "deb $opts$mirror $s main"
done
[ "$suite" = sid ] || echo "deb $opts$secmirror $suite-security main"
