# Helpers for the coexistence and clean-unload tests (sourced after lib.sh).
T=/sys/kernel/tracing
D=$THPNUMA_DIR
case $(uname -r) in
5.10.*) SYM=alloc_pages_vma ;;
6.1.*) SYM=vma_alloc_folio ;;
*) SYM=vma_alloc_folio_noprof ;;
esac
# Where reclaim swaps a page out (compat.h's THPNUMA_SWAP_OUT_SYMBOL).
case $(uname -r) in
7.*) SWAP_OUT=folio_alloc_swap ;;
*) SWAP_OUT=add_to_swap ;;
esac

# THP faults the module has counted (local + remote + fallback, all nodes).
counted() { stats_sum thp_local thp_remote thp_fallback 2>/dev/null | grep . || echo 0; }

# faults_counted NAME: fault 16 MiB of THPs; ok if the counters moved.
faults_counted() {
	_before=$(counted)
	/tests/thp-touch 16 >/dev/null 2>&1
	_after=$(counted)
	check "$1: thpnuma counts THP faults ($_before -> $_after)" test "$_after" -gt "$_before"
}

# enabled_functions lines for a hooked function.
hooked_line() { grep "^$1 " $T/enabled_functions 2>/dev/null; }

# Kernel functions the module kprobes (module/probes.c); nobody else does here.
PROBED='compact_zone_order|try_to_free_pages|shrink_node'
kprobes_of_thpnuma() { grep -cE " ($PROBED)\+" /sys/kernel/debug/kprobes/list; }

# unloaded_clean NAME [owner-present]: no trace of thpnuma is left after
# rmmod. With owner-present, another IPMODIFY user legitimately remains.
unloaded_clean() {
	check "$1: no debugfs directory" test ! -e $D
	check "$1: not in /sys/module" test ! -e /sys/module/thpnuma
	check "$1: no thpnuma callback in enabled_functions" \
		sh -c "! grep -q thpnuma $T/enabled_functions"
	# Another user may still trace the function, but nobody modifies its IP.
	if [ "${2:-}" != owner-present ]; then
		for _f in $SYM try_to_free_pages shrink_node $SWAP_OUT; do
			_l=$(hooked_line $_f)
			check "$1: $_f not IPMODIFY-hooked (${_l:-not listed})" \
				sh -c "! echo '$_l' | grep -q ' I '"
		done
	fi
	check "$1: no thpnuma kprobes left ($(kprobes_of_thpnuma))" test "$(kprobes_of_thpnuma)" = 0
}

# load_or_refused NAME [PARAMS]: ok if thpnuma loads, or refuses with a
# reason in dmesg; returns 0 only if it loaded.
load_or_refused() {
	_name=$1; shift
	dmesg -c >/dev/null
	if thpnuma_load "$@" 2>/dev/null; then
		ok "$_name: thpnuma loads"
		return 0
	fi
	_why=$(dmesg | grep 'thpnuma: ' | head -n 1)
	check "$_name: thpnuma refused with a reason (${_why:-none})" test -n "$_why"
	return 1
}
