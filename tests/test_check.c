/*
 * memgate check's joining module: include/memgate/check.h.
 *
 * Each test builds the demo repository with the real git
 * (tests/demo-repo.h) and reads what mg_check_run returns: the decision,
 * where each input came from, the gate, waivers judged on a given day,
 * policy changes between two commits, and the errors that stop a check;
 * then the list and manifest back ends and the small helpers.
 */
#include <string.h>

#include "demo-repo.h"
#include "helpers.h"
#include "digest.h"
#include "memgate/buf.h"
#include "memgate/check.h"

#define WAIVERS \
	"waivers:\n" \
	"  - candidate: checkpoint\n" \
	"    reason: memory_saving_below_floor\n" \
	"    justification: \"332 MB is what this laptop GPU can give\"\n" \
	"    owner: \"@perf-team\"\n" \
	"    expires: 2027-01-31\n" \
	"  - candidate: ghost\n" \
	"    reason: memory_over_budget\n" \
	"    justification: \"no such candidate\"\n" \
	"    owner: \"@perf-team\"\n" \
	"    expires: 2027-01-31\n" \
	"  - candidate: baseline\n" \
	"    reason: quality_over_floor\n" \
	"    justification: \"the baseline passes it\"\n" \
	"    owner: \"@perf-team\"\n" \
	"    expires: 2027-01-31\n"

/* The text of waiver i of r. */
static char *waiver_message(const mg_check_result *r, size_t i)
{
	mg_buf b = MG_BUF_INIT;

	mg_check_waiver_message(&b, r, i);
	return mg_buf_detach(&b, NULL);
}

static void expect_waiver(const mg_check_result *r, size_t i, enum mg_waiver_status status,
			  const char *message)
{
	char *text = waiver_message(r, i);

	cr_expect_eq(r->waivers[i].status, status, "waiver %zu: status %d", i,
		     (int)r->waivers[i].status);
	cr_expect_str_eq(text, message);
	free(text);
}

/* The demo decides tune with checkpoint selected, and the result says
 * where each input came from: the commit, paths and the report's hash. */
Test(check, demo_decides_tune_and_names_its_inputs)
{
	char dir[MG_DEMO_DIR_SIZE], head[41], hex[MG_DIGEST_HEX_SIZE], *report;
	size_t len;
	mg_check_result *r;

	mg_demo_repo(dir);
	r = mg_demo_check(dir, (mg_check_options){ 0 });
	cr_expect_eq(r->decision->verdict, MG_TUNE);
	cr_expect_str_eq(mg_outcome_name(r->decision->reason),
			 "memory_saving_below_meaningful_threshold");
	cr_expect_str_eq(r->decision->selected, "checkpoint");
	cr_expect(r->decision->applicable);
	cr_expect_not(r->passed, "tune is in the policy's fail_on");
	cr_expect(r->fail_on[MG_TUNE] && r->fail_on[MG_REJECT] && !r->fail_on[MG_ACCEPT]);

	mg_demo_rev(head, dir, "HEAD");
	cr_expect_str_eq(r->rev, head);
	cr_expect_str_eq(r->policy_rev, head);
	cr_expect_not(r->worktree);
	cr_expect_str_eq(r->policy_ref.path, ".memgate.yml");
	cr_expect_str_eq(r->manifest_ref.path, MG_DEMO_MANIFEST);
	cr_expect_str_eq(r->report_ref.path, MG_DEMO_REPORT);
	cr_expect(r->report_ref.read);
	cr_expect_str_eq(r->report_ref.commit, head);
	report = mg_test_read("fixtures/reports/76_real_gpu_memory.flat.json", &len);
	cr_assert_eq(mg_digest_sha256_hex(hex, report, len), 0);
	cr_expect_str_eq(r->report_ref.sha256, hex);
	cr_expect_not(r->approved_ref.read, "the demo's manifest has no approved_result");
	cr_expect_null(r->head_policy, "the policy is read at --rev");
	cr_expect_eq(r->change_count, 0);
	cr_expect_eq(r->waiver_count, 0);
	cr_expect_eq(strlen(r->today), 10, "today comes from the clock: '%s'", r->today);
	cr_expect_not(r->today_given);
	free(report);
	mg_check_result_free(r);
	mg_demo_remove(dir);
}

/* --fail-on replaces gate.fail_on; an item's status is its exit code. */
Test(check, fail_on_decides_the_gate_and_the_exit_status)
{
	char dir[MG_DEMO_DIR_SIZE];
	mg_check_options opt = { .fail_on_set = true };
	mg_check_item item = { .policy = ".memgate.yml" };

	mg_demo_repo(dir);
	opt.fail_on[MG_REJECT] = true;
	item.result = mg_demo_check(dir, opt);
	cr_expect(item.result->passed, "tune passes when only reject fails");
	cr_expect_eq(mg_check_item_status(&item), 0);
	mg_check_result_free(item.result);

	item.result = mg_demo_check(dir, (mg_check_options){ 0 });
	cr_expect_eq(mg_check_item_status(&item), 1);
	mg_check_result_free(item.result);

	item.result = NULL;
	cr_expect_eq(mg_check_item_status(&item), 2, "an item that was not decided");
	mg_demo_remove(dir);
}

