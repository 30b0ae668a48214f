# thpnuma top-level Makefile. Kbuild re-enters it with KERNELRELEASE set.
ifneq ($(KERNELRELEASE),)
include $(src)/version.mk
export THPNUMA_VERSION
include $(src)/Kbuild
else

TOP := $(patsubst %/,%,$(dir $(abspath $(lastword $(MAKEFILE_LIST)))))
include $(TOP)/version.mk
include $(TOP)/kernels.mk

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
PREFIX ?= /usr/local
DESTDIR ?=
CC ?= cc
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wno-unused-parameter
BUILD := build

.PHONY: all module modules userspace install clean check check-host check-dkms \
	check-vm check-stress demo kernels

all: module

module modules:
	$(MAKE) -C $(KDIR) M=$(TOP) THPNUMA_VERSION=$(THPNUMA_VERSION) modules

# Module built out of the source tree for one pinned kernel (used by the VM).
$(patsubst %,$(BUILD)/%/thpnuma.ko,$(SUPPORTED_KERNELS)): $(BUILD)/%/thpnuma.ko: $(wildcard $(TOP)/module/*.[ch]) $(TOP)/Kbuild $(TOP)/module/Kbuild
	rm -rf $(BUILD)/$*/src && mkdir -p $(BUILD)/$*/src
	cp -r $(TOP)/Kbuild $(TOP)/version.mk $(TOP)/module $(BUILD)/$*/src/
	$(MAKE) -C /usr/src/linux-headers-$* M=$(abspath $(BUILD)/$*/src) modules
	cp $(BUILD)/$*/src/module/thpnuma.ko $@

include $(TOP)/userspace/userspace.mk
include $(TOP)/tests/tests.mk
include $(TOP)/userspace/workloads/workloads.mk

install: module userspace
	install -D -m 0644 $(TOP)/module/thpnuma.ko $(DESTDIR)/lib/modules/$(KVER)/extra/thpnuma.ko
	@if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi
	$(MAKE) -f $(TOP)/Makefile install-userspace

clean:
	$(MAKE) -C $(KDIR) M=$(TOP) clean 2>/dev/null || true
	rm -rf $(BUILD)

endif
