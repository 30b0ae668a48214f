#!/bin/sh
# Long form of the fuzzer for make check-stress: 5000 inputs per file.
FUZZ_INPUTS=${FUZZ_INPUTS:-5000} exec /tests/fuzz