/* Waivers are judged on --today: applied, matching nothing, expired; each
 * has its sentence. */
Test(check, waivers_are_applied_unmatched_or_expired_on_the_day_given)
{
	char dir[MG_DEMO_DIR_SIZE];
	mg_check_result *r;

	mg_demo_repo(dir);
	mg_demo_commit(dir, ".memgate.yml", WAIVERS, 1);
	r = mg_demo_check(dir, (mg_check_options){ .today = "2026-06-01" });
	cr_assert_eq(r->waiver_count, 3);
	cr_expect_str_eq(r->today, "2026-06-01");
	cr_expect(r->today_given);
	cr_expect(r->waivers[0].candidate_found);
	cr_expect_not(r->waivers[1].candidate_found);
	expect_waiver(r, 0, MG_WAIVER_APPLIED,
		      "waiver: 'checkpoint' passes memory_saving_below_floor until 2027-01-31 "
		      "(owner @perf-team): 332 MB is what this laptop GPU can give");
	expect_waiver(r, 1, MG_WAIVER_UNMATCHED,
		      "waiver for 'ghost' (memory_over_budget) matches nothing: the report has no "
		      "candidate 'ghost'; remove it or correct it");
	expect_waiver(r, 2, MG_WAIVER_UNMATCHED,
		      "waiver for 'baseline' (quality_over_floor) matches nothing: 'baseline' does "
		      "not fail quality_over_floor under the base budget nor in any scenario; "
		      "remove it or correct it");
	cr_expect_eq(r->decision->base.evaluations[1].status, MG_STATUS_FEASIBLE,
		     "the waiver lets checkpoint pass its saving floor");
	mg_check_result_free(r);

	r = mg_demo_check(dir, (mg_check_options){ .today = "2027-02-01" });
	expect_waiver(r, 0, MG_WAIVER_EXPIRED,
		      "waiver for 'checkpoint' (memory_saving_below_floor, owner @perf-team) "
		      "expired on 2027-01-31 and is ignored (today is 2027-02-01)");
	cr_expect_eq(r->decision->verdict, MG_TUNE, "expired waivers change nothing");
	cr_expect_str_eq(mg_outcome_name(r->decision->reason),
			 "memory_saving_below_meaningful_threshold");
	mg_check_result_free(r);
	mg_demo_remove(dir);
}

/* A policy read at --policy-rev that differs from the one at --rev: each
 * key that changed, with both values and whether it loosens the gate. */
Test(check, policy_changes_are_listed_with_their_effect)
{
	char dir[MG_DEMO_DIR_SIZE], base[41], *text;
	size_t len;
	mg_check_result *r;
	mg_buf b = MG_BUF_INIT;

	mg_demo_repo(dir);
	mg_demo_rev(base, dir, "HEAD");
	text = mg_test_read("fixtures/demo/memgate.yml", &len);
	*strstr(text, "11200") = '9';   /* memory_cap_mb 91200: looser */
	mg_demo_commit(dir, ".memgate.yml", text, 0);
	free(text);
	r = mg_demo_check(dir, (mg_check_options){ .policy_rev = base });
	cr_assert_eq(r->change_count, 1);
	cr_expect_str_eq(r->changes[0].key, "budget.memory_cap_mb");
	cr_expect_eq(r->changes[0].effect, MG_CHANGE_LOOSENS);
	cr_expect_eq(r->changes[0].pos.line, 12);
	mg_check_change_text(&b, &r->changes[0].before);
	mg_buf_puts(&b, " -> ");
	mg_check_change_text(&b, &r->changes[0].after);
	cr_expect_str_eq(b.ptr, "11200 -> 91200");
	cr_expect_eq(r->policy->rules.budget.value[MG_MEMORY_CAP_MB], 11200,
		     "the policy at --policy-rev decides");
	cr_expect_not_null(r->head_policy);
	mg_buf_free(&b);
	mg_check_result_free(r);
	mg_demo_remove(dir);
}

/* Commit the demo policy with its memory_cap_mb written `cap` (and `tail`
 * appended) and check it against `base`, gating on reject only (tune
 * passes). */
