#!/bin/sh
# Harness self-test: a test stuck in the kernel, where its per-test
# SIGKILL cannot reach it, must fail the run, named, long before the
# boot's own limit.
. /tests/lib.sh
tap_plan 1
ok "insmod goes to sleep in the kernel (the harness must end the boot)"
# The test's own process: the one the per-test timeout kills.
exec insmod /lib/stall_on_load.ko seconds=600
