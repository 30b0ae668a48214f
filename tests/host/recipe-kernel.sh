#!/bin/sh
# HACKING.md's "A new kernel version" recipe, as far as it can be checked
# without a kernel, applied to scratch copies of the working tree:
#  A. a new ABI of a supported series (7.3.99+deb13-amd64): the one line in
#     kernels.mk, and nothing else to edit;
#  B. a new series (the newest one's next minor, 7.4.1+deb13-amd64 when
#     7.3 is the newest): the line, then dkms.conf's
#     BUILD_EXCLUSIVE_KERNEL (tests/deb/version.sh must fail until then),
#     and nothing else.
# Checked: SUPPORTED_SERIES, tests/deb/version.sh (dkms.conf's regex,
# Kbuild's acceptance and refusal, make's refusal), kernel-suite.sh's suite
# and builder, and thpnumactl's supported-series message. Not checked
# here: module/compat.h (needs the kernel's headers), building and loading
# the module, and the VM tests (make check-vm). A test that spells out the
# series list is a failure: it would need an edit the recipe does not name.
# Prints TAP lines and "N passed, N failed, N skipped".
. "$(dirname "$0")/tap.sh"
# make_value TREE VAR: VAR as TREE's kernels.mk sets it.
make_value() {
	make -s --no-print-directory -f "$1/kernels.mk" \
		--eval "print-value: ; @echo \$($2)" print-value
}
# add_kernel TREE ABI: the recipe's line, ABI last in SUPPORTED_KERNELS.
add_kernel() {
	sed -i "s/^\(SUPPORTED_KERNELS := .*\)$/\1 $2/" "$1/kernels.mk"
}
# only_changed TREE FILE...: no other file of TREE differs from the tree.
only_changed() {
	t=$1
	shift
	(cd "$top" && git ls-files -co --exclude-standard |
		grep -v -e '^build/' -e '^\.cache/') |
		while read -r f; do
			cmp -s "$top/$f" "$t/$f" && continue
			case " $* " in *" $f "*) ;; *) echo "$f" ;; esac
		done > "$work/changed"
	[ ! -s "$work/changed" ]
}

old_series=$(make_value "$top" SUPPORTED_SERIES)
old_list=$(echo "$old_series" | sed 's/ /, /g')

# ---- A. a new ABI of a supported series ------------------------------------
a=$work/a
copy_tree "$a"
abi=7.3.99+deb13-amd64
add_kernel "$a" "$abi"
if [ "$(diff "$top/kernels.mk" "$a/kernels.mk" | grep -c '^[<>]')" -eq 2 ] &&
   make_value "$a" SUPPORTED_KERNELS | grep -qw -- "$abi" &&
   [ "$(make_value "$a" SUPPORTED_SERIES)" = "$old_series" ]; then
	ok "A: $abi is one line in kernels.mk; SUPPORTED_SERIES stays $old_series"
else
	not_ok "A: $abi is one line in kernels.mk; SUPPORTED_SERIES stays $old_series"
fi
if sh "$a/tests/deb/version.sh" > "$work/log" 2>&1 &&
   grep -q "PASS kernels Kbuild accepts KERNELRELEASE=$abi" "$work/log" &&
   grep -q "BUILD_EXCLUSIVE_KERNEL accepts every pinned kernel" "$work/log"; then
	ok "A: version.sh passes with no other edit (dkms.conf and Kbuild accept $abi)"
else
	not_ok "A: version.sh passes with no other edit"
	grep -v '^PASS' "$work/log" | show
fi
if [ "$(sh "$a/tools/build/kernel-suite.sh" "$abi")" = trixie ] &&
   [ "$(sh "$a/tools/build/kernel-suite.sh" --builder "$abi")" = trixie ] &&
   sh "$a/tools/build/kernel-suite.sh" --list trixie | grep -qw -- "$abi"; then
	ok "A: kernel-suite.sh derives trixie (suite and chroot) and lists $abi"
else
	not_ok "A: kernel-suite.sh derives trixie (suite and chroot) and lists $abi"
fi
if only_changed "$a" kernels.mk; then
	ok "A: no file but kernels.mk differs"
