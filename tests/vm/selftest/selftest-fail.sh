#!/bin/sh
# Harness self-test: a failing assertion must fail the run.
. /tests/lib.sh
tap_plan 1
not_ok "deliberately failing assertion"
tap_done
