# Pinned Debian kernel ABIs the project supports, oldest first. Adding a
# kernel of a supported series is this one line: tools/build/kernel-suite.sh
# derives from the ABI which Debian suite ships it and which compiler
# builds it (bookworm's gcc-12 on this machine for 6.1; the bookworm
# chroot for +deb12, whose headers pull in the kernel image; the bullseye
# chroot's gcc-10 for 5.10; the trixie chroot's gcc-14 for +deb13; the sid
# chroot's gcc-16 for +deb14).
SUPPORTED_KERNELS := 5.10.0-46-amd64 6.1.0-57-amd64 6.12.117+deb12-amd64 6.12.118+deb13-amd64 7.2.13+deb14-amd64 7.3.4+deb13-amd64

# The kernel series those make up, oldest first: the only ones the module
# builds for. This file is also read by kbuild (module/Kbuild) and ships
# in the DKMS source tree for that; thpnumactl gets the list at build time
# for its messages, and tests/deb/version.sh checks dkms.conf's
# BUILD_EXCLUSIVE_KERNEL against it.
thpnuma_series = $(word 1,$(subst ., ,$(1))).$(word 2,$(subst ., ,$(1)))
thpnuma_uniq = $(if $(1),$(firstword $(1)) $(call thpnuma_uniq,$(filter-out $(firstword $(1)),$(1))))
SUPPORTED_SERIES := $(strip $(call thpnuma_uniq,$(foreach k,$(SUPPORTED_KERNELS),$(call thpnuma_series,$(k)))))
# $(call thpnuma_check_kernel,RELEASE): empty, or why the module will not
# build for RELEASE (for $(error)).
thpnuma_check_kernel = $(if $(filter $(call thpnuma_series,$(1)),$(SUPPORTED_SERIES)),,thpnuma does not support kernel $(1) (series $(call thpnuma_series,$(1))); supported series: $(SUPPORTED_SERIES))
# The kernels that run every test of `make check`, and `make bench`: the
# oldest folio kernel and the newest (the others run the core tests). The
# first is the default kernel for `make demo`.
FULL_KERNELS := 6.1.0-57-amd64 7.3.4+deb13-amd64
# `make check-stress` (the long forms and the kernel's own mm selftests):
# FULL_KERNELS and the pre-folio 5.10, whose fault path differs most.
STRESS_KERNELS := 5.10.0-46-amd64 $(FULL_KERNELS)
# `make bench` and `make bench-overhead`: the same three, so that the
# hook's cost on 5.10, where ftrace must save every register for it,
# stands beside the others'.
BENCH_KERNELS := $(STRESS_KERNELS)
