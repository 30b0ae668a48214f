# Pinned Debian kernel ABIs the project supports. A new ABI is a one-line change.
# The first entry is the default kernel for `make demo`.
SUPPORTED_KERNELS := 6.1.0-57-amd64 6.12.117+deb12-amd64
# Kernels on their way in: they build (in the trixie chroot of
# tests/vm/mkchroot.sh, as their headers pin gcc-14) and boot
# (make initramfs-KVER, make check-vm-new), but `make check` and the DKMS
# test do not run them yet.
NEW_KERNELS := 7.3.4+deb13-amd64
