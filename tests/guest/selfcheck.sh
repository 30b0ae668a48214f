#!/bin/sh
# The load refuses to do nothing: when the THP fault caller the hook filters
# on is missing, or does not call the hooked function, the load fails
# (ENOENT, EINVAL), dmesg says what differs, and nothing is left behind.
# test_thp_fault_caller= stands in for a kernel whose fault path moved.
. /tests/lib.sh
. /tests/coexist-lib.sh
echo always > /sys/kernel/mm/transparent_hugepage/enabled
tap_plan 33

# The errno's words, as thpnuma_load (helpers/modload.c) prints them.
ENOENT_TEXT="No such file or directory"
EINVAL_TEXT="Invalid argument"

# failed_with RC OUTPUT TEXT: the load failed and said TEXT.
failed_with() { [ "$1" -ne 0 ] && case $2 in *"$3"*) true ;; *) false ;; esac; }

# refused CALLER ERRNO-TEXT DMESG-TEXT
refused() {
	dmesg -c >/dev/null
	_err=$(thpnuma_load test_thp_fault_caller="$1" 2>&1)
	_rc=$?
	check "$1: load refused with '$2' (${_err:-loaded})" \
		failed_with "$_rc" "$_err" "$2"
	_why=$(dmesg | grep -F "$3" | head -n 1)
	check "$1: dmesg says what differs (${_why:-nothing})" test -n "$_why"
	[ $_rc -eq 0 ] && thpnuma_unload
	unloaded_clean "$1, refused"
}

refused thpnuma_no_such_function "$ENOENT_TEXT" \
	"no function thpnuma_no_such_function"
refused try_to_free_pages "$EINVAL_TEXT" \
	"try_to_free_pages does not call $SYM"
# The other side of 6.13's move of the THP allocation (ebcfc63d6bca).
r=$(uname -r)
major=${r%%.*} minor=${r#*.}
minor=${minor%%.*}
if [ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -ge 13 ]; }; then
	refused do_huge_pmd_anonymous_page "$EINVAL_TEXT" \
		"do_huge_pmd_anonymous_page does not call $SYM"
else
	refused vma_alloc_anon_folio_pmd "$ENOENT_TEXT" \
		"no function vma_alloc_anon_folio_pmd"
fi

check "loads with this kernel's own caller" thpnuma_load
faults_counted "own caller"
check "unloads" thpnuma_unload
tap_done
