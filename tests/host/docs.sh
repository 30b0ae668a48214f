#!/bin/sh
# The user documentation stays what it is for: README.md at most 12 KiB
# (12288 bytes), every relative link in it to a file that exists, and
# doc/thpnuma.7 rendered by man without a warning (skipped without man).
# Prints TAP lines.
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0 fails=0 skips=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }

max=12288
size=$(wc -c < "$top/README.md")
if [ "$size" -le "$max" ]; then
	ok "README.md is $size bytes (at most $max)"
else
	not_ok "README.md is $size bytes (at most $max): move reference material to doc/thpnuma.7, contributor material to HACKING.md"
fi

# Markdown links [text](target): those without a scheme or a leading #
# are files relative to the README; an anchor after # is not checked.
grep -o '\](\([^)]*\))' "$top/README.md" | sed 's/^](//; s/)$//' |
	grep -v '^[a-z][a-z]*:' | grep -v '^#' | sed 's/#.*//' | sort -u > "$work/links"
if [ ! -s "$work/links" ]; then
	not_ok "README.md has relative links to check"
fi
while read -r link; do
	if [ -e "$top/$link" ]; then
		ok "README.md links to $link, which exists"
	else
		not_ok "README.md links to $link, which does not exist"
	fi
done < "$work/links"

if command -v man > /dev/null 2>&1; then
	LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 \
		man --warnings -E UTF-8 -l "$top/doc/thpnuma.7" > /dev/null 2> "$work/warn"
	rc=$?
	if [ "$rc" -eq 0 ] && [ ! -s "$work/warn" ]; then
		ok "man -l doc/thpnuma.7 renders without warnings"
	else
		not_ok "man -l doc/thpnuma.7 renders without warnings (exit $rc)"
		sed 's/^/# /' "$work/warn"
	fi
else
	skips=$((skips + 1))
	ok "man -l doc/thpnuma.7 renders without warnings # SKIP man is not installed"
fi
echo "1..$n"
echo "$((n - fails - skips)) passed, $fails failed, $skips skipped"
[ "$fails" -eq 0 ]
