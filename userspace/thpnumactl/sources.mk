# thpnumactl's own sources, listed once for userspace.mk and the host tests.
# Include it with TOP set; the tool also links $(USERSPACE_LIB_SRCS).
THPNUMACTL_SRC := $(TOP)/userspace/thpnumactl
THPNUMACTL_SRCS := $(addprefix $(THPNUMACTL_SRC)/,thpnumactl.c cli.c files.c \
	cmd-module.c cmd-settings.c cmd-stat.c cmd-hist.c cmd-tasks.c cmd-cgroups.c \
	cmd-apply.c cmd-compare.c compare-report.c compare-stats.c conffile.c report.c \
	options.c)
THPNUMACTL_HDRS := $(addprefix $(THPNUMACTL_SRC)/,thpnumactl.h compare-report.h \
	compare-stats.h)
# compare's statistics (erfc, sqrt).
THPNUMACTL_LDLIBS := -lm
