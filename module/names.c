// SPDX-License-Identifier: GPL-2.0
/*
 * Every name and help text of the module's enums and counters, from the
 * X-macro lists in policy.h, counters.h and budget.h: one definition for
 * the module, thpnumactl and the tests. Kernel-free.
 */
#include "budget.h"
#include "counters.h"
#include "policy.h"

const char *const thpnuma_policy_names[THPNUMA_NR_POLICIES] = {
	THPNUMA_POLICIES(THPNUMA_EM_NAME, THPNUMA_EM_NAME)
};

const char *const thpnuma_scope_names[THPNUMA_NR_SCOPES] = {
	THPNUMA_SCOPES(THPNUMA_EM_NAME, THPNUMA_EM_NAME)
};

const char *const thpnuma_coverage_names[THPNUMA_NR_COVERAGES] = {
	THPNUMA_COVERAGES(THPNUMA_EM_NAME, THPNUMA_EM_NAME)
};

const char *const thpnuma_action_names[THPNUMA_NR_ACTIONS] = {
	THPNUMA_ACTIONS(THPNUMA_EM_NAME, THPNUMA_EM_NAME)
};

const char *const
thpnuma_passthrough_reason_names[THPNUMA_NR_PASSTHROUGH_REASONS] = {
	THPNUMA_PASSTHROUGH_REASONS(THPNUMA_EM_NAME, THPNUMA_EM_NAME)
};

const char *const thpnuma_fault_result_names[THPNUMA_NR_FAULT_RESULTS] = {
	THPNUMA_FAULT_RESULTS(THPNUMA_EM_NAME, THPNUMA_EM_NAME)
};

const char *const thpnuma_local_attempt_names[THPNUMA_NR_LOCAL_ATTEMPTS] = {
	THPNUMA_LOCAL_ATTEMPTS(THPNUMA_EM_NAME, THPNUMA_EM_NAME)
};

const char *const thpnuma_budget_decision_names[THPNUMA_NR_BUDGET_DECISIONS] = {
	THPNUMA_BUDGET_DECISIONS(THPNUMA_EM_NAME, THPNUMA_EM_NAME)
};

const char *const thpnuma_kind_names[THPNUMA_NR_KINDS] = {
	THPNUMA_KINDS(THPNUMA_EM_NAME, THPNUMA_EM_NAME)
};

#define COUNTER_NAME(id, name, help)	#name,
#define COUNTER_HELP(id, name, help)	help,

const char *const thpnuma_counter_names[THPNUMA_NR_COUNTERS] = {
	THPNUMA_NODE_COUNTERS(COUNTER_NAME)
};

const char *const thpnuma_counter_help[THPNUMA_NR_COUNTERS] = {
	THPNUMA_NODE_COUNTERS(COUNTER_HELP)
};

const char *const thpnuma_policy_counter_names[THPNUMA_NR_POLICY_COUNTERS] = {
	THPNUMA_POLICY_COUNTERS(COUNTER_NAME)
};

const char *const thpnuma_policy_counter_help[THPNUMA_NR_POLICY_COUNTERS] = {
	THPNUMA_POLICY_COUNTERS(COUNTER_HELP)
};

const char *const thpnuma_cgroup_counter_names[THPNUMA_NR_CGROUP_COUNTERS] = {
	THPNUMA_CGROUP_COUNTERS(COUNTER_NAME)
};

const char *const thpnuma_cgroup_counter_help[THPNUMA_NR_CGROUP_COUNTERS] = {
	THPNUMA_CGROUP_COUNTERS(COUNTER_HELP)
};

#define HIST_OUTCOME_NAME(id, name)	#name,

const char *const thpnuma_hist_outcome_names[THPNUMA_NR_HIST_OUTCOMES] = {
	THPNUMA_HIST_OUTCOMES(HIST_OUTCOME_NAME)
};

const char *const thpnuma_order_outcome_names[THPNUMA_NR_ORDER_OUTCOMES] = {
	THPNUMA_ORDER_OUTCOMES(COUNTER_NAME)
};

const char *const thpnuma_order_outcome_help[THPNUMA_NR_ORDER_OUTCOMES] = {
	THPNUMA_ORDER_OUTCOMES(COUNTER_HELP)
};
