#!/bin/sh
# Read-then-write: a read fault maps the huge zero page and allocates
# nothing; since 6.13 (1ced09e0331f) the write fault replaces it with a THP
# from vma_alloc_anon_folio_pmd(), the anonymous fault's own helper, so the
# policy places it and the counters count it. Before 6.13 the write splits
# the huge zero page and no THP is allocated.
. /tests/lib.sh
. /tests/coexist-lib.sh
echo always > /sys/kernel/mm/transparent_hugepage/enabled
echo 1 > /sys/kernel/mm/transparent_hugepage/use_zero_page
tap_plan 5
r=$(uname -r)
major=${r%%.*} minor=${r#*.}
minor=${minor%%.*}
check "loads in strict-local" thpnuma_load policy=strict-local
before=$(counted)
/tests/thp-touch 16 read-only >/dev/null
after=$(counted)
check "reads map the huge zero page: nothing allocated ($before -> $after)" \
	test "$after" -eq "$before"
local0=$(stat_col 0 thp_local)
before=$(counted)
/tests/thp-touch 16 read-first >/dev/null
after=$(counted)
local1=$(stat_col 0 thp_local)
if [ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -ge 13 ]; }; then
	check "8 write faults on the huge zero page counted ($before -> $after)" \
		test $((after - before)) -eq 8
	check "placed by strict-local on node 0 ($local0 -> $local1)" \
		test $((local1 - local0)) -eq 8
else
	check "writes split the huge zero page: no THP ($before -> $after)" \
		test "$after" -eq "$before"
	skip "placed by strict-local on node 0" "no THP before 6.13"
fi
check "unloads" thpnuma_unload
tap_done
