#!/bin/sh
# Harness self-test: a kernel WARN in the guest must fail the run.
. /tests/lib.sh
tap_plan 1
insmod /lib/warn_on_load.ko 2>/dev/null
ok "provoked a WARN (the harness must flag dmesg)"
tap_done
