# Userspace targets; included by the top-level Makefile (after kernels.mk,
# whose SUPPORTED_SERIES thpnumactl names when a kernel has no module).
.PHONY: guest-thpnumactl install-userspace

include $(TOP)/userspace/lib/lib.mk
include $(TOP)/userspace/thpnumactl/sources.mk

THPNUMACTL := $(BUILD)/userspace/thpnumactl
THPNUMACTL_CFLAGS := $(CFLAGS) $(WARN) -Werror=switch -Werror=switch-enum -I$(TOP)/module -I$(USERSPACE_LIB) \
	-DTHPNUMA_VERSION='"$(THPNUMA_VERSION)"' \
	-DTHPNUMA_SUPPORTED_SERIES='"$(SUPPORTED_SERIES)"' \
	$(shell pkg-config --cflags libkmod 2>/dev/null)
THPNUMACTL_LIBS := $(shell pkg-config --libs libkmod 2>/dev/null || echo -lkmod)

userspace: $(THPNUMACTL)

$(THPNUMACTL): $(THPNUMACTL_SRCS) $(THPNUMACTL_HDRS) $(USERSPACE_LIB_SRCS) $(TOP)/kernels.mk \
		$(USERSPACE_LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(THPNUMACTL_CFLAGS) -o $@ $(THPNUMACTL_SRCS) \
		$(USERSPACE_LIB_SRCS) $(THPNUMACTL_LIBS) $(THPNUMACTL_LDLIBS)

# libkmod has no static library: the tool stays dynamic and the initramfs
# builder copies its shared libraries along.
guest-thpnumactl: $(THPNUMACTL)
	@mkdir -p $(GUEST_BIN)
	cp $(THPNUMACTL) $(GUEST_BIN)/thpnumactl

# The units name thpnumactl where it goes: PREFIX's sbin.
install-userspace: $(THPNUMACTL)
	install -D -m 0755 $(THPNUMACTL) $(DESTDIR)$(PREFIX)/sbin/thpnumactl
	install -D -m 0644 $(THPNUMACTL_SRC)/thpnumactl.8 \
		$(DESTDIR)$(PREFIX)/share/man/man8/thpnumactl.8
	install -D -m 0644 $(THPNUMACTL_SRC)/thpnumactl.bash-completion \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/thpnumactl
	install -d $(DESTDIR)$(SYSTEMD_UNIT_DIR)
	for unit in thpnuma thpnuma-exporter; do \
		sed 's|@SBINDIR@|$(PREFIX)/sbin|g' $(TOP)/userspace/systemd/$$unit.service.in \
			> $(DESTDIR)$(SYSTEMD_UNIT_DIR)/$$unit.service && \
		chmod 0644 $(DESTDIR)$(SYSTEMD_UNIT_DIR)/$$unit.service || exit 1; \
	done
	install -m 0644 $(TOP)/userspace/systemd/thpnuma-exporter.timer \
		$(DESTDIR)$(SYSTEMD_UNIT_DIR)/
