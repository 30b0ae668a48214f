# The userspace library shared by thpnumactl, the workloads and the guest
# tests. Include it with TOP set; add -I$(USERSPACE_LIB) -I$(TOP)/module
# and link $(USERSPACE_LIB_SRCS).
USERSPACE_LIB := $(TOP)/userspace/lib
# The module's kernel-free files are in the list: stats.c and overrides.c
# take the counter names from names.c, and thpnumactl the settings and
# their parsers from settings.c (which needs policy.c's override rule).
USERSPACE_LIB_SRCS := $(addprefix $(USERSPACE_LIB)/,text.c json.c die.c \
	nodes.c memory.c stats.c orders.c hist.c overrides.c cgstats.c) \
	$(addprefix $(TOP)/module/,policy.c settings.c names.c)
USERSPACE_LIB_HDRS := $(wildcard $(USERSPACE_LIB)/*.h) \
	$(TOP)/module/policy.h $(TOP)/module/counters.h
