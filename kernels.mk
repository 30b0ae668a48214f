# Pinned Debian kernel ABIs the project supports, oldest first. Adding a
# kernel of a supported series is this one line: tests/vm/kernel-suite.sh
# derives from the ABI which Debian suite ships it and which compiler
# builds it (bookworm's gcc-12 on this machine for 6.1 and +deb12; the
# bullseye chroot's gcc-10 for 5.10; the trixie chroot's gcc-14 for +deb13;
# the sid chroot's gcc-16 for +deb14).
SUPPORTED_KERNELS := 5.10.0-46-amd64 6.1.0-57-amd64 6.12.117+deb12-amd64 6.12.118+deb13-amd64 7.2.13+deb14-amd64 7.3.4+deb13-amd64
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
