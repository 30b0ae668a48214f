# Pinned Debian kernel ABIs the project supports, oldest first. Adding a
# kernel of a supported series is this one line: tests/vm/kernel-suite.sh
# derives from the ABI which Debian suite ships it and which compiler
# builds it (bookworm's gcc-12 on this machine for 6.1 and +deb12; the
# trixie chroot's gcc-14 for +deb13; the sid chroot's gcc-16 for +deb14).
# The first entry is the default kernel for `make demo`.
SUPPORTED_KERNELS := 6.1.0-57-amd64 6.12.117+deb12-amd64 6.12.118+deb13-amd64 7.2.13+deb14-amd64 7.3.4+deb13-amd64
