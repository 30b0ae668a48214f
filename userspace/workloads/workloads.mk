# Workloads and the policy benchmark; included by the top-level Makefile.
.PHONY: workloads bench

WORKLOADS_SRC := $(TOP)/userspace/workloads
WORKLOADS_BIN := $(BUILD)/workloads
WORKLOADS := thp-swapstorm thp-remote-latency thp-fault-bench reclaim-churn
# The workloads link the userspace library (lib.mk, from userspace.mk).
WORKLOADS_CFLAGS := $(CFLAGS) $(WARN) -static -I$(USERSPACE_LIB) -I$(TOP)/module

workloads: $(addprefix $(WORKLOADS_BIN)/,$(WORKLOADS))

$(WORKLOADS_BIN)/%: $(WORKLOADS_SRC)/%.c $(WORKLOADS_SRC)/workload.c \
		$(WORKLOADS_SRC)/workload.h $(USERSPACE_LIB_SRCS) $(USERSPACE_LIB_HDRS)
	@mkdir -p $(WORKLOADS_BIN)
	$(CC) $(WORKLOADS_CFLAGS) -o $@ $< $(WORKLOADS_SRC)/workload.c \
		$(USERSPACE_LIB_SRCS)

# The guest gets the workloads and the benchmark's guest script in /tests.
guest-bin: guest-workloads

.PHONY: guest-workloads
guest-workloads: workloads
	@mkdir -p $(GUEST_BIN)
	install -m 0755 $(addprefix $(WORKLOADS_BIN)/,$(WORKLOADS)) $(TOP)/bench/thpnuma-bench.sh \
		$(TOP)/bench/mglru-check.sh $(GUEST_BIN)/

# The policy matrix on BENCH_KERNELS (kernels.mk), one VM boot per kernel.
bench: deps
	$(MAKE) -f $(TOP)/Makefile $(addprefix initramfs-,$(BENCH_KERNELS))
	python3 $(TOP)/bench/run.py --kernels $(BENCH_KERNELS)

# The hook-overhead A/B alone on every supported kernel, under an
# instruction clock (1c2n-icount): each kind of fault, then the reclaim
# A/B, 6 rounds of fixed work; the ratios repeat whatever the host's load.
OVERHEAD_KINDS := thp base mthp16 mthp64 shmem4k shmem2m
.PHONY: bench-overhead
bench-overhead: deps
	$(MAKE) -f $(TOP)/Makefile $(addprefix initramfs-,$(SUPPORTED_KERNELS))
	python3 $(TOP)/bench/run.py --kernels $(SUPPORTED_KERNELS) --jobs 1 \
		--topology 1c2n-icount --out $(TOP)/bench/results/overhead \
		--set BENCH_MATRIX=0 --set BENCH_BASELINES= --set BENCH_ROUNDS=6 \
		--set "BENCH_AB_KINDS=$(OVERHEAD_KINDS)" --set BENCH_AB_PASSES=20 \
		--reclaim-rounds 6
