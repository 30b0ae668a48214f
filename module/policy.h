/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Policy decision for thpnuma: plain C with no kernel dependencies, so the
 * host unit tests compile this very file.
 */
#ifndef THPNUMA_POLICY_H
#define THPNUMA_POLICY_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
typedef uint32_t u32;
typedef uint64_t u64;
#endif
#include "counters.h"

/*
 * Each list below is written once, as EM()/EMe() entries (counters.h): the
 * enum, its names array, the trace event's symbols and thpnumactl's usage
 * text derive from it, and a switch over the enum has no default:, so
 * that the build (-Werror=switch) names a case a new entry lacks.
 */

/* The policies: the policy setting, the tasks file and the trace event. */
#define THPNUMA_POLICIES(EM, EMe)					\
	EM(THPNUMA_POLICY_KERNEL,		"kernel")		\
	EM(THPNUMA_POLICY_STRICT_LOCAL,		"strict-local")		\
	EM(THPNUMA_POLICY_LOCAL_THEN_REMOTE,	"local-then-remote")	\
	EMe(THPNUMA_POLICY_BUDGET,		"budget")

enum thpnuma_policy {
	THPNUMA_POLICIES(THPNUMA_EM_ENUM, THPNUMA_EM_ENUM)
};

enum {
	THPNUMA_NR_POLICIES = 0 THPNUMA_POLICIES(THPNUMA_EM_COUNT,
						 THPNUMA_EM_COUNT)
};

/* "kernel|strict-local|local-then-remote|budget", for usage texts. */
#define THPNUMA_POLICY_CHOICES \
	THPNUMA_POLICIES(THPNUMA_EM_CHOICE, THPNUMA_EM_CHOICE_LAST)

#define THPNUMA_SCOPES(EM, EMe)						\
	EM(THPNUMA_SCOPE_ALL,			"all")			\
	EMe(THPNUMA_SCOPE_MADVISE,		"madvise")

enum thpnuma_scope {
	THPNUMA_SCOPES(THPNUMA_EM_ENUM, THPNUMA_EM_ENUM)
};

enum {
	THPNUMA_NR_SCOPES = 0 THPNUMA_SCOPES(THPNUMA_EM_COUNT, THPNUMA_EM_COUNT)
};

#define THPNUMA_SCOPE_CHOICES \
	THPNUMA_SCOPES(THPNUMA_EM_CHOICE, THPNUMA_EM_CHOICE_LAST)

/* Which THP kinds and orders the policy covers. */
#define THPNUMA_COVERAGES(EM, EMe)					\
	/* anonymous PMD-size faults */					\
	EM(THPNUMA_COVERAGE_PMD,		"pmd")			\
	/* anonymous faults of every order */				\
	EM(THPNUMA_COVERAGE_PMD_MTHP,		"pmd+mthp")		\
	/* and shmem/tmpfs, every order */				\
	EMe(THPNUMA_COVERAGE_ALL,		"all")

enum thpnuma_coverage {
	THPNUMA_COVERAGES(THPNUMA_EM_ENUM, THPNUMA_EM_ENUM)
};

enum {
	THPNUMA_NR_COVERAGES = 0 THPNUMA_COVERAGES(THPNUMA_EM_COUNT,
						   THPNUMA_EM_COUNT)
};

#define THPNUMA_COVERAGE_CHOICES \
	THPNUMA_COVERAGES(THPNUMA_EM_CHOICE, THPNUMA_EM_CHOICE_LAST)

/* zone_reclaim bits, as in vm.zone_reclaim_mode. */
#define THPNUMA_ZR_RECLAIM	0x1u	/* reclaim clean page cache */
#define THPNUMA_ZR_WRITE	0x2u	/* may enter the filesystem */
#define THPNUMA_ZR_SWAP		0x4u	/* may swap out anonymous memory */
#define THPNUMA_ZR_MASK		0x7u

/* Load-time parameters: the most overrides, and cgroup settings, at once. */
#define THPNUMA_MAX_TASKS_LIMIT		65536
#define THPNUMA_MAX_CGROUPS_LIMIT	65536

/*
 * budget_us: the budget policy's bound on what a local attempt that needs
 * compaction or reclaim may cost, in microseconds (budget.h).
 */
#define THPNUMA_BUDGET_DEFAULT_US	1000u
#define THPNUMA_BUDGET_MAX_US		1000000u

/* Longest valid control-file write, newline included. */
#define THPNUMA_MAX_WRITE	32

