#!/bin/sh
# The user documentation stays what it is for: README.md at most 12 KiB
# (12288 bytes), every relative link in it to a file that exists, and
# doc/thpnuma.7 rendered by man without a warning (skipped without man).
# Prints TAP lines.
. "$(dirname "$0")/tap.sh"

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
	skip "man -l doc/thpnuma.7 renders without warnings" "man is not installed"
fi
tap_finish
