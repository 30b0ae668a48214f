# The module's kernel-free sources, compiled unchanged on the host as
# well: by thpnumactl's library (userspace/lib/lib.mk) and the host unit
# tests (tests/host/Makefile). Include it with TOP set.
THPNUMA_KERNEL_FREE_SRCS := $(addprefix $(TOP)/module/,policy.c settings.c names.c)
