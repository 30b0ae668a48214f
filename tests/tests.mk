# Test targets; included by the top-level Makefile.
.SECONDARY:

# tests/guest holds the tests; lib/ the code and shell helpers they share;
# helpers/ programs the tests run. The guest sees them all flat in /tests,
# with the harness self-tests (tests/vm/selftest) and tests/tools.
GUEST := $(TOP)/tests/guest
GUEST_C := $(wildcard $(GUEST)/*.c $(GUEST)/helpers/*.c)
GUEST_SH := $(wildcard $(GUEST)/*.sh $(GUEST)/lib/*.sh $(TOP)/tests/vm/selftest/*.sh \
	$(TOP)/tests/tools/*.sh)
STATIC_CFLAGS := $(CFLAGS) $(WARN) -Wno-clobbered -static -I$(TOP)/tests/include -I$(TOP)/module \
	-I$(USERSPACE_LIB) -I$(GUEST)/lib
# Linked into every guest program: the shared test code and the userspace
# library (USERSPACE_LIB_SRCS from userspace/lib/lib.mk: nodes, memory,
# the stats parser, and module/policy.c, where the counter names are).
GUEST_LIBS = $(GUEST)/lib/test_util.c $(USERSPACE_LIB_SRCS)
GUEST_HDRS = $(wildcard $(TOP)/tests/include/*.h $(GUEST)/lib/*.h $(TOP)/module/*.h) \
	$(USERSPACE_LIB_HDRS)

.PHONY: deps deps-demo demo-initramfs trace-demo trace-demo-initramfs guest-bin initramfs check-host check-dkms check-vm check-stress demo

deps:
	$(TOP)/tests/install-deps.sh

$(GUEST_BIN)/%: $(GUEST)/%.c $(GUEST_LIBS) $(GUEST_HDRS)
	@mkdir -p $(GUEST_BIN)
	$(CC) $(STATIC_CFLAGS) -o $@ $< $(GUEST_LIBS) -lpthread

$(GUEST_BIN)/%: $(GUEST)/helpers/%.c $(GUEST_LIBS) $(GUEST_HDRS)
	@mkdir -p $(GUEST_BIN)
	$(CC) $(STATIC_CFLAGS) -o $@ $< $(GUEST_LIBS) -lpthread

guest-bin: $(addprefix $(GUEST_BIN)/,$(basename $(notdir $(GUEST_C)))) guest-thpnumactl
	@mkdir -p $(GUEST_BIN)
	cp $(GUEST_SH) $(GUEST_BIN)/

# A pattern's second % is a literal %, so one rule per pinned kernel:
# .cache/kernels/KVER/boot/vmlinuz-KVER, fetched on a fresh checkout.
$(foreach k,$(SUPPORTED_KERNELS),.cache/kernels/$(k)/boot/vmlinuz-$(k)): .cache/kernels/%:
	$(TOP)/tests/vm/fetch-kernel.sh $(firstword $(subst /, ,$*))

TEST_MODULES := warn_on_load ipmodify_owner livepatch_thp

$(BUILD)/%/lib/test-modules.stamp: $(wildcard $(TOP)/tests/modules/*) $(TOP)/module/compat.h
	rm -rf $(BUILD)/$*/testmod && mkdir -p $(BUILD)/$*/testmod $(BUILD)/$*/lib
	cp $(TOP)/tests/modules/* $(TOP)/module/compat.h $(BUILD)/$*/testmod/
	$(if $(filter $*,$(CHROOT_KERNELS)),$(TOP)/tests/vm/chroot-kbuild.sh,$(MAKE)) -C /usr/src/linux-headers-$* M=$(abspath $(BUILD)/$*/testmod) modules
	cp $(addprefix $(BUILD)/$*/testmod/,$(addsuffix .ko,$(TEST_MODULES))) $(BUILD)/$*/lib/
	touch $@

$(BUILD)/%/lib/thpnuma.ko: $(BUILD)/%/thpnuma.ko
	@mkdir -p $(dir $@)
	cp $< $@

# The kernel's own mm selftests, from its linux-source package
# (conformance.sh). Only CONFORMANCE_KERNELS run them: conformance.sh is
# not a core test.
$(BUILD)/%/conformance/selftests/LIST: $(TOP)/tests/conformance/build.sh
	$(TOP)/tests/conformance/build.sh $* $(BUILD)/$*/conformance

# The initramfs is rebuilt every time: it is cheap and its inputs are many.
# CONFORMANCE_KERNELS (Makefile) boot with the conformance selftests.
.SECONDEXPANSION:
initramfs-%: .cache/kernels/$$*/boot/vmlinuz-$$* $(BUILD)/%/lib/thpnuma.ko $(BUILD)/%/lib/test-modules.stamp guest-bin $$(if $$(filter $$*,$(CONFORMANCE_KERNELS)),$(BUILD)/$$*/conformance/selftests/LIST)
	$(TOP)/tests/vm/mkinitramfs.sh $* $(BUILD)/$*/lib $(GUEST_BIN) $(BUILD)/$*/initramfs.cpio

initramfs: $(addprefix initramfs-,$(SUPPORTED_KERNELS))

# Every supported kernel: the whole MANIFEST on FULL_KERNELS (kernels.mk),
# its `core` lines on the others.
check-vm: initramfs
	python3 $(TOP)/tests/vm/harness.py --self-test --kernels $(SUPPORTED_KERNELS) \
		$(if $(CORE_KERNELS),--core-kernels $(CORE_KERNELS))

# Long forms of the safety tests (tests/guest/MANIFEST.stress), on
# STRESS_KERNELS.
check-stress: deps
	$(MAKE) -f $(TOP)/Makefile $(addprefix initramfs-,$(STRESS_KERNELS))
	python3 $(TOP)/tests/vm/harness.py --manifest $(TOP)/tests/guest/MANIFEST.stress \
		--logs $(BUILD)/vm-logs-stress --kernels $(STRESS_KERNELS)

check-host:
	$(MAKE) -C $(TOP)/tests/host check
	$(TOP)/tests/deb/version.sh

# The host's dkms for HOST_KERNELS, each chroot's for the others.
check-dkms:
	$(TOP)/tests/dkms/check-dkms.sh $(SUPPORTED_KERNELS)

# make demo builds and installs only what its one boot runs: the module
# for the demo kernel (the first of FULL_KERNELS, or make demo
# DEMO_KERNEL=ABI for another pinned one), thpnumactl, demo.sh and
# thp-demo, in an initramfs of their own (build/demo; make check's stays
# as it is).
DEMO_KERNEL ?= $(firstword $(FULL_KERNELS))
DEMO := $(BUILD)/demo
ifeq ($(filter $(DEMO_KERNEL),$(SUPPORTED_KERNELS)),)
$(error DEMO_KERNEL=$(DEMO_KERNEL) is not a pinned kernel; kernels.mk lists them: $(SUPPORTED_KERNELS))
endif

deps-demo:
	$(TOP)/tests/install-deps.sh demo $(DEMO_KERNEL)

$(DEMO)/$(DEMO_KERNEL)/lib/thpnuma.ko: $(BUILD)/$(DEMO_KERNEL)/thpnuma.ko
	@mkdir -p $(dir $@)
	cp $< $@

# Recursive, as for make check: the packages are installed by then, so
# make reads pkg-config's flags for libkmod.
demo: deps-demo
	$(MAKE) -f $(TOP)/Makefile demo-initramfs
	python3 $(TOP)/tests/vm/demo.py $(DEMO_KERNEL)

demo-initramfs: .cache/kernels/$(DEMO_KERNEL)/boot/vmlinuz-$(DEMO_KERNEL) \
		$(DEMO)/$(DEMO_KERNEL)/lib/thpnuma.ko $(GUEST_BIN)/thp-demo $(THPNUMACTL)
	rm -rf $(DEMO)/bin && mkdir -p $(DEMO)/bin $(DEMO)/$(DEMO_KERNEL)
	cp $(GUEST)/demo.sh $(GUEST)/lib/lib.sh $(GUEST_BIN)/thp-demo $(THPNUMACTL) $(DEMO)/bin/
	$(TOP)/tests/vm/mkinitramfs.sh $(DEMO_KERNEL) $(DEMO)/$(DEMO_KERNEL)/lib $(DEMO)/bin \
		$(DEMO)/$(DEMO_KERNEL)/initramfs.cpio

# make trace-demo: the README's tracing examples (tracefs, perf, bpftrace)
# on the demo kernel, with the host's perf and bpftrace in an initramfs of
# their own.
TRACE_DEMO := $(BUILD)/trace-demo
# thp-swapstorm from its own rule (workloads.mk): build/guest-bin only
# gets a copy when the guest programs are built.
TRACE_DEMO_BIN := $(GUEST)/trace-demo.sh $(GUEST)/lib/lib.sh \
	$(GUEST_BIN)/thp-touch $(BUILD)/workloads/thp-swapstorm $(THPNUMACTL)

trace-demo:
	$(TOP)/tests/install-deps.sh trace $(DEMO_KERNEL)
	$(MAKE) -f $(TOP)/Makefile trace-demo-initramfs
	python3 $(TOP)/tests/vm/demo.py $(DEMO_KERNEL) trace-demo.sh

trace-demo-initramfs: .cache/kernels/$(DEMO_KERNEL)/boot/vmlinuz-$(DEMO_KERNEL) \
		$(DEMO)/$(DEMO_KERNEL)/lib/thpnuma.ko $(filter-out $(GUEST)/%,$(TRACE_DEMO_BIN))
	rm -rf $(TRACE_DEMO)/bin && mkdir -p $(TRACE_DEMO)/bin $(TRACE_DEMO)/$(DEMO_KERNEL)
	cp $(TRACE_DEMO_BIN) $$(command -v perf) $$(command -v bpftrace) $(TRACE_DEMO)/bin/
	$(TOP)/tests/vm/mkinitramfs.sh $(DEMO_KERNEL) $(DEMO)/$(DEMO_KERNEL)/lib $(TRACE_DEMO)/bin \
		$(TRACE_DEMO)/$(DEMO_KERNEL)/initramfs.cpio

check: deps
	$(MAKE) -f $(TOP)/Makefile initramfs
	$(TOP)/tests/check.sh
