# Userspace targets; included by the top-level Makefile.
.PHONY: static-userspace install-userspace
userspace:
static-userspace:
install-userspace:
