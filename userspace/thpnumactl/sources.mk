# thpnumactl's own sources, listed once for userspace.mk and the host tests.
# Include it with TOP set; the tool also links $(USERSPACE_LIB_SRCS).
THPNUMACTL_SRC := $(TOP)/userspace/thpnumactl
THPNUMACTL_SRCS := $(addprefix $(THPNUMACTL_SRC)/,thpnumactl.c cli.c files.c \
	cmd-module.c cmd-settings.c cmd-stat.c cmd-hist.c cmd-tasks.c cmd-cgroups.c \
	cmd-apply.c conffile.c report.c options.c)
THPNUMACTL_HDRS := $(THPNUMACTL_SRC)/thpnumactl.h
