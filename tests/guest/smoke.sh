#!/bin/sh
# Smoke test: the module loads, shows its debugfs directory, and unloads.
. /tests/lib.sh
tap_plan 8
# The harness's command line: a host that starves the guest at boot must
# not make it panic in the IO-APIC timer check.
check "booted with no_timer_check" grep -qw no_timer_check /proc/cmdline
check "module loads" thpnuma_load
check "debugfs directory appears" test -d $THPNUMA_DIR
check "version names this kernel" grep -qx "kernel $(uname -r)" $THPNUMA_DIR/version
check "trace event thpnuma:thp_fault registered" test -r /sys/kernel/tracing/events/thpnuma/thp_fault/format
check "hist file readable" grep -q "^node outcome count sum_ns " $THPNUMA_DIR/hist
check "module unloads" thpnuma_unload
check "debugfs directory is gone" test ! -e $THPNUMA_DIR
tap_done
