#!/bin/sh
# Harness self-test: a test killed at its limit leaves a child running, as
# a test's memory holder (start_hog()) outlives its parent's SIGKILL.
# selftest-leftover-check.sh, next in the boot, must not find it.
. /tests/lib.sh
tap_plan 1
sleep 3600 &
echo $! > /tmp/leftover.pid
ok "a child left running"
# Past the test's limit: the timeout's SIGKILL ends this shell only.
sleep 3600
