#!/bin/sh
# Short form of the OOM test for make check: module absent and strict-local.
OOM_POLICIES=${OOM_POLICIES:-strict-local} exec /tests/oom
