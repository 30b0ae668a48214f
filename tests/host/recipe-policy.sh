#!/bin/sh
# HACKING's "A new policy", first step, on a scratch copy: one entry
# appended to THPNUMA_POLICIES (module/policy.h) and nothing else must stop
# the build at the switch that lacks its case (thpnuma_decide()), with the
# flags of tests/host/Makefile. GCC names a missing case of a switch without
# default: under -Wswitch (from -Wall) even with -Wswitch-enum on: the
# error is -Werror=switch there, -Werror=switch-enum in a switch with one.
# Prints TAP lines.
. "$(dirname "$0")/tap.sh"

mkdir -p "$work/tests/host"
cp -r "$top/module" "$top/tests/include" "$work/" 2>/dev/null
mv "$work/include" "$work/tests/include"
cp "$top/tests/host/Makefile" "$top/tests/host/test_policy.c" "$work/tests/host/"
build() { make -s -C "$work/tests/host" "$work/build/host/test_policy" > "$work/out" 2>&1; }

if build; then
	ok "the scratch copy builds as it is"
else
	not_ok "the scratch copy builds as it is"
	sed 's/^/# /' "$work/out" | head -n 20
fi

# The list's last entry, EMe(), becomes an EM() and a new EMe() follows.
sed -i 's/^\(\t*\)EMe(THPNUMA_POLICY_\([A-Z_]*\),\(.*\))$/\1EM(THPNUMA_POLICY_\2,\3)\t\\\n\1EMe(THPNUMA_POLICY_RECIPE_TEST,\t"recipe-test")/' \
	"$work/module/policy.h"
if grep -q 'EMe(THPNUMA_POLICY_RECIPE_TEST' "$work/module/policy.h"; then
	ok "one entry appended to THPNUMA_POLICIES"
else
	not_ok "one entry appended to THPNUMA_POLICIES"
fi

rm -f "$work/build/host/test_policy"
if build; then
	not_ok "a policy without its case in thpnuma_decide() does not build"
elif grep -q "thpnuma_decide" "$work/out" &&
     grep -q "error: .*THPNUMA_POLICY_RECIPE_TEST.* not handled in switch \[-Werror=switch\(-enum\)\?\]" "$work/out"; then
	ok "a policy without its case in thpnuma_decide() does not build (-Werror=switch names it)"
	grep "error:" "$work/out" | sed 's/^/# /'
else
	not_ok "a policy without its case fails with a -Wswitch-enum error naming it"
	sed 's/^/# /' "$work/out" | head -n 20
fi
tap_finish
