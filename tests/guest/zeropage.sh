#!/bin/sh
# Read-then-write: a read fault maps the huge zero page; since 6.13
# (1ced09e0331f) the write fault replaces it with a THP allocated by
# vma_alloc_anon_folio_pmd(), the same helper as the anonymous fault, so
# the policy and the counters cover it. Before 6.13 the write splits the
# huge zero page and no THP is allocated.
. /tests/lib.sh
. /tests/coexist-lib.sh
echo always > /sys/kernel/mm/transparent_hugepage/enabled
echo 1 > /sys/kernel/mm/transparent_hugepage/use_zero_page
tap_plan 4
r=$(uname -r)
major=${r%%.*} minor=${r#*.}
minor=${minor%%.*}
check "loads in strict-local" thpnuma_load policy=strict-local
local0=$(stat_col 0 thp_local)
zero0=$(awk '$1 == "thp_zero_page_alloc" { print $2 }' /proc/vmstat)
before=$(counted)
/tests/thp-touch 16 read-first >/dev/null
after=$(counted)
local1=$(stat_col 0 thp_local)
diag "counted $before -> $after, node 0 local $local0 -> $local1, thp_zero_page_alloc $zero0"
if [ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -ge 13 ]; }; then
	check "8 write faults on the huge zero page counted ($before -> $after)" \
		test $((after - before)) -ge 8
	check "placed by strict-local on node 0 ($local0 -> $local1)" \
		test $((local1 - local0)) -ge 8
else
	skip "write faults on the huge zero page counted" "before 6.13 they split it"
	skip "placed by strict-local on node 0" "before 6.13 they split it"
fi
check "unloads" thpnuma_unload
tap_done
