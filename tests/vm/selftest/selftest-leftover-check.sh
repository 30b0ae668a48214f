#!/bin/sh
# Harness self-test: what selftest-leftover.sh left running is gone (or a
# zombie, which holds no memory) before the next test starts.
. /tests/lib.sh
tap_plan 1
pid=$(cat /tmp/leftover.pid)
gone() { [ ! -e /proc/$1 ] || grep -q '^State:.*Z' /proc/$1/status; }
check "the child the last test left running ($pid) is gone" gone "$pid"
tap_done
