# Pinned Debian kernel ABIs the project supports. A new ABI is a one-line change.
# The first entry is the default kernel for `make demo`.
SUPPORTED_KERNELS := 6.1.0-57-amd64 6.12.117+deb12-amd64