extern const char *const thpnuma_policy_names[THPNUMA_NR_POLICIES];
extern const char *const thpnuma_scope_names[THPNUMA_NR_SCOPES];
extern const char *const thpnuma_coverage_names[THPNUMA_NR_COVERAGES];

/*
 * The whole run-time configuration packed in one word, so the fault path
 * reads a consistent set with a single load and no lock.
 */
struct thpnuma_config {
	unsigned int policy;
	unsigned int zone_reclaim;
	unsigned int scope;
	unsigned int coverage;
	unsigned int budget_us;
};

/*
 * Bits 24-31 belong to THPNUMA_CFG_LOOKUPS and the hook, bits 52 and up to
 * the hook. Inline: the fault path unpacks the word it decided with. A
 * 64-bit word: one load and one cmpxchg on every architecture the module
 * builds for (x86_64).
 */
#define CFG_POLICY_SHIFT	0
#define CFG_ZR_SHIFT		8
#define CFG_SCOPE_SHIFT		16
#define CFG_COVERAGE_SHIFT	20
#define CFG_BUDGET_SHIFT	32
#define CFG_FIELD_MASK		0xffu
#define CFG_SMALL_FIELD_MASK	0xfu
#define CFG_BUDGET_MASK		0xfffffu

/* The word at load, before any setting: coverage all, the default budget. */
#define THPNUMA_CFG_DEFAULT \
	((u64)THPNUMA_COVERAGE_ALL << CFG_COVERAGE_SHIFT | \
	 (u64)THPNUMA_BUDGET_DEFAULT_US << CFG_BUDGET_SHIFT)

static inline u64 thpnuma_config_pack(const struct thpnuma_config *cfg)
{
	return (u64)(cfg->policy & CFG_FIELD_MASK) << CFG_POLICY_SHIFT |
	       (u64)(cfg->zone_reclaim & CFG_FIELD_MASK) << CFG_ZR_SHIFT |
	       (u64)(cfg->scope & CFG_SMALL_FIELD_MASK) << CFG_SCOPE_SHIFT |
	       (u64)(cfg->coverage & CFG_SMALL_FIELD_MASK) <<
			CFG_COVERAGE_SHIFT |
	       (u64)(cfg->budget_us & CFG_BUDGET_MASK) << CFG_BUDGET_SHIFT;
}

static inline struct thpnuma_config thpnuma_config_unpack(u64 word)
{
	struct thpnuma_config cfg = {
		.policy		= (word >> CFG_POLICY_SHIFT) & CFG_FIELD_MASK,
		.zone_reclaim	= (word >> CFG_ZR_SHIFT) & CFG_FIELD_MASK,
		.scope		= (word >> CFG_SCOPE_SHIFT) & CFG_SMALL_FIELD_MASK,
		.coverage	= (word >> CFG_COVERAGE_SHIFT) &
				  CFG_SMALL_FIELD_MASK,
		.budget_us	= (word >> CFG_BUDGET_SHIFT) & CFG_BUDGET_MASK,
	};

	return cfg;
}

/*
 * The run-time settings, each a field of struct thpnuma_config, a module
 * parameter and a debugfs file of the same name.
 */
enum thpnuma_setting_id {
	THPNUMA_SETTING_POLICY,
	THPNUMA_SETTING_ZONE_RECLAIM,
	THPNUMA_SETTING_SCOPE,
	THPNUMA_SETTING_COVERAGE,
	THPNUMA_SETTING_BUDGET_US,
};

enum { THPNUMA_NR_SETTINGS = THPNUMA_SETTING_BUDGET_US + 1 };

/* What a setting's value is, and so how it parses and shows. */
enum thpnuma_setting_kind {
	THPNUMA_SETTING_CHOICE,		/* one of choices[] */
	THPNUMA_SETTING_BITS,		/* zone_reclaim bits, 0-7 */
	THPNUMA_SETTING_MICROSECONDS,	/* 1-THPNUMA_BUDGET_MAX_US */
};

struct thpnuma_setting {
	enum thpnuma_setting_id id;
	const char *name;
	enum thpnuma_setting_kind kind;
	const char *const *choices;	/* THPNUMA_SETTING_CHOICE only */
	unsigned int nr_choices;
	const char *range;		/* the others: "0-7", for messages */
};

extern const struct thpnuma_setting thpnuma_settings[THPNUMA_NR_SETTINGS];

unsigned int thpnuma_config_get_field(const struct thpnuma_config *cfg,
				      enum thpnuma_setting_id id);
void thpnuma_config_set_field(struct thpnuma_config *cfg,
			      enum thpnuma_setting_id id, unsigned int value);

/* A whole write to setting @s: a choice or a number in range; else -EINVAL. */
int thpnuma_parse_setting(const struct thpnuma_setting *s, const char *buf,
			  size_t len, unsigned int *out);
/* @value as the setting's file shows it: "a [b] c\n", "5\n" or "1000\n". */
int thpnuma_format_setting(const struct thpnuma_setting *s,
			   unsigned int value, char *buf, size_t size);

/*
 * Set in the global word while any per-process override exists, so the
 * fault path pays for a lookup only then. pack() leaves it clear.
 */
#define THPNUMA_CFG_OVERRIDES	(1u << 24)
/*
 * The same while any per-cgroup setting exists. The decided word
 * (alloc.h) reuses bits 24 and up once these are masked off.
 */
#define THPNUMA_CFG_CGROUPS	(1u << 25)
#define THPNUMA_CFG_LOOKUPS	(THPNUMA_CFG_OVERRIDES | THPNUMA_CFG_CGROUPS)

/* An override's zone_reclaim that follows the global setting. */
#define THPNUMA_ZR_INHERIT	0xffu
/* The same for its budget_us (never 0 in the global word). */
#define THPNUMA_BUDGET_INHERIT	0u

/*
 * The configuration a process with @override (a packed policy, and a
 * zone_reclaim and budget_us or their INHERIT values) runs under: scope
 * and coverage stay global.
 */
u64 thpnuma_config_apply_override(u64 global, u64 override);

/*
 * What the hook does with one call of the hooked allocator. Each traced
 * one has its trace name; THPNUMA_ACT_IGNORE, the first, is not traced.
 */
#define THPNUMA_ACTIONS(EM, EMe)					\
	/* explicit mempolicy: count, untouched */			\
	EM(THPNUMA_ACT_PASSTHROUGH,		"passthrough")		\
	/* policy kernel: kernel decides, count */			\
	EM(THPNUMA_ACT_COUNT_ONLY,		"kernel")		\
	EM(THPNUMA_ACT_STRICT_LOCAL,		"strict-local")		\
	EM(THPNUMA_ACT_LOCAL_THEN_REMOTE,	"local-then-remote")	\
	EMe(THPNUMA_ACT_BUDGET,			"budget")

enum thpnuma_action {
	THPNUMA_ACT_IGNORE,		/* not a THP fault in scope: untouched */
	THPNUMA_ACTIONS(THPNUMA_EM_ENUM, THPNUMA_EM_ENUM)
};

enum {
	THPNUMA_NR_ACTIONS = 1 THPNUMA_ACTIONS(THPNUMA_EM_COUNT,
					       THPNUMA_EM_COUNT)
};

struct thpnuma_fault {
	unsigned int kind;	/* enum thpnuma_kind */
	bool pmd_order;		/* order == HPAGE_PMD_ORDER (and hugepage) */
	bool thp_fault;		/* called from a THP fault path */
	bool madvised;		/* VMA has VM_HUGEPAGE (anonymous only) */
	bool has_mempolicy;	/* VMA or task has a non-default mempolicy */
	bool local_disallowed;	/* the task's cpuset excludes the local node */
};

/*
 * shmem and tmpfs huge pages are always asked for: by the mount's huge=
 * option, shmem_enabled, or the advice the kernel already checked.
 */
static inline bool thpnuma_madvised(const struct thpnuma_fault *f)
{
	return f->kind == THPNUMA_KIND_SHMEM || f->madvised;
}

/* Whether @coverage includes the kind and order of @f. */
static inline bool thpnuma_covers(unsigned int coverage,
				  const struct thpnuma_fault *f)
{
	switch ((enum thpnuma_coverage)coverage) {
	case THPNUMA_COVERAGE_PMD:
		return f->kind == THPNUMA_KIND_ANON && f->pmd_order;
	case THPNUMA_COVERAGE_PMD_MTHP:
		return f->kind != THPNUMA_KIND_SHMEM;
	case THPNUMA_COVERAGE_ALL:
		break;
	}
	return true;
}

