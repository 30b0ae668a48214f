# The tools around the tests: host packages, the pinned kernels, the
# guest initramfs images, and make demo / make trace-demo. Included by the
# top-level Makefile after tests/tests.mk (the images hold the guest tests).
.PHONY: deps deps-demo initramfs chroots demo demo-initramfs trace-demo trace-demo-initramfs

deps:
	$(TOP)/tools/build/install-deps.sh

# A pattern's second % is a literal %, so one rule per pinned kernel:
# .cache/kernels/KVER/boot/vmlinuz-KVER, fetched on a fresh checkout.
$(foreach k,$(SUPPORTED_KERNELS),.cache/kernels/$(k)/boot/vmlinuz-$(k)): .cache/kernels/%:
	$(TOP)/tools/vm/fetch-kernel.sh $(firstword $(subst /, ,$*))

# The initramfs is rebuilt every time: it is cheap and its inputs are many.
# CONFORMANCE_KERNELS (Makefile) boot with the conformance selftests.
.SECONDEXPANSION:
initramfs-%: .cache/kernels/$$*/boot/vmlinuz-$$* $(BUILD)/%/lib/thpnuma.ko $(BUILD)/%/lib/test-modules.stamp guest-bin $$(if $$(filter $$*,$(CONFORMANCE_KERNELS)),$(BUILD)/$$*/conformance/selftests/LIST)
	$(TOP)/tools/vm/mkinitramfs.sh $* $(BUILD)/$*/lib $(GUEST_BIN) $(BUILD)/$*/initramfs.cpio

initramfs: chroots $(addprefix initramfs-,$(SUPPORTED_KERNELS))

# The chroots the CHROOT_KERNELS build in, first and two at a time under
# make -j2: the builds that need one wait on its lock (mkchroot.sh), so
# otherwise both jobs wait on the same debootstrap. A chroot made before
# is left to those builds, which install a new kernel's headers in it.
suite_of = $(if $(KERNEL_SUITE),$(shell $(KERNEL_SUITE) --builder $1))
CHROOT_SUITES = $(sort $(foreach k,$(CHROOT_KERNELS),$(call suite_of,$(k))))
chroots: $$(addprefix chroot-,$$(CHROOT_SUITES))

chroot-%:
	[ -f $(TOP)/.cache/chroots/$*/.complete ] || $(TOP)/tools/build/mkchroot.sh $* $(filter $(CHROOT_KERNELS),$(shell $(KERNEL_SUITE) --list $*)) >/dev/null

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
	$(TOP)/tools/build/install-deps.sh demo $(DEMO_KERNEL)

$(DEMO)/$(DEMO_KERNEL)/lib/thpnuma.ko: $(BUILD)/$(DEMO_KERNEL)/thpnuma.ko
	@mkdir -p $(dir $@)
	strip -g -o $@ $<

# Recursive, as for make check: the packages are installed by then, so
# make reads pkg-config's flags for libkmod.
demo: deps-demo
	$(MAKE) -f $(TOP)/Makefile demo-initramfs
	python3 $(TOP)/tools/vm/demo.py $(DEMO_KERNEL)

# What the demo's initramfs carries in /tests, as TRACE_DEMO_BIN below.
DEMO_BIN := $(GUEST)/demo.sh $(GUEST)/lib/lib.sh $(GUEST_BIN)/thp-demo \
	$(GUEST_BIN)/modload $(THPNUMACTL)

demo-initramfs: .cache/kernels/$(DEMO_KERNEL)/boot/vmlinuz-$(DEMO_KERNEL) \
		$(DEMO)/$(DEMO_KERNEL)/lib/thpnuma.ko $(filter-out $(GUEST)/%,$(DEMO_BIN))
	rm -rf $(DEMO)/bin && mkdir -p $(DEMO)/bin $(DEMO)/$(DEMO_KERNEL)
	cp $(DEMO_BIN) $(DEMO)/bin/
	$(TOP)/tools/vm/mkinitramfs.sh $(DEMO_KERNEL) $(DEMO)/$(DEMO_KERNEL)/lib $(DEMO)/bin \
		$(DEMO)/$(DEMO_KERNEL)/initramfs.cpio

# make trace-demo: the README's tracing examples (tracefs, perf, bpftrace)
# on the demo kernel, with the host's perf and bpftrace in an initramfs of
# their own.
TRACE_DEMO := $(BUILD)/trace-demo
# thp-swapstorm from its own rule (workloads.mk): build/guest-bin only
# gets a copy when the guest programs are built.
TRACE_DEMO_BIN := $(GUEST)/trace-demo.sh $(GUEST)/lib/lib.sh \
	$(GUEST_BIN)/thp-touch $(GUEST_BIN)/modload $(BUILD)/workloads/thp-swapstorm \
	$(THPNUMACTL)

trace-demo:
	$(TOP)/tools/build/install-deps.sh trace $(DEMO_KERNEL)
	$(MAKE) -f $(TOP)/Makefile trace-demo-initramfs
	python3 $(TOP)/tools/vm/demo.py $(DEMO_KERNEL) trace-demo.sh

trace-demo-initramfs: .cache/kernels/$(DEMO_KERNEL)/boot/vmlinuz-$(DEMO_KERNEL) \
		$(DEMO)/$(DEMO_KERNEL)/lib/thpnuma.ko $(filter-out $(GUEST)/%,$(TRACE_DEMO_BIN))
	rm -rf $(TRACE_DEMO)/bin && mkdir -p $(TRACE_DEMO)/bin $(TRACE_DEMO)/$(DEMO_KERNEL)
	cp $(TRACE_DEMO_BIN) $$(command -v perf) $$(command -v bpftrace) $(TRACE_DEMO)/bin/
	$(TOP)/tools/vm/mkinitramfs.sh $(DEMO_KERNEL) $(DEMO)/$(DEMO_KERNEL)/lib $(TRACE_DEMO)/bin \
		$(TRACE_DEMO)/$(DEMO_KERNEL)/initramfs.cpio

