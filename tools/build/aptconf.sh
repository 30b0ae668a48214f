#!/bin/sh
# A private apt view of one Debian suite, for the kernels the host's own
# suites do not carry: bullseye, trixie or sid (tools/build/suite-sources.sh
# lists each one's sources). apt reads only what is under .cache/apt/SUITE
# (the machine's /etc/apt is never read for sources nor edited); the
# mirror is the one the system's sources already name.
# tools/build/kernel-suite.sh says which suite ships a kernel.
# usage: aptconf.sh SUITE      prints the apt.conf path; updates the lists once
set -eu
suite=${1:?usage: aptconf.sh bullseye|trixie|sid}
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=$top/.cache/apt/$suite
conf=$dir/apt.conf
# Two make jobs may ask for the same suite at once (apt-get update locks).
mkdir -p "$dir"
exec 7> "$dir.lock"
flock 7
if [ ! -f "$dir/updated" ]; then
	mkdir -p "$dir/lists/partial" "$dir/archives/partial"
	key="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]"
	"$top/tools/build/suite-sources.sh" "$suite" "$key" > "$dir/sources.list"
	cat > "$conf" <<CONF
Dir::Etc::sourcelist "$dir/sources.list";
Dir::Etc::sourceparts "-";
Dir::State::Lists "$dir/lists";
Dir::Cache::archives "$dir/archives";
Acquire::Languages "none";
APT::Sandbox::User "root";
CONF
	echo "aptconf: apt-get update for $suite (private lists in $dir)" >&2
	apt-get -c "$conf" -q update >&2
	: > "$dir/updated"
fi
echo "$conf"