else
	not_ok "A: no file but kernels.mk differs"
	show "$work/changed"
fi

# ---- B. a new series --------------------------------------------------------
b=$work/b
copy_tree "$b"
# The next minor: version.sh tries the series up to minor 40.
last=${old_series##* }
next=${last%.*}.$((${last#*.} + 1))
abi=$next.1+deb13-amd64
add_kernel "$b" "$abi"
new_series=$(make_value "$b" SUPPORTED_SERIES)
new_list=$(echo "$new_series" | sed 's/ /, /g')
if [ "$new_series" = "$old_series $next" ]; then
	ok "B: SUPPORTED_SERIES gains $next by itself ($new_series)"
else
	not_ok "B: SUPPORTED_SERIES gains $next by itself (got '$new_series')"
fi
# The recipe says make check-host fails until dkms.conf agrees.
if ! sh "$b/tests/deb/version.sh" > "$work/log" 2>&1 &&
   grep -q "^FAIL kernels dkms.conf BUILD_EXCLUSIVE_KERNEL=.* accepts '$old_series'" "$work/log"; then
	ok "B: version.sh fails while dkms.conf lacks $next, naming dkms.conf"
else
	not_ok "B: version.sh fails while dkms.conf lacks $next, naming dkms.conf"
	show "$work/log"
fi
# The recipe's other edit: dkms.conf's regex (any that accepts exactly the
# series; this one lists them).
regex="^($(echo "$new_series" | sed 's/\./\\\\./g; s/ /|/g'))\\\\."
sed -i "s/^BUILD_EXCLUSIVE_KERNEL=.*/BUILD_EXCLUSIVE_KERNEL=\"$regex\"/" \
	"$b/dkms.conf"
if sh "$b/tests/deb/version.sh" > "$work/log" 2>&1 &&
   grep -q "PASS kernels Kbuild refuses KERNELRELEASE=6.18.0-1-amd64" "$work/log" &&
   grep -q "PASS kernels Kbuild accepts KERNELRELEASE=$abi" "$work/log"; then
	ok "B: with dkms.conf, version.sh passes (Kbuild, make, dkms.conf agree on $new_series)"
else
	not_ok "B: with dkms.conf, version.sh passes"
	grep -v '^PASS' "$work/log" | show
fi
out=$work/out
if make -s -C "$b/tests/host/thpnumactl" OUT="$out" SANITIZE= CFLAGS=-O0 \
	"$out/thpnumactl" > "$work/log" 2>&1; then
	THPNUMACTL_KERNEL_RELEASE=6.18.0-test THPNUMACTL_SYSFS=$work/nosys \
		"$out/thpnumactl" load --dry-run > "$work/out1" 2>&1
	THPNUMACTL_KERNEL_RELEASE=$abi THPNUMACTL_SYSFS=$work/nosys \
		"$out/thpnumactl" load --dry-run > "$work/out2" 2>&1
	if grep -qF "supported series: $new_list)" "$work/out1" &&
	   grep -qF "module thpnuma not found in /lib/modules/$abi" "$work/out2" &&
	   ! grep -q "does not support" "$work/out2"; then
		ok "B: thpnumactl names $new_list and takes $abi as supported"
	else
		not_ok "B: thpnumactl names $new_list and takes $abi as supported"
		show "$work/out1" "$work/out2"
	fi
else
	not_ok "B: thpnumactl builds"
	tail -n 20 "$work/log" | show
fi
if only_changed "$b" kernels.mk dkms.conf; then
	ok "B: no file but kernels.mk and dkms.conf differs"
else
	not_ok "B: no file but kernels.mk and dkms.conf differs"
	show "$work/changed"
fi
# Other tests that spell out the series list; cli.sh takes two minutes.
others=$(cd "$b" && grep -rlF -e "supported series: $old_list" -e "\"$old_series\"" \
	tests userspace 2>/dev/null | tr '\n' ' ')
if [ -n "$others" ]; then
	not_ok "B: no other test spells out the series list (${others% } does)"
else
	ok "B: no other test spells out the series list"
fi

tap_finish