static mg_check_result *check_cap(const char *dir, const char *base, const char *cap,
				  const char *tail)
{
	mg_check_options opt = { .policy_rev = base, .fail_on_set = true };
	mg_buf b = MG_BUF_INIT;
	char *text, *at;
	size_t len;
	mg_check_result *r;

	text = mg_test_read("fixtures/demo/memgate.yml", &len);
	at = strstr(text, "11200");
	mg_buf_printf(&b, "%.*s%s%s%s", (int)(at - text), text, cap, at + 5, tail);
	mg_demo_commit(dir, ".memgate.yml", b.ptr, 0);
	opt.fail_on[MG_REJECT] = true;
	r = mg_demo_check(dir, opt);
	mg_buf_free(&b);
	free(text);
	return r;
}

/* The change's own policy decides its evidence only when it tightens or
 * changes a key: not for an equal policy or a loosening (the base's
 * decides, as before); a tightening the evidence meets passes, one it
 * fails fails the gate, the base's decision kept. */
Test(check, the_changes_own_policy_decides_its_evidence_when_it_tightens)
{
	char dir[MG_DEMO_DIR_SIZE], base[41];
	mg_check_result *r;

	mg_demo_repo(dir);
	mg_demo_rev(base, dir, "HEAD");

	r = check_cap(dir, base, "11200", "# a comment\n");
	cr_expect_not_null(r->head_policy, "another blob");
	cr_expect_eq(r->change_count, 0);
	cr_expect_null(r->proposed, "an equal policy: not decided again");
	cr_expect(r->passed);
	mg_check_result_free(r);

	r = check_cap(dir, base, "91200", "");
	cr_expect_eq(r->changes[0].effect, MG_CHANGE_LOOSENS);
	cr_expect_null(r->proposed, "a loosening: the base's policy decides");
	cr_expect(r->passed);
	mg_check_result_free(r);

	r = check_cap(dir, base, "11000", "");
	cr_expect_eq(r->changes[0].effect, MG_CHANGE_TIGHTENS);
	cr_assert_not_null(r->proposed, "a tightening: decided by the change's policy too");
	cr_assert_not_null(r->proposed->result);
	cr_expect_eq(r->proposed->result->policy->rules.budget.value[MG_MEMORY_CAP_MB], 11000);
	cr_expect_not(r->proposed->fails, "the evidence meets it");
	cr_expect(r->passed);
	mg_check_result_free(r);

	r = check_cap(dir, base, "5000", "");
	cr_assert_not_null(r->proposed);
	cr_assert_not_null(r->proposed->result);
	cr_expect_eq(r->proposed->result->decision->verdict, MG_REJECT);
	cr_expect(r->proposed->fails, "no candidate fits 5000 MB");
	cr_expect_null(r->proposed->error);
	cr_expect_not(r->passed, "the change fails");
	cr_expect_eq(r->decision->verdict, MG_TUNE, "the base's decision stands");
	cr_expect_eq(r->policy->rules.budget.value[MG_MEMORY_CAP_MB], 11200);
	mg_check_result_free(r);
	mg_demo_remove(dir);
}

/* What stops a check: an error naming the input, nothing decided. */
Test(check, errors_name_what_stopped_the_check)
{
	char dir[MG_DEMO_DIR_SIZE];
	mg_check_result *r = NULL;
	mg_check_options opt = { 0 };
	mg_error err;

	mg_demo_repo(dir);
	opt.dir = dir;
	opt.today = "2026-13-01";
	cr_expect_lt(mg_check_run(&r, &opt, &err), 0);
	cr_expect_null(r);
	cr_expect_str_eq(err.message, "--today: no such day '2026-13-01' (a month is 01 to 12)");

	opt.today = NULL;
	opt.policy_path = "missing.yml";
	cr_expect_lt(mg_check_run(&r, &opt, &err), 0);
	cr_expect_null(r);
	cr_expect(strstr(err.message, "missing.yml") || strstr(err.file, "missing.yml"),
		  "the missing policy is named: %s: %s", err.file, err.message);
	mg_demo_remove(dir);
}

/* Report bytes that differ from the manifest's pin: an evidence issue,
 * and the decision is reject. */
Test(check, a_report_that_differs_from_its_pin_is_rejected)
{
	char dir[MG_DEMO_DIR_SIZE];
	mg_check_result *r;

	mg_demo_repo(dir);
	mg_demo_commit(dir, MG_DEMO_REPORT, "\n", 1);
	r = mg_demo_check(dir, (mg_check_options){ 0 });
	cr_expect_eq(r->decision->verdict, MG_REJECT);
	cr_expect(r->decision->issue[MG_ISSUE_REPORT_HASH_MISMATCH]);
	cr_expect_not(r->decision->applicable);
	cr_expect_null(r->decision->selected);
	mg_check_result_free(r);
	mg_demo_remove(dir);
}

