/*
 * The one severity rule (plugin/result/severity.h): each kind of code has
 * exactly the levels memgate(1) CODES lists (tests/check-vocabulary holds
 * the page's list to the same table), and each weight its annotation level.
 */
#include <criterion/criterion.h>

#include "memgate.h"
#include "severity.h"

Test(severity, each_kind_has_the_levels_the_manual_lists)
{
	static const struct {
		enum mg_kind kind;
		const char *name, *failed, *passed, *sarif, *codequality, *tag;
	} want[] = {
		{ MG_KIND_EVIDENCE, "evidence", "error", "warning", "error", "blocker", "evidence" },
		{ MG_KIND_HARD, "hard", "error", "warning", "error", "critical", "hard-limit" },
		{ MG_KIND_TARGET, "target", "warning", "notice", "warning", "major", "target" },
		{ MG_KIND_SOFT, "soft", "warning", "notice", "warning", "minor",
		  "exclusion-or-sensitivity" },
		{ MG_KIND_WARNING, "warning", "warning", "warning", "warning", "minor", "warning" },
		{ MG_KIND_NOTICE, "notice", "notice", "notice", "note", "info", "waiver" },
	};
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const mg_kind_levels *l = mg_severity_of_kind(want[i].kind);

		cr_expect_str_eq(l->name, want[i].name);
		cr_expect_str_eq(mg_severity_github(mg_severity_annotation(l->weight, false)),
				 want[i].failed, "%s", want[i].name);
		cr_expect_str_eq(mg_severity_github(mg_severity_annotation(l->weight, true)),
				 want[i].passed, "%s", want[i].name);
		cr_expect_str_eq(mg_severity_sarif(l->sarif), want[i].sarif, "%s", want[i].name);
		cr_expect_str_eq(l->codequality, want[i].codequality, "%s", want[i].name);
		cr_expect_str_eq(l->tag, want[i].tag, "%s", want[i].name);
	}
}

/* Reasons are the hard and soft findings; warnings and notes have
 * sections of their own.  The markers follow the annotation's level. */
Test(severity, reasons_and_markers_follow_the_weight)
{
	cr_expect(mg_severity_is_reason(MG_FINDING_HARD));
	cr_expect(mg_severity_is_reason(MG_FINDING_SOFT));
	cr_expect_not(mg_severity_is_reason(MG_FINDING_WARNING));
	cr_expect_not(mg_severity_is_reason(MG_FINDING_NOTE));
	cr_expect_str_eq(mg_severity_marker(mg_severity_annotation(MG_FINDING_HARD, false)),
			 "\xe2\x9d\x8c");
	cr_expect_str_eq(mg_severity_marker(mg_severity_annotation(MG_FINDING_SOFT, true)),
			 "\xe2\x84\xb9\xef\xb8\x8f");
	cr_expect_str_eq(mg_severity_github_plural(MG_LEVEL_WARNING), "warnings");
}

/* Every code's findings weigh by its kind: a code of every kind. */
Test(severity, every_code_has_a_kind_with_levels)
{
	size_t n, i;
	const mg_code *c = mg_codes(&n);

	for (i = 0; i < n; i++)
		cr_expect_not_null(mg_severity_of_kind(c[i].kind)->codequality, "%s", c[i].name);
}
