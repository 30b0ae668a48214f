#!/bin/sh
# Short form of the concurrency stress for make check.
STRESS_CHANGES=${STRESS_CHANGES:-1000} STRESS_CYCLES=${STRESS_CYCLES:-6} exec /tests/stress
