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
# the stats parser, and module/names.c, where the counter names are).
GUEST_LIBS = $(GUEST)/lib/test_util.c $(USERSPACE_LIB_SRCS)
GUEST_HDRS = $(wildcard $(TOP)/tests/include/*.h $(GUEST)/lib/*.h $(TOP)/module/*.h) \
	$(USERSPACE_LIB_HDRS)

.PHONY: guest-bin check-host check-dkms check-vm check-stress

$(GUEST_BIN)/%: $(GUEST)/%.c $(GUEST_LIBS) $(GUEST_HDRS)
	@mkdir -p $(GUEST_BIN)
	$(CC) $(STATIC_CFLAGS) -o $@ $< $(GUEST_LIBS) -lpthread

$(GUEST_BIN)/%: $(GUEST)/helpers/%.c $(GUEST_LIBS) $(GUEST_HDRS)
	@mkdir -p $(GUEST_BIN)
	$(CC) $(STATIC_CFLAGS) -o $@ $< $(GUEST_LIBS) -lpthread

guest-bin: $(addprefix $(GUEST_BIN)/,$(basename $(notdir $(GUEST_C)))) guest-thpnumactl
	@mkdir -p $(GUEST_BIN)
	cp $(GUEST_SH) $(GUEST_BIN)/

TEST_MODULES := warn_on_load stall_on_load ipmodify_owner livepatch_thp

$(BUILD)/%/lib/test-modules.stamp: $(wildcard $(TOP)/tests/modules/*) $(TOP)/module/compat.h
	rm -rf $(BUILD)/$*/testmod && mkdir -p $(BUILD)/$*/testmod $(BUILD)/$*/lib
	cp $(TOP)/tests/modules/* $(TOP)/module/compat.h $(BUILD)/$*/testmod/
	$(if $(filter $*,$(CHROOT_KERNELS)),$(TOP)/tools/build/chroot-kbuild.sh,$(MAKE)) -C /usr/src/linux-headers-$* M=$(abspath $(BUILD)/$*/testmod) modules
	cp $(addprefix $(BUILD)/$*/testmod/,$(addsuffix .ko,$(TEST_MODULES))) $(BUILD)/$*/lib/
	touch $@

# The guests load the module as DKMS installs it, without debug info
# (strip -g). Unstripped it is 14 times larger, and loading it read and
# freed 2.8 MB each time: enough to move bench-overhead's reclaim row
# 1.5% on 6.1, as much with a module that hooks nothing.
$(BUILD)/%/lib/thpnuma.ko: $(BUILD)/%/thpnuma.ko
	@mkdir -p $(dir $@)
	strip -g -o $@ $<

# The kernel's own mm selftests, from its linux-source package
# (conformance.sh). Only CONFORMANCE_KERNELS run them: conformance.sh is
# not a core test.
$(BUILD)/%/conformance/selftests/LIST: $(TOP)/tools/build/conformance-selftests.sh
	$(TOP)/tools/build/conformance-selftests.sh $* $(BUILD)/$*/conformance

# Every supported kernel: the whole MANIFEST on FULL_KERNELS (kernels.mk),
# its `core` lines on the others. STRESS_FOLLOWS=1 (make check with
# CHECK_STRESS) leaves out, on STRESS_KERNELS, the quick forms that
# check-stress runs long right after.
check-vm: $(if $(THPNUMA_PREPARED),,initramfs)
	python3 $(TOP)/tools/vm/harness.py --self-test --kernels $(SUPPORTED_KERNELS) \
		$(if $(CORE_KERNELS),--core-kernels $(CORE_KERNELS)) \
		$(if $(STRESS_FOLLOWS),--long-forms $(TOP)/tests/guest/MANIFEST.stress \
			--long-form-kernels $(STRESS_KERNELS))

# Long forms of the safety tests (tests/guest/MANIFEST.stress), on
# STRESS_KERNELS. THPNUMA_PREPARED=1 (from make check, which made them):
# no packages and images again.
check-stress: $(if $(THPNUMA_PREPARED),,deps)
	$(if $(THPNUMA_PREPARED),,$(MAKE) -f $(TOP)/Makefile $(addprefix initramfs-,$(STRESS_KERNELS)))
	python3 $(TOP)/tools/vm/harness.py --manifest $(TOP)/tests/guest/MANIFEST.stress \
		--logs $(BUILD)/vm-logs-stress --kernels $(STRESS_KERNELS)

check-host:
	$(MAKE) -C $(TOP)/tests/host check
	$(TOP)/tests/deb/version.sh

# The host's dkms for HOST_KERNELS, each chroot's for the others.
check-dkms:
	$(TOP)/tests/dkms/check-dkms.sh $(SUPPORTED_KERNELS)

# The setup takes make's -j; check.sh's parts run one at a time, and the
# makes they start must not see a jobserver they cannot reach (its
# warning would end up in the output the host tests compare).
check: deps
	$(MAKE) -f $(TOP)/Makefile initramfs
	MAKEFLAGS= $(TOP)/tests/check.sh
