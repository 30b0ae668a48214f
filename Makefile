# thpnuma: the module (through kbuild, which reads Kbuild), thpnumactl,
# the workloads and the tests. `make check` runs every test.
TOP := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
include $(TOP)/version.mk
include $(TOP)/kernels.mk
# Derived from that list: the kernels this machine's gcc-12 builds (bookworm's
# own series) and those a chroot builds (tools/build/kernel-suite.sh, from the ABI), and
# those that run only the core tests of make check.
# A copy without tests/ (tests/host/install.sh) builds for KVER only.
KERNEL_SUITE := $(wildcard $(TOP)/tools/build/kernel-suite.sh)
HOST_KERNELS := $(if $(KERNEL_SUITE),$(shell $(KERNEL_SUITE) --list host))
CHROOT_KERNELS := $(filter-out $(HOST_KERNELS),$(SUPPORTED_KERNELS))
CORE_KERNELS := $(filter-out $(FULL_KERNELS),$(SUPPORTED_KERNELS))
# The kernels whose mm selftests are built for the conformance test
# (tools/build/conformance-selftests.sh): those that run it.
CONFORMANCE_KERNELS := $(STRESS_KERNELS)

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
PREFIX ?= /usr/local
# systemd reads units from /usr/local/lib/systemd/system too.
SYSTEMD_UNIT_DIR ?= $(PREFIX)/lib/systemd/system
DESTDIR ?=
CC ?= cc
CFLAGS ?= -O2 -g
# Shared by every userspace build below.
WARN := -Wall -Wextra -Wno-unused-parameter
BUILD := build
# What the VM guests get in /tests, from tests.mk and workloads.mk.
GUEST_BIN := $(BUILD)/guest-bin

.PHONY: all help module modules userspace install uninstall clean check check-host \
	check-dkms check-vm check-stress demo trace-demo bench bench-overhead deb check-deb \
	set-version

all: module

# An unsupported KVER stops here, before kbuild (which would say only
# that its headers are missing): the same check as module/Kbuild's.
module modules:
	$(if $(call thpnuma_check_kernel,$(KVER)),$(error $(call thpnuma_check_kernel,$(KVER))))
	$(MAKE) -C $(KDIR) M=$(TOP)/module modules

# The module for one pinned kernel (used by the VM). kbuild writes its
# objects into the source tree, so each kernel builds from its own copy.
# CHROOT_KERNELS build in their suite's chroot (chroot-kbuild.sh takes
# make's arguments); $(MAKE) stays literal so that make passes its
# jobserver on.
$(patsubst %,$(BUILD)/%/thpnuma.ko,$(SUPPORTED_KERNELS)): $(BUILD)/%/thpnuma.ko: $(wildcard $(TOP)/module/*.[chS]) $(TOP)/Kbuild $(TOP)/module/Kbuild $(TOP)/kernels.mk
	rm -rf $(BUILD)/$*/src && mkdir -p $(BUILD)/$*/src
	cp -r $(TOP)/Kbuild $(TOP)/version.mk $(TOP)/kernels.mk $(TOP)/module $(BUILD)/$*/src/
	$(if $(filter $*,$(CHROOT_KERNELS)),$(TOP)/tools/build/chroot-kbuild.sh,$(MAKE)) -C /usr/src/linux-headers-$* M=$(abspath $(BUILD)/$*/src) modules
	cp $(BUILD)/$*/src/module/thpnuma.ko $@

include $(TOP)/userspace/userspace.mk
include $(TOP)/tests/tests.mk
include $(TOP)/userspace/workloads/workloads.mk
include $(TOP)/tools/vm/vm.mk

# The user targets, one line each (tests/host/targets.sh checks that each
# one exists).
HELP := \
	"all|the module for KVER (default: the running kernel; KDIR= its headers)" \
	"userspace|thpnumactl and its library, in build/userspace" \
	"install|the module (extra/), thpnumactl, its man pages and completion" \
	"uninstall|what install put there, without building anything" \
	"demo|one VM boot that shows each policy on a full node (installs its packages)" \
	"trace-demo|the tracing examples (tracefs, perf, bpftrace) in a VM" \
	"bench|the policy matrix and its chart on BENCH_KERNELS, one VM boot each" \
	"bench-overhead|the hook's cost per kind of fault, loaded against absent, instruction clock" \
	"check-host|host unit and CLI tests: seconds, no root, no VM" \
	"check|host, DKMS, packages and the VM suite on every supported kernel" \
	"check-stress|the long safety tests on STRESS_KERNELS" \
	"deb|the Debian packages from a clean export, into build/deb" \
	"check-deb|the packages' contents, lintian, and DKMS in a chroot (root)" \
	"set-version|VERSION=X.Y: rewrite the copies of the version" \
	"clean|remove build/ and kbuild's objects"

help:
	@for t in $(HELP); do echo "$$t"; done | awk -F'|' '{ printf "  %-15s %s\n", $$1, $$2 }'

# kbuild installs into /lib/modules/$(KVER)/extra and signs and compresses
# the module as the kernel's configuration asks. Headers packages carry no
# System.map, so kbuild skips depmod: run it for a real install.
install: module userspace
	$(MAKE) -C $(KDIR) M=$(TOP)/module INSTALL_MOD_DIR=extra \
		$(if $(DESTDIR),INSTALL_MOD_PATH=$(DESTDIR)) modules_install
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi
	$(MAKE) -f $(TOP)/Makefile install-userspace
	install -D -m 0644 $(TOP)/doc/thpnuma.7 $(DESTDIR)$(PREFIX)/share/man/man7/thpnuma.7

# The reverse of install, without building anything: kbuild may have
# compressed the module, and newer kbuild installs under /usr/lib/modules.
UNINSTALL_FILES := $(foreach d,/lib /usr/lib,$(foreach z,.ko .ko.gz .ko.xz .ko.zst,\
	$(DESTDIR)$(d)/modules/$(KVER)/extra/thpnuma$(z))) \
	$(DESTDIR)$(PREFIX)/sbin/thpnumactl \
	$(DESTDIR)$(PREFIX)/share/man/man8/thpnumactl.8 \
	$(DESTDIR)$(PREFIX)/share/man/man7/thpnuma.7 \
	$(DESTDIR)$(PREFIX)/share/bash-completion/completions/thpnumactl \
	$(DESTDIR)$(SYSTEMD_UNIT_DIR)/thpnuma.service \
	$(DESTDIR)$(SYSTEMD_UNIT_DIR)/thpnuma-exporter.service \
	$(DESTDIR)$(SYSTEMD_UNIT_DIR)/thpnuma-exporter.timer

uninstall:
	rm -f $(UNINSTALL_FILES)
	@if [ -z "$(DESTDIR)" ] && [ -d /lib/modules/$(KVER) ]; then \
		echo "depmod -a $(KVER)"; depmod -a $(KVER); fi

clean:
	$(MAKE) -C $(KDIR) M=$(TOP)/module clean 2>/dev/null || true
	rm -rf $(BUILD)

# Debian packages (debian/) from a clean export, into build/deb/.
deb:
	$(TOP)/tools/deb/build.sh

# Their test: contents, lintian, and, as root, DKMS in a bookworm chroot.
check-deb:
	$(TOP)/tests/deb/check-deb.sh

# version.mk sets the version; dkms.conf, debian/changelog and the man
# page keep literal copies, which this rewrites.
set-version:
	$(TOP)/tests/deb/version.sh set $(VERSION)
