#!/bin/sh
# Short form of the conformance test for make check: the quicker selftests,
# one policy. make check-stress runs every selftest in every policy.
CONFORMANCE_POLICIES=${CONFORMANCE_POLICIES:-strict-local} \
CONFORMANCE_TESTS=${CONFORMANCE_TESTS:-"khugepaged compaction_test"} \
	exec /tests/conformance.sh
