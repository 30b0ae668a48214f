# The userspace library shared by thpnumactl, the workloads and the guest
# tests. Include it with TOP set; add -I$(USERSPACE_LIB) -I$(TOP)/module
# and link $(USERSPACE_LIB_SRCS).
USERSPACE_LIB := $(TOP)/userspace/lib
# module/policy.c is in the list: stats.c and overrides.c take the counter
# names from it, and thpnumactl the setting names.
USERSPACE_LIB_SRCS := $(addprefix $(USERSPACE_LIB)/,text.c json.c die.c \
	nodes.c memory.c stats.c orders.c hist.c overrides.c cgstats.c) \
	$(TOP)/module/policy.c
USERSPACE_LIB_HDRS := $(wildcard $(USERSPACE_LIB)/*.h) \
	$(TOP)/module/policy.h $(TOP)/module/counters.h
