#!/bin/sh
# A private apt view of trixie, trixie-security and trixie-backports for the
# kernels the host's own suites do not carry: apt reads only what is under
# .cache/apt (the machine's /etc/apt is never read for sources nor edited).
# The mirror is the one the system's sources already name.
# usage: aptconf.sh      prints the apt.conf path; updates the lists once
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=$top/.cache/apt
conf=$dir/apt.conf
if [ ! -f "$dir/updated" ]; then
	src=/etc/apt/sources.list.d/debian.sources
	mirror=$(awk '/^URIs:/ { print $2; exit }' "$src")
	secmirror=$(awk '/^URIs:/ { u = $2 } END { print u }' "$src")
	[ -n "$mirror" ] && [ -n "$secmirror" ] || {
		echo "aptconf: no URIs in $src" >&2; exit 1; }
	mkdir -p "$dir/lists/partial" "$dir/archives/partial"
	key="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]"
	{
		echo "deb $key $mirror trixie main"
		echo "deb $key $mirror trixie-updates main"
		echo "deb $key $mirror trixie-backports main"
		echo "deb $key $secmirror trixie-security main"
	} > "$dir/sources.list"
	cat > "$conf" <<CONF
Dir::Etc::sourcelist "$dir/sources.list";
Dir::Etc::sourceparts "-";
Dir::State::Lists "$dir/lists";
Dir::Cache::archives "$dir/archives";
Acquire::Languages "none";
APT::Sandbox::User "root";
CONF
	echo "aptconf: apt-get update (private lists in $dir)" >&2
	apt-get -c "$conf" -q update >&2
	: > "$dir/updated"
fi
echo "$conf"