/* What the hook does with @f under @config; inline on the fault path. */
static inline enum thpnuma_action
thpnuma_decide(u64 config, const struct thpnuma_fault *f)
{
	struct thpnuma_config cfg = thpnuma_config_unpack(config);

	if (!f->thp_fault || !thpnuma_covers(cfg.coverage, f))
		return THPNUMA_ACT_IGNORE;
	if (cfg.scope == THPNUMA_SCOPE_MADVISE && !thpnuma_madvised(f))
		return THPNUMA_ACT_IGNORE;
	/*
	 * An explicit memory policy is the user's word: it wins. So does a
	 * cpuset that keeps the task off its CPU's node: there is no local
	 * node to prefer, and strict-local would never get a THP.
	 */
	if (f->has_mempolicy || f->local_disallowed)
		return THPNUMA_ACT_PASSTHROUGH;

	switch ((enum thpnuma_policy)cfg.policy) {
	case THPNUMA_POLICY_KERNEL:
		break;
	case THPNUMA_POLICY_STRICT_LOCAL:
		return THPNUMA_ACT_STRICT_LOCAL;
	case THPNUMA_POLICY_LOCAL_THEN_REMOTE:
		return THPNUMA_ACT_LOCAL_THEN_REMOTE;
	case THPNUMA_POLICY_BUDGET:
		return THPNUMA_ACT_BUDGET;
	}
	/* The kernel policy, and no other value reaches the word. */
	return THPNUMA_ACT_COUNT_ONLY;
}

/* Why a THP fault was left to the kernel, for its trace event. */
#define THPNUMA_PASSTHROUGH_REASONS(EM, EMe)				\
	/* not left: the policy decided it */				\
	EM(THPNUMA_PT_NONE,			"-")			\
	/* the VMA or the task has a mempolicy */			\
	EM(THPNUMA_PT_MEMPOLICY,		"mempolicy")		\
	/* the task's cpuset excludes the local node */			\
	EM(THPNUMA_PT_CPUSET,			"cpuset")		\
	/* scope=madvise and the VMA is not advised */			\
	EM(THPNUMA_PT_SCOPE,			"scope")		\
	/* coverage leaves out this kind or order */			\
	EMe(THPNUMA_PT_COVERAGE,		"coverage")

enum thpnuma_passthrough_reason {
	THPNUMA_PASSTHROUGH_REASONS(THPNUMA_EM_ENUM, THPNUMA_EM_ENUM)
};

enum {
	THPNUMA_NR_PASSTHROUGH_REASONS =
		0 THPNUMA_PASSTHROUGH_REASONS(THPNUMA_EM_COUNT,
					      THPNUMA_EM_COUNT)
};

/* Where a fault's THP came from, for its trace event. */
#define THPNUMA_FAULT_RESULTS(EM, EMe)					\
	/* passthrough: the kernel allocates */				\
	EM(THPNUMA_RESULT_NONE,			"-")			\
	EM(THPNUMA_RESULT_LOCAL,		"local")		\
	EM(THPNUMA_RESULT_REMOTE,		"remote")		\
	EMe(THPNUMA_RESULT_FALLBACK,		"fallback")

enum thpnuma_fault_result {
	THPNUMA_FAULT_RESULTS(THPNUMA_EM_ENUM, THPNUMA_EM_ENUM)
};

enum {
	THPNUMA_NR_FAULT_RESULTS = 0 THPNUMA_FAULT_RESULTS(THPNUMA_EM_COUNT,
							   THPNUMA_EM_COUNT)
};

/* What the local attempt of a placing policy did, for the trace event. */
#define THPNUMA_LOCAL_ATTEMPTS(EM, EMe)					\
	EM(THPNUMA_LOCAL_NOT_RUN,		"none")			\
	EM(THPNUMA_LOCAL_SUCCEEDED,		"succeeded")		\
	EMe(THPNUMA_LOCAL_FAILED,		"failed")

enum thpnuma_local_attempt {
	THPNUMA_LOCAL_ATTEMPTS(THPNUMA_EM_ENUM, THPNUMA_EM_ENUM)
};

enum {
	THPNUMA_NR_LOCAL_ATTEMPTS = 0 THPNUMA_LOCAL_ATTEMPTS(THPNUMA_EM_COUNT,
							     THPNUMA_EM_COUNT)
};

/* The trace names, indexed by the enums above (no name: not traced). */
extern const char *const thpnuma_action_names[THPNUMA_NR_ACTIONS];
extern const char *const
thpnuma_passthrough_reason_names[THPNUMA_NR_PASSTHROUGH_REASONS];
extern const char *const thpnuma_fault_result_names[THPNUMA_NR_FAULT_RESULTS];
extern const char *const
thpnuma_local_attempt_names[THPNUMA_NR_LOCAL_ATTEMPTS];

/* The reason for a THP fault that thpnuma_decide() did not act on. */
enum thpnuma_passthrough_reason
thpnuma_passthrough_reason(u64 config, const struct thpnuma_fault *f);

