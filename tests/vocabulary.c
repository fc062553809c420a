/*
 * Print the decision core's vocabularies as one JSON object, for
 * tests/check-vocabulary, which holds every list outside C (the JSON
 * Schemas, the man page's tables and lists) against them:
 *
 *   verdicts, outcomes (the decision's reasons), next_actions, issues,
 *   statuses, reasons (the candidates' screening reasons), waivable,
 *   thresholds, measured_metrics, noise_modes, covers, rank_by, waiver_statuses, change_effects and codes
 *   (every code a finding carries, with its kind and summary), kinds (each
 *   kind's levels in the outputs, plugin/result/severity.h);
 *
 *   policy_keys (the policy's key table: section, key, JSON Schema type
 *   and how a change moves the gate, one row each);
 *
 *   commands (memgate's, in order), and for each command NAME
 *   options_NAME (its option table, hidden options left out: names,
 *   argument, required, repeat, help and the man page's addition) and
 *   help_NAME (its -h, as memgate prints it).
 *
 * Each list is read from the core's own tables through their accessors,
 * and the options from the front end's tables (plugin/cli/options.h: this
 * program links the front end but main.c), so a word or an option added
 * there shows up here with no edit.
 */
#include <stdio.h>

#include "memgate.h"
#include "options.h"
#include "severity.h"

typedef const char *(*name_fn)(int);

static void put_list(const char *key, name_fn name, int count, bool (*keep)(int))
{
	int i, n = 0;

	printf("  \"%s\": [", key);
	for (i = 0; i < count; i++)
		if (!keep || keep(i))
			printf("%s\"%s\"", n++ ? ", " : "", name(i));
	printf("],\n");
}

static const char *verdict(int i) { return mg_verdict_name((enum mg_verdict)i); }
static const char *outcome(int i) { return mg_outcome_name((enum mg_outcome)i); }
static const char *next_action(int i) { return mg_next_action_name((enum mg_next_action)i); }
static const char *issue(int i) { return mg_issue_name((enum mg_issue)i); }
static const char *status(int i) { return mg_status_name((enum mg_status)i); }
static const char *reason(int i) { return mg_reason_name((enum mg_reason)i); }
static const char *threshold(int i) { return mg_threshold_name((enum mg_threshold)i); }
static const char *noise(int i) { return mg_noise_mode_name((enum mg_noise_mode)i); }
static const char *covers(int i) { return mg_covers_name((enum mg_covers)i); }
static const char *rank_by(int i) { return mg_rank_by_name((enum mg_rank_by)i); }
static const char *waiver(int i) { return mg_check_waiver_status_name((enum mg_waiver_status)i); }
static const char *effect(int i) { return mg_check_effect_name((enum mg_change_effect)i); }
static bool waivable(int i) { return mg_reason_waiver_may_name((enum mg_reason)i); }
static const char *metric(int i) { return mg_metric_name((enum mg_metric_id)i); }
static bool measured(int i) { return mg_metric_measured((enum mg_metric_id)i); }

/* s as a JSON string: the core's words are ASCII and UTF-8 text. */
static void put_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

/* The statuses: enum mg_status has no count; the names end where the
 * table does. */
static int status_count(void)
{
	int n = 0;

	while (n < 64 && mg_status_name((enum mg_status)n))
		n++;
	return n;
}

/* s as a JSON string, or null. */
static void put_string_or_null(const char *s)
{
	if (s)
		put_string(s);
	else
		printf("null");
}

/* The policy's key table (memgate/policy.h): [section, key, type, move]. */
static void put_policy_keys(void)
{
	static const char *const moves[] = {
		"none", "changes", "presence", "bound", "more", "order", "subset", "entries",
	};
	const mg_policy_key *rows;
	size_t n, i;

	rows = mg_policy_keys(&n);
	printf("  \"policy_keys\": [");
	for (i = 0; i < n; i++) {
		printf("%s[", i ? ",\n    " : "\n    ");
		put_string(mg_policy_section_name(rows[i].section));
		printf(", ");
		put_string(rows[i].key ? rows[i].key : mg_threshold_name((enum mg_threshold)rows[i].arg));
		printf(", ");
		put_string(rows[i].schema);
		printf(", \"%s\"]", moves[rows[i].move]);
	}
	printf("],\n");
}