/* memgate list: the policy files committed at a revision, in byte order. */
Test(check, list_names_the_committed_policy_files_in_byte_order)
{
	char dir[MG_DEMO_DIR_SIZE], **paths = NULL;
	size_t count = 0;
	mg_error err;

	mg_demo_repo(dir);
	mg_demo_commit(dir, "memgate.yml", "not a policy name\n", 0);
	mg_demo_sh("mkdir -p '%s/%s'", dir, "svc/b");
	mg_demo_commit(dir, "svc/b/train.memgate.yml", "version: 1\n", 0);
	cr_assert_eq(mg_check_list(&paths, &count, dir, NULL, &err), 0, "%s", err.message);
	cr_assert_eq(count, 2);
	cr_expect_str_eq(paths[0], ".memgate.yml");
	cr_expect_str_eq(paths[1], "svc/b/train.memgate.yml");
	mg_check_list_free(paths, count);

	cr_assert_eq(mg_check_list(&paths, &count, dir, "HEAD~2", &err), 0, "%s", err.message);
	cr_expect_eq(count, 1, "at HEAD~2 only the demo's policy");
	mg_check_list_free(paths, count);
	mg_demo_remove(dir);
}

/* memgate manifest: the committed report's path and SHA-256. */
Test(check, manifest_pins_the_committed_report)
{
	char dir[MG_DEMO_DIR_SIZE], hex[MG_DIGEST_HEX_SIZE], want[160], *report, *text = NULL;
	char **warnings = NULL, **notes = NULL;
	size_t len, warning_count = 0, note_count = 0;
	mg_manifest_options opt = { .report_path = MG_DEMO_REPORT };
	mg_error err;

	mg_demo_repo(dir);
	opt.dir = dir;
	cr_assert_eq(mg_check_make_manifest(&text, &warnings, &warning_count, &notes, &note_count,
					    &opt, &err), 0, "%s", err.message);
	report = mg_test_read("fixtures/reports/76_real_gpu_memory.flat.json", &len);
	cr_assert_eq(mg_digest_sha256_hex(hex, report, len), 0);
	snprintf(want, sizeof(want), "\"sha256\": \"%s\"", hex);
	cr_expect_not_null(strstr(text, want), "%s", text);
	cr_expect_not_null(strstr(text, "\"path\": \"" MG_DEMO_REPORT "\""), "%s", text);
	cr_expect_eq(warning_count, 0);
	free(report);
	free(text);
	free(warnings);
	free(notes);

	opt.report_path = "benchmarks/results/none.json";
	text = NULL;
	cr_expect_lt(mg_check_make_manifest(&text, &warnings, &warning_count, &notes,
					    &note_count, &opt, &err), 0);
	cr_expect_null(text);
	cr_expect(strstr(err.message, "none.json") || strstr(err.file, "none.json"),
		  "%s: %s", err.file, err.message);
	mg_demo_remove(dir);
}

Test(check, policy_file_names)
{
	cr_expect(mg_check_is_policy_name(".memgate.yml"));
	cr_expect(mg_check_is_policy_name("train.memgate.yml"));
	cr_expect_not(mg_check_is_policy_name("memgate.yml"));
	cr_expect_not(mg_check_is_policy_name(".memgate.yaml"));
	cr_expect_not(mg_check_is_policy_name("x.memgate.yml.bak"));
}

Test(check, change_effects_have_words)
{
	cr_expect_str_eq(mg_check_effect_name(MG_CHANGE_TIGHTENS), "tightens");
	cr_expect_str_eq(mg_check_effect_name(MG_CHANGE_LOOSENS), "loosens");
	cr_expect_str_eq(mg_check_effect_name(MG_CHANGE_ALTERS), "changes");
}

/* A change's value in words, for each kind. */
Test(check, change_values_in_words)
{
	static const bool verdicts[MG_VERDICT_COUNT] = { false, true, true };
	mg_change_value v[] = {
		{ .kind = MG_CHANGE_UNSET },
		{ .kind = MG_CHANGE_NUMBER, .number = 9400 },
		{ .kind = MG_CHANGE_STRING, .string = "gpu-a" },
		{ .kind = MG_CHANGE_VERDICTS, .verdicts = verdicts },
	};
	const char *want[] = { "unset", "9400", "'gpu-a'", "[tune, reject]" };
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		mg_buf b = MG_BUF_INIT;

		mg_check_change_text(&b, &v[i]);
		cr_expect_str_eq(b.ptr, want[i]);
		mg_buf_free(&b);
	}
}

/* The record's words for what became of a waiver, in enum order. */
Test(check, waiver_status_names)
{
	cr_expect_str_eq(mg_check_waiver_status_name(MG_WAIVER_APPLIED), "applied");
	cr_expect_str_eq(mg_check_waiver_status_name(MG_WAIVER_UNMATCHED), "unmatched");
	cr_expect_str_eq(mg_check_waiver_status_name(MG_WAIVER_EXPIRED), "expired");
	cr_expect_null(mg_check_waiver_status_name(MG_WAIVER_STATUS_COUNT));
}
