#!/bin/sh
# Short form of loadloop for make check; make check-stress runs all 200 cycles.
LOADLOOP_CYCLES=${LOADLOOP_CYCLES:-25} exec /tests/loadloop