/* One option of a table, as a JSON object. */
static void put_option(const struct cli_option *o)
{
	char letter[2] = { o->id < 256 ? (char)o->id : '\0', '\0' };

	printf("{\"short\": ");
	put_string_or_null(*letter ? letter : NULL);
	printf(", \"long\": ");
	put_string_or_null(o->name);
	printf(", \"arg\": ");
	put_string_or_null(o->arg);
	printf(", \"required\": %s, \"repeat\": %s, \"help\": ",
	       o->flags & CLI_OPT_REQUIRED ? "true" : "false",
	       o->flags & CLI_OPT_REPEAT ? "true" : "false");
	put_string(o->help);
	printf(", \"more\": ");
	put_string_or_null(o->more);
	printf("}");
}

/* commands, then options_NAME and help_NAME of each command. */
static void put_commands(void)
{
	const struct cli_command *const *c;
	const struct cli_option *o;
	mg_buf help = MG_BUF_INIT;
	int n;

	printf("  \"commands\": [");
	for (c = cli_commands; *c; c++)
		printf("%s\"%s\"", c == cli_commands ? "" : ", ", (*c)->name);
	printf("],\n");
	for (c = cli_commands; *c; c++) {
		printf("  \"options_%s\": [", (*c)->name);
		for (n = 0, o = (*c)->options; o->id; o++) {
			if (o->flags & CLI_OPT_HIDDEN)
				continue;
			printf("%s", n++ ? ",\n    " : "\n    ");
			put_option(o);
		}
		printf("],\n  \"help_%s\": ", (*c)->name);
		cli_help(&help, *c);
		put_string(help.ptr);
		mg_buf_free(&help);
		printf(",\n");
	}
}

/* "kinds": each kind of code with its levels (severity.h): name, the
 * annotation's when the gate fails and when it passes, SARIF's, Code
 * Quality's. */
static void put_kinds(void)
{
	int k;

	printf("  \"kinds\": [");
	for (k = 0; k <= MG_KIND_NOTICE; k++) {
		const mg_kind_levels *l = mg_severity_of_kind((enum mg_kind)k);

		printf("%s[\"%s\", \"%s\", \"%s\", \"%s\", \"%s\"]", k ? ",\n    " : "\n    ",
		       l->name, mg_severity_github(mg_severity_annotation(l->weight, false)),
		       mg_severity_github(mg_severity_annotation(l->weight, true)),
		       mg_severity_sarif(l->sarif), l->codequality);
	}
	printf("]\n");
}

int main(void)
{
	const mg_code *codes;
	size_t i, n;

	printf("{\n");
	put_list("verdicts", verdict, MG_VERDICT_COUNT, NULL);
	put_list("outcomes", outcome, MG_OUTCOME_COUNT, NULL);
	put_list("next_actions", next_action, MG_NEXT_ACTION_COUNT, NULL);
	put_list("issues", issue, MG_ISSUE_COUNT, NULL);
	put_list("statuses", status, status_count(), NULL);
	put_list("reasons", reason, MG_REASON_COUNT, NULL);
	put_list("waivable", reason, MG_REASON_COUNT, waivable);
	put_list("thresholds", threshold, MG_THRESHOLD_COUNT, NULL);
	put_list("measured_metrics", metric, MG_METRIC_COUNT, measured);
	put_list("noise_modes", noise, MG_NOISE_MODE_COUNT, NULL);
	put_list("covers", covers, MG_COVERS_COUNT, NULL);
	put_list("rank_by", rank_by, MG_RANK_BY_COUNT, NULL);
	put_list("waiver_statuses", waiver, MG_WAIVER_STATUS_COUNT, NULL);
	put_list("change_effects", effect, MG_CHANGE_EFFECT_COUNT, NULL);
	put_policy_keys();
	put_commands();
	codes = mg_codes(&n);
	printf("  \"codes\": [");
	for (i = 0; i < n; i++) {
		printf("%s[\"%s\", \"%s\", ", i ? ",\n    " : "", codes[i].name,
		       mg_severity_of_kind(codes[i].kind)->name);
		put_string(codes[i].summary);
		printf("]");
	}
	printf("],\n");
	put_kinds();
	printf("}\n");
	return 0;
}
