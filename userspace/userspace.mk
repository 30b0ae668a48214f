# Userspace targets; included by the top-level Makefile.
.PHONY: static-userspace install-userspace

THPNUMACTL_SRC := $(TOP)/userspace/thpnumactl
THPNUMACTL := $(BUILD)/userspace/thpnumactl
# policy.c is the module's own name table and config parser, shared as is.
THPNUMACTL_OBJS := thpnumactl.c
USERSPACE_LIB := $(TOP)/userspace/lib
USERSPACE_LIB_SRCS := $(USERSPACE_LIB)/stats.c $(USERSPACE_LIB)/overrides.c
THPNUMACTL_CFLAGS := $(CFLAGS) $(WARN) -I$(TOP)/module -I$(USERSPACE_LIB) \
	-DTHPNUMA_VERSION='"$(THPNUMA_VERSION)"' \
	$(shell pkg-config --cflags libkmod 2>/dev/null)
THPNUMACTL_LIBS := $(shell pkg-config --libs libkmod 2>/dev/null || echo -lkmod)
# tests/tests.mk defines it after this file; a default for other includers.
GUEST_BIN ?= $(BUILD)/guest-bin

userspace: $(THPNUMACTL)

$(THPNUMACTL): $(addprefix $(THPNUMACTL_SRC)/,$(THPNUMACTL_OBJS)) \
		$(USERSPACE_LIB_SRCS) $(wildcard $(USERSPACE_LIB)/*.h) \
		$(TOP)/module/policy.c $(wildcard $(TOP)/module/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(THPNUMACTL_CFLAGS) -o $@ \
		$(addprefix $(THPNUMACTL_SRC)/,$(THPNUMACTL_OBJS)) \
		$(USERSPACE_LIB_SRCS) $(TOP)/module/policy.c $(THPNUMACTL_LIBS)

# libkmod has no static library: the tool stays dynamic and the initramfs
# builder copies its shared libraries along.
static-userspace: $(THPNUMACTL)
	@mkdir -p $(GUEST_BIN)
	cp $(THPNUMACTL) $(GUEST_BIN)/thpnumactl

install-userspace: $(THPNUMACTL)
	install -D -m 0755 $(THPNUMACTL) $(DESTDIR)$(PREFIX)/sbin/thpnumactl
	install -D -m 0644 $(THPNUMACTL_SRC)/thpnumactl.8 \
		$(DESTDIR)$(PREFIX)/share/man/man8/thpnumactl.8
	install -D -m 0644 $(THPNUMACTL_SRC)/thpnumactl.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/thpnumactl
