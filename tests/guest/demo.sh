#!/bin/sh
# make demo: the same memory squeeze on node 0 under each policy in turn.
. /tests/lib.sh
D=$THPNUMA_DIR
echo madvise > /sys/kernel/mm/transparent_hugepage/enabled
echo madvise > /sys/kernel/mm/transparent_hugepage/defrag
echo "thpnuma demo on $(uname -r): $(ls -d /sys/devices/system/node/node* | wc -l) NUMA nodes, swap on zram"
thpnuma_load || { not_ok "module loads"; exit 1; }
for p in kernel strict-local local-then-remote; do
	echo "$p" > $D/policy
	echo 1 > $D/reset
	echo
	echo "== policy $p"
	/tests/thp-demo || not_ok "demo round under $p"
	echo "  module counters (thpnumactl stat):"
	/tests/thpnumactl stat | sed 's/^/    /'
done
thpnuma_unload
echo
echo "strict-local swaps node 0's memory out to keep huge pages local;"
echo "local-then-remote puts them on node 1 without swapping; kernel is what this kernel does by itself."
ok "demo ran under every policy"