/* How hard the local attempt of local-then-remote may work. */
struct thpnuma_local_effort {
	bool reclaim;		/* direct reclaim may run at all */
	bool enter_fs;		/* reclaim keeps __GFP_FS */
	bool swap;		/* reclaim keeps __GFP_IO */
	bool wake_kswapd;	/* keep __GFP_KSWAPD_RECLAIM */
};

struct thpnuma_local_effort thpnuma_local_effort(unsigned int zone_reclaim);

/*
 * mTHP and shmem faults try their enabled orders from the largest down and
 * end on a small page: one fault, several hooked calls, counted once. A
 * failed attempt leaves a pending fallback for its task; the fault's next
 * attempt, of the same kind and a smaller order, continues it. What one
 * attempt does with the task's pending fallback:
 */
struct thpnuma_step {
	bool end_pending;	/* it was an earlier, ended fault's: count it */
	bool continues;		/* it is this fault's: carry its time on */
	bool count_attempt;	/* got a THP: the fault ends, count it here */
	bool keep_pending;	/* failed: the fault goes on, pending */
};

/* @pending: the task has one, of @pending_kind, its last try @last_order. */
struct thpnuma_step thpnuma_step_down(bool pending, unsigned int pending_kind,
				      unsigned int last_order,
				      unsigned int kind, unsigned int order,
				      bool got_thp);

/*
 * Strict parsers for control-file writes. @buf need not be NUL-terminated;
 * one trailing newline is allowed. They return 0 or -EINVAL.
 */
int thpnuma_parse_choice(const char *buf, size_t len,
			 const char *const *names, unsigned int nr_names,
			 unsigned int *out);
int thpnuma_parse_zone_reclaim(const char *buf, size_t len,
			       unsigned int *out);
int thpnuma_parse_budget_us(const char *buf, size_t len, unsigned int *out);

/* Largest PID the tasks file accepts: the kernel's PID_MAX_LIMIT on 64-bit. */
#define THPNUMA_PID_MAX		4194304

/*
 * What an override write sets after its PID or path: "POLICY [ZONE_RECLAIM
 * [BUDGET_US]]", either number "-" to follow the global setting, or
 * "default" to drop the override. The same words the listings show.
 */
#define THPNUMA_OVERRIDE_GRAMMAR "POLICY [0-7|- [1-1000000|-]]"

/* The longest tasks write: "4194304 local-then-remote 7 1000000\n". */
#define THPNUMA_MAX_TASK_WRITE	48

/* A parsed write to the tasks file: "PID " and an override, or "PID default". */
struct thpnuma_task_write {
	int pid;
	bool clear;			/* "default": remove the override */
	unsigned int policy;
	unsigned int zone_reclaim;	/* THPNUMA_ZR_INHERIT when absent */
	unsigned int budget_us;		/* THPNUMA_BUDGET_INHERIT when absent */
};

int thpnuma_parse_task_write(const char *buf, size_t len,
			     struct thpnuma_task_write *out);

/* The longest cgroup path the cgroups file takes, and its longest write. */
#define THPNUMA_CGROUP_PATH_MAX		1024
#define THPNUMA_MAX_CGROUP_WRITE	(THPNUMA_CGROUP_PATH_MAX + 32)

/*
 * A parsed write to the cgroups file: "PATH " and an override, or "PATH
 * default", PATH a cgroup v2 path such as /system.slice/db.service.
 */
struct thpnuma_cgroup_write {
	const char *path;		/* in the written buffer, not terminated */
	size_t path_len;
	bool clear;			/* "default": remove the setting */
	unsigned int policy;
	unsigned int zone_reclaim;	/* THPNUMA_ZR_INHERIT when absent */
	unsigned int budget_us;		/* THPNUMA_BUDGET_INHERIT when absent */
};

int thpnuma_parse_cgroup_write(const char *buf, size_t len,
			       struct thpnuma_cgroup_write *out);

/*
 * A packed override as the tasks and cgroups files list it, and as their
 * writes take it: "POLICY ZONE_RECLAIM BUDGET_US", "-" for what follows
 * the global setting. Returns the length.
 */
int thpnuma_format_override(char *buf, size_t size, u64 override);

/* "kernel [strict-local] local-then-remote\n"; returns the length. */
int thpnuma_format_choices(char *buf, size_t size, const char *const *names,
			   unsigned int nr_names, unsigned int current_choice);

#endif /* THPNUMA_POLICY_H */
