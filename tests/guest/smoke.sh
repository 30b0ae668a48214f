#!/bin/sh
# Smoke test: the module loads, shows its debugfs directory, and unloads.
. /tests/lib.sh
tap_plan 5
check "module loads" thpnuma_load
check "debugfs directory appears" test -d $THPNUMA_DIR
check "version names this kernel" grep -qx "kernel $(uname -r)" $THPNUMA_DIR/version
check "module unloads" thpnuma_unload
check "debugfs directory is gone" test ! -e $THPNUMA_DIR
tap_done
