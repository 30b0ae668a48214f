#!/bin/sh
# The load refuses to do nothing: when the THP fault caller the hook filters
# on is missing, or does not call the hooked function, insmod fails
# (ENOENT, EINVAL), dmesg says what differs, and nothing is left behind.
# test_thp_fault_caller= stands in for a kernel whose fault path moved.
. /tests/lib.sh
. /tests/coexist-lib.sh
echo always > /sys/kernel/mm/transparent_hugepage/enabled
tap_plan 27

# refused CALLER ERRNO-TEXT DMESG-TEXT
refused() {
	dmesg -c >/dev/null
	_err=$(thpnuma_load test_thp_fault_caller="$1" 2>&1)
	_rc=$?
	check "$1: load refused with '$2' (${_err:-loaded})" \
		sh -c "[ $_rc -ne 0 ] && echo '$_err' | grep -q '$2'"
	_why=$(dmesg | grep 'thpnuma: ' | head -n 1)
	check "$1: dmesg says what differs (${_why:-nothing})" \
		sh -c "echo '$_why' | grep -q '$3'"
	[ $_rc -eq 0 ] && thpnuma_unload
	unloaded_clean "$1, refused"
}

refused thpnuma_no_such_function "No such file or directory" \
	"no function thpnuma_no_such_function"
refused try_to_free_pages "Invalid argument" \
	"try_to_free_pages does not call $SYM"
# The other side of 6.13's move of the THP allocation (ebcfc63d6bca).
r=$(uname -r)
major=${r%%.*} minor=${r#*.}
minor=${minor%%.*}
if [ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -ge 13 ]; }; then
	refused do_huge_pmd_anonymous_page "Invalid argument" \
		"do_huge_pmd_anonymous_page does not call $SYM"
else
	refused vma_alloc_anon_folio_pmd "No such file or directory" \
		"no function vma_alloc_anon_folio_pmd"
fi

check "loads with this kernel's own caller" thpnuma_load
faults_counted "own caller"
check "unloads" thpnuma_unload
tap_done
