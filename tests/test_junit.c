/*
 * JUnit XML: include/memgate/junit.h.  Every report is read back with a
 * small strict XML 1.0 reader written here (well-formedness, references,
 * the characters XML can carry, valid UTF-8), and with `xmllint --noout`
 * when it is installed.
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "helpers.h"
#include "digest.h"
#include "memgate/codequality.h"
#include "memgate/junit.h"
#include "memgate/manifest.h"
#include "memgate/check.h"

#define BIT(r) (1u << (r))
#define MANIFEST "bench/75_manifest.json"
#define REPORT "bench/76_report.json"
#define MAX_CANDIDATES 16

static struct {
	mg_check_result r;
	mg_decision d;
	mg_evaluation ev[MAX_CANDIDATES];
	size_t feasible[MAX_CANDIDATES];
	mg_scenario sc[2];
	mg_policy policy;
	mg_manifest manifest;
	mg_report report;
	char *warnings[1];
} fx;

static void set_ref(mg_input_ref *ref, const char *path)
{
	ref->path = (char *)path;
	memset(ref->commit, '1', 40);
	memset(ref->blob, 'b', 40);
	memset(ref->sha256, 'e', 64);
	ref->read = true;
}

/* Four candidates against memory_cap_mb 11200, min_samples_per_s 1 and
 * min_memory_saving_mb 256: checkpoint accepted, the gate passes. */
static mg_check_result *build(void)
{
	mg_check_result *r = &fx.r;
	mg_decision *d = &fx.d;

	mg_findings_free(fx.r.findings, fx.r.finding_count);   /* the last test's */
	memset(&fx, 0, sizeof(fx));
	d->base = mg_fx_seed_screening(fx.ev, fx.feasible);
	d->verdict = MG_ACCEPT;
	d->reason = MG_O_SELECTION_STABLE_ACROSS_THRESHOLDS;
	d->next_action = MG_N_SEND_TO_REGRESSION_ACCEPTANCE;
	d->selected = d->best = "checkpoint";
	d->applicable = true;
	mg_fx_threshold(&d->budget, MG_MEMORY_CAP_MB, 11200);
	mg_fx_threshold(&d->budget, MG_MIN_SAMPLES_PER_S, 1.0);
	mg_fx_threshold(&d->budget, MG_MIN_MEMORY_SAVING_MB, 256);
	d->sensitivity_evaluated = d->best_candidate_stable = d->feasible_set_stable = true;
	d->stability_tested = true;
	d->interpretation = "stable";
	d->scenarios = fx.sc;
	d->scenario_count = 2;
	snprintf(fx.sc[0].id, sizeof(fx.sc[0].id), "stricter[0]");
	mg_fx_threshold(&fx.sc[0].overrides, MG_MEMORY_CAP_MB, 9452);
	snprintf(fx.sc[1].id, sizeof(fx.sc[1].id), "stricter[1]");
	mg_fx_threshold(&fx.sc[1].overrides, MG_MIN_SAMPLES_PER_S, 1.5);
	fx.sc[0].best = fx.sc[1].best = "checkpoint";
	fx.policy.path = ".memgate.yml";
	fx.policy.threshold_pos[MG_MIN_SAMPLES_PER_S] = (mg_pos){ 11, 22 };
	fx.policy.threshold_pos[MG_MIN_MEMORY_SAVING_MB] = (mg_pos){ 12, 25 };
	fx.policy.stricter_pos = NULL;
	fx.manifest.path = MANIFEST;
	fx.manifest.source_sha256 = "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff";
	fx.manifest.source_sha256_pos = (mg_pos){ 4, 15 };
	fx.report.path = REPORT;
	memset(r->rev, '1', 40);
	memset(r->policy_rev, '1', 40);
	set_ref(&r->policy_ref, ".memgate.yml");
	set_ref(&r->manifest_ref, MANIFEST);
	set_ref(&r->report_ref, REPORT);
	r->policy = &fx.policy;
	r->manifest = &fx.manifest;
	r->report = &fx.report;
	r->decision = d;
	r->fail_on[MG_REJECT] = r->fail_on[MG_TUNE] = true;
	r->passed = true;
	return r;
}

/* ---- a strict reader for what the renderer writes ---- */

#define MAX_ATTRS 8

typedef struct xelem {
	char *name;
	char *attr[MAX_ATTRS][2];   /* name, decoded value */
	size_t attrs;
	mg_buf text;                /* decoded character data directly inside */
	size_t parent;              /* SIZE_MAX for the root */
} xelem;

typedef struct xdoc {
	xelem *e;
	size_t count;
} xdoc;

/* The characters XML 1.0 can carry (production [2] Char). */
static bool is_xml_char(uint32_t c)
{
	return c == 0x9 || c == 0xa || c == 0xd || (c >= 0x20 && c <= 0xd7ff) ||
	       (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
}

/* One well-formed UTF-8 character at p: its length, and its code point. */
static size_t utf8_char(const unsigned char *p, uint32_t *cp)
{
	size_t n = p[0] < 0x80 ? 1 : p[0] >= 0xc2 && p[0] <= 0xdf ? 2 :
		   p[0] >= 0xe0 && p[0] <= 0xef ? 3 : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
	size_t i;

	cr_assert(n, "byte 0x%02x cannot start a UTF-8 character", p[0]);
	*cp = n == 1 ? p[0] : p[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		cr_assert((p[i] & 0xc0) == 0x80, "truncated UTF-8 sequence");
		*cp = (*cp << 6) | (p[i] & 0x3f);
	}
	cr_assert(!(n == 3 && *cp < 0x800) && !(n == 4 && *cp < 0x10000) &&
		  !(*cp >= 0xd800 && *cp <= 0xdfff) && *cp <= 0x10ffff, "ill-formed UTF-8");
	return n;
}

static void put_utf8(mg_buf *out, uint32_t c)
{
	char b[4];

	if (c < 0x80) {
		mg_buf_putc(out, (char)c);
		return;
	}
	if (c < 0x800) {
		b[0] = (char)(0xc0 | (c >> 6));
		b[1] = (char)(0x80 | (c & 0x3f));
		mg_buf_put(out, b, 2);
	} else if (c < 0x10000) {
		b[0] = (char)(0xe0 | (c >> 12));
		b[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		b[2] = (char)(0x80 | (c & 0x3f));
		mg_buf_put(out, b, 3);
	} else {
		b[0] = (char)(0xf0 | (c >> 18));
		b[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		b[2] = (char)(0x80 | ((c >> 6) & 0x3f));
		b[3] = (char)(0x80 | (c & 0x3f));
		mg_buf_put(out, b, 4);
	}
}

/* After '&': a predefined entity or a character reference to a Char. */
static const char *read_reference(const char *p, mg_buf *out)
{
	static const char *const entities[][2] = {
		{ "amp;", "&" }, { "lt;", "<" }, { "gt;", ">" }, { "quot;", "\"" }, { "apos;", "'" },
	};
	char *end;
	unsigned long c;
	size_t i;

	for (i = 0; i < 5; i++)
		if (!strncmp(p, entities[i][0], strlen(entities[i][0]))) {
			mg_buf_puts(out, entities[i][1]);
			return p + strlen(entities[i][0]);
		}
	cr_assert(p[0] == '#', "unknown entity at '%.10s'", p);
	c = p[1] == 'x' ? strtoul(p + 2, &end, 16) : strtoul(p + 1, &end, 10);
	cr_assert(*end == ';' && end > p + 1 + (p[1] == 'x'), "bad character reference '%.10s'", p);
	cr_assert(is_xml_char((uint32_t)c), "reference to U+%04lx, which XML cannot carry", c);
	put_utf8(out, (uint32_t)c);
	return end + 1;
}

/* Character data up to `stop` ('<' in content, the quote in an attribute). */
static const char *read_chars(const char *p, char stop, mg_buf *out)
{
	uint32_t cp;
	size_t n;

	while (*p != stop) {
		cr_assert(*p, "the document ends inside character data");
		if (*p == '&') {
			p = read_reference(p + 1, out);
			continue;
		}
		cr_assert(*p != '<', "'<' in an attribute value");
		cr_assert(stop != '<' || strncmp(p, "]]>", 3), "']]>' in character data");
		n = utf8_char((const unsigned char *)p, &cp);
		cr_assert(is_xml_char(cp), "U+%04x, which XML cannot carry", cp);
		mg_buf_put(out, p, n);
		p += n;
	}
	return p;
}

static const char *read_name(const char *p, char **name)
{
	size_t n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_:-.0123456789");

	cr_assert(n && !strchr("-.0123456789", p[0]), "bad name at '%.10s'", p);
	*name = mg_xstrndup(p, n);
	return p + n;
}

static const char *skip_space(const char *p)
{
	return p + strspn(p, " \t\r\n");
}

static size_t add_element(xdoc *doc, size_t parent)
{
	doc->e = mg_xrealloc(doc->e, (doc->count + 1) * sizeof(*doc->e));
	memset(&doc->e[doc->count], 0, sizeof(*doc->e));
	mg_buf_init(&doc->e[doc->count].text);
	doc->e[doc->count].parent = parent;
	return doc->count++;
}

/* name="value" ... up to '>' or '/>'. */
static const char *read_attributes(const char *p, xelem *e)
{
	size_t i;

	for (;;) {
		const char *q = skip_space(p);
		mg_buf value = MG_BUF_INIT;
		char quote, *name;

		if (*q == '>' || !strncmp(q, "/>", 2))
			return q;
		cr_assert(q > p, "no space before an attribute at '%.10s'", p);
		q = skip_space(read_name(q, &name));
		cr_assert(*q == '=', "no '=' after attribute '%s'", name);
		q = skip_space(q + 1);
		quote = *q;
		cr_assert(quote == '"' || quote == '\'', "unquoted attribute '%s'", name);
		p = read_chars(q + 1, quote, &value) + 1;
		for (i = 0; i < e->attrs; i++)
			cr_assert_str_neq(e->attr[i][0], name, "attribute '%s' twice", name);
		cr_assert_lt(e->attrs, MAX_ATTRS);
		e->attr[e->attrs][0] = name;
		e->attr[e->attrs++][1] = mg_buf_detach(&value, NULL);
	}
}

static const char *read_element(const char *p, xdoc *doc, size_t parent)
{
	size_t self = add_element(doc, parent);
	char *name, *end_name;

	cr_assert(*p == '<', "no element at '%.10s'", p);
	p = read_attributes(read_name(p + 1, &name), &doc->e[self]);
	doc->e[self].name = name;
	if (*p == '/')
		return p + 2;
	for (p++;;) {
		if (!strncmp(p, "</", 2)) {
			p = skip_space(read_name(p + 2, &end_name));
			cr_assert_str_eq(end_name, doc->e[self].name, "mismatched end tag");
			cr_assert(*p == '>');
			free(end_name);
			return p + 1;
		}
		cr_assert(strncmp(p, "<!", 2) && strncmp(p, "<?", 2), "unexpected markup '%.10s'", p);
		if (*p == '<')
			p = read_element(p, doc, self);
		else
			p = read_chars(p, '<', &doc->e[self].text);
	}
}

static xdoc *read_xml(const char *text)
{
	static const char decl[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
	xdoc *doc = mg_xcalloc(1, sizeof(*doc));
	const char *p;

	cr_assert(!strncmp(text, decl, strlen(decl)), "no XML declaration:\n%s", text);
	p = read_element(skip_space(text + strlen(decl)), doc, SIZE_MAX);
	cr_assert_eq(*skip_space(p), '\0', "text after the root element");
	return doc;
}

static void free_xml(xdoc *doc)
{
	size_t i, k;

	for (i = 0; i < doc->count; i++) {
		for (k = 0; k < doc->e[i].attrs; k++) {
			free(doc->e[i].attr[k][0]);
			free(doc->e[i].attr[k][1]);
		}
		free(doc->e[i].name);
		mg_buf_free(&doc->e[i].text);
	}
	free(doc->e);
	free(doc);
}

static const char *attr(const xelem *e, const char *name)
{
	size_t i;

	for (i = 0; i < e->attrs; i++)
		if (!strcmp(e->attr[i][0], name))
			return e->attr[i][1];
	return NULL;
}

/* The first child of element i named `name`, or NULL. */
static const xelem *child(const xdoc *doc, size_t i, const char *name)
{
	size_t k;

	for (k = i + 1; k < doc->count; k++)
		if (doc->e[k].parent == i && !strcmp(doc->e[k].name, name))
			return &doc->e[k];
	return NULL;
}

/* ---- reading a report ---- */

typedef struct junit {
	char *text;
	xdoc *doc;
	size_t cases[64];          /* element indices of the test cases */
	size_t count;
} junit;

/* xmllint, when installed, must accept the report too. */
static void xmllint(const char *text)
{
	char path[] = "/tmp/memgate-junit.XXXXXX", cmd[128];
	int fd;

	if (system("command -v xmllint >/dev/null 2>&1") != 0) {
		cr_log_info("xmllint is not installed: only the built-in reader checked the report");
		return;
	}
	fd = mkstemp(path);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	snprintf(cmd, sizeof(cmd), "xmllint --noout '%s'", path);
	cr_assert_eq(system(cmd), 0, "xmllint refuses:\n%s", text);
	unlink(path);
}

/* Read a rendered report back (taking text), and check the suite's counts
 * against its cases and that case names are unique within their class. */
static junit *read_junit(char *text)
{
	junit *j = mg_xcalloc(1, sizeof(*j));
	const xelem *suite;
	size_t i, k, failures = 0, skipped = 0;
	char want[32];

	j->text = text;
	j->doc = read_xml(j->text);
	xmllint(j->text);
	cr_assert_str_eq(j->doc->e[0].name, "testsuites");
	suite = child(j->doc, 0, "testsuite");
	cr_assert_not_null(suite);
	cr_assert_str_eq(attr(suite, "name"), "memgate");
	for (i = 0; i < j->doc->count; i++) {
		if (strcmp(j->doc->e[i].name, "testcase"))
			continue;
		cr_assert_eq(j->doc->e[i].parent, 1, "a test case outside the suite");
		cr_assert_lt(j->count, 64);
		j->cases[j->count++] = i;
		failures += child(j->doc, i, "failure") != NULL;
		skipped += child(j->doc, i, "skipped") != NULL;
		cr_assert(!child(j->doc, i, "failure") || !child(j->doc, i, "skipped"),
			  "a case both failed and skipped");
	}
	cr_assert_geq(j->count, 1, "no test case: Jenkins would fail the build");
	snprintf(want, sizeof(want), "%zu", j->count);
	cr_assert_str_eq(attr(suite, "tests"), want);
	snprintf(want, sizeof(want), "%zu", failures);
	cr_assert_str_eq(attr(suite, "failures"), want);
	cr_assert_str_eq(attr(suite, "errors"), "0");
	snprintf(want, sizeof(want), "%zu", skipped);
	cr_assert_str_eq(attr(suite, "skipped"), want);
	for (i = 0; i < j->count; i++)
		for (k = 0; k < i; k++)
			cr_assert(strcmp(attr(&j->doc->e[j->cases[i]], "name"),
					 attr(&j->doc->e[j->cases[k]], "name")) ||
				  strcmp(attr(&j->doc->e[j->cases[i]], "classname"),
					 attr(&j->doc->e[j->cases[k]], "classname")),
				  "two cases named '%s'", attr(&j->doc->e[j->cases[i]], "name"));
	return j;
}

static junit *render(mg_check_result *r)
{
	return read_junit(mg_junit_render(mg_fx_filled(r)));
}

static void free_junit(junit *j)
{
	free_xml(j->doc);
	free(j->text);
	free(j);
}

/* Test case n (from 0) and its element index. */
static const xelem *case_at(const junit *j, size_t n, size_t *index)
{
	cr_assert_lt(n, j->count);
	if (index)
		*index = j->cases[n];
	return &j->doc->e[j->cases[n]];
}

static void expect_case(const junit *j, size_t n, const char *classname, const char *name,
			const char *file)
{
	const xelem *c = case_at(j, n, NULL);

	cr_assert_str_eq(attr(c, "classname"), classname);
	cr_assert_str_eq(attr(c, "name"), name);
	if (file)
		cr_assert_str_eq(attr(c, "file"), file);
	else
		cr_assert_null(attr(c, "file"));
	cr_assert_str_eq(attr(c, "time"), "0");
}

/* The failure of case n: its message, type and text; NULL when it passes. */
static const xelem *failure_of(const junit *j, size_t n)
{
	size_t i;

	case_at(j, n, &i);
	return child(j->doc, i, "failure");
}

static const char *system_out(const junit *j, size_t n)
{
	const xelem *out;
	size_t i;

	case_at(j, n, &i);
	out = child(j->doc, i, "system-out");
	return out ? out->text.ptr : "";
}

static void expect_failure(const junit *j, size_t n, const char *type, const char *message,
			   const char *text)
{
	const xelem *f = failure_of(j, n);

	cr_assert_not_null(f, "case %zu passes", n);
	cr_assert_str_eq(attr(f, "type"), type);
	cr_assert_str_eq(attr(f, "message"), message);
	cr_assert_str_eq(f->text.ptr, text);
}

/* ---- tests ---- */

/* The message of case n's <skipped>; NULL when it is not skipped. */
static const char *skipped_of(const junit *j, size_t n)
{
	const xelem *sk;
	size_t i;

	case_at(j, n, &i);
	sk = child(j->doc, i, "skipped");
	return sk ? attr(sk, "message") : NULL;
}

/* No case of j fails. */
static void expect_no_failure(const junit *j)
{
	size_t n;

	for (n = 0; n < j->count; n++)
		cr_assert_null(failure_of(j, n), "case %zu fails", n);
}

Test(junit, one_case_for_the_evidence_each_candidate_sensitivity_and_the_decision)
{
	junit *j = render(build());

	cr_assert_eq(j->count, 7);
	expect_case(j, 0, "memgate.evidence", "evidence", MANIFEST);
	expect_case(j, 1, "memgate.candidates", "baseline", REPORT);
	expect_case(j, 2, "memgate.candidates", "checkpoint", REPORT);
	expect_case(j, 3, "memgate.candidates", "offload", REPORT);
	expect_case(j, 4, "memgate.candidates", "hybrid", REPORT);
	expect_case(j, 5, "memgate.sensitivity", "sensitivity", ".memgate.yml");
	expect_case(j, 6, "memgate.decision", "decision", ".memgate.yml");
	free_junit(j);
}

/* A passing gate writes no failure: the selected and feasible candidates
 * pass, a screened-out one is skipped with its reasons, and the baseline's
 * own 0 MB saving is not a finding (it passes as the reference). */
Test(junit, passing_gate_writes_no_failure)
{
	junit *j = render(build());

	expect_no_failure(j);
	cr_assert_null(skipped_of(j, 1));
	cr_assert_str_eq(system_out(j, 1), "the baseline (evidence.baseline): the reference the "
			 "others are compared with; its own saving, ratio and delta are not findings\n"
			 "peak 9782.74 MB <= 11200\nsamples/s 2.009 >= 1\nmemory saving 0 MB < 256 FAIL\n");
	cr_assert_null(skipped_of(j, 2));
	cr_assert_str_eq(skipped_of(j, 3), "not selected: samples_per_s_below_floor");
	cr_assert_str_eq(system_out(j, 3), ".memgate.yml:11:22: offload: samples/s 0.533 < "
			 "min_samples_per_s 1 [samples_per_s_below_floor]\n"
			 "peak 9448.33 MB <= 11200\nsamples/s 0.533 < 1 FAIL\n"
			 "memory saving 334.41 MB >= 256\n");
	cr_assert_null(skipped_of(j, 4));
	cr_assert_str_eq(system_out(j, 4), "feasible, rank 2 of 2; not selected (accept: "
			 "selection_stable_across_thresholds)\npeak 9454.64 MB <= 11200\n"
			 "samples/s 1.276 >= 1\nmemory saving 328.1 MB >= 256\n");
	free_junit(j);
}

/* The same evidence deciding tune (2.3.4) with fail_on [reject]: the gate
 * passes, so the selected candidate's missed target is not a failure. */
Test(junit, passing_tune_writes_no_failure)
{
	junit *j;

	build();
	fx.d.verdict = MG_TUNE;
	fx.d.reason = MG_O_MEMORY_SAVING_BELOW_MEANINGFUL_THRESHOLD;
	fx.d.next_action = MG_N_TEST_LARGER_PRESSURE_OR_OPTIMIZER_COMPRESSION;
	fx.ev[1].status = fx.ev[3].status = MG_STATUS_REJECTED;
	fx.ev[1].reasons = fx.ev[3].reasons = BIT(MG_R_MEMORY_SAVING_BELOW_FLOOR);
	fx.d.base.feasible_count = 0;
	fx.d.best = NULL;
	fx.r.fail_on[MG_TUNE] = false;
	j = render(&fx.r);
	expect_no_failure(j);
	cr_assert_null(skipped_of(j, 2));
	cr_assert(!strncmp(system_out(j, 2), ".memgate.yml:12:25: checkpoint: memory saving 331.98 MB < "
			   "min_memory_saving_mb 256 [memory_saving_below_floor]\nselected candidate (tune: "
			   "memory_saving_below_meaningful_threshold)\n", 150), "%s", system_out(j, 2));
	cr_assert_str_eq(skipped_of(j, 4), "not selected: memory_saving_below_floor");
	free_junit(j);
}

/* A failing tune fails the decision and the candidate it names, nothing else. */
Test(junit, failing_tune_fails_the_named_candidate)
{
	junit *j;

	build();
	fx.d.verdict = MG_TUNE;
	fx.d.reason = MG_O_MEMORY_SAVING_BELOW_MEANINGFUL_THRESHOLD;
	fx.d.next_action = MG_N_TEST_LARGER_PRESSURE_OR_OPTIMIZER_COMPRESSION;
	fx.ev[1].status = fx.ev[3].status = MG_STATUS_REJECTED;
	fx.ev[1].reasons = fx.ev[3].reasons = BIT(MG_R_MEMORY_SAVING_BELOW_FLOOR);
	fx.d.base.feasible_count = 0;
	fx.d.best = NULL;
	fx.r.passed = false;
	j = render(&fx.r);
	cr_assert_null(failure_of(j, 0));
	cr_assert_null(failure_of(j, 1));
	expect_failure(j, 2, "rejected", "memory_saving_below_floor",
		       ".memgate.yml:12:25: checkpoint: memory saving 331.98 MB < min_memory_saving_mb 256 "
		       "[memory_saving_below_floor]\n");
	cr_assert_str_eq(skipped_of(j, 3), "not selected: samples_per_s_below_floor");
	cr_assert_str_eq(skipped_of(j, 4), "not selected: memory_saving_below_floor");
	cr_assert_null(failure_of(j, 5));
	cr_assert_not_null(failure_of(j, 6));
	free_junit(j);
}

/* No candidate meets the base budget: each one behind it fails; the
 * baseline only for a finding of its own. */
Test(junit, rejected_candidates_fail_when_none_meets_the_budget)
{
	junit *j;

	build();
	fx.d.verdict = MG_REJECT;
	fx.d.reason = MG_O_NO_CANDIDATE_MEETS_BASE_BUDGET;
	fx.d.next_action = MG_N_REWORK_STRATEGY_OR_BUDGET;
	fx.d.selected = fx.d.best = NULL;
	fx.ev[1].status = fx.ev[3].status = MG_STATUS_REJECTED;
	fx.ev[1].reasons = fx.ev[3].reasons = BIT(MG_R_SAMPLES_PER_S_BELOW_FLOOR);
	fx.d.base.feasible_count = 0;
	fx.d.sensitivity_evaluated = true;
	fx.r.passed = false;
	j = render(&fx.r);
	cr_assert_null(failure_of(j, 1));
	cr_assert_null(skipped_of(j, 1));
	expect_failure(j, 3, "rejected", "samples_per_s_below_floor",
		       ".memgate.yml:11:22: offload: samples/s 0.533 < min_samples_per_s 1 "
		       "[samples_per_s_below_floor]\n");
	cr_assert_str_eq(system_out(j, 3), "peak 9448.33 MB <= 11200\nsamples/s 0.533 < 1 FAIL\n"
			 "memory saving 334.41 MB >= 256\n");
	cr_assert_not_null(failure_of(j, 2));
	cr_assert_not_null(failure_of(j, 4));
	cr_assert_not_null(failure_of(j, 6));
	free_junit(j);
	/* the baseline over the cap is a finding */
	fx.ev[0].reasons |= BIT(MG_R_MEMORY_OVER_BUDGET);
	j = render(&fx.r);
	expect_failure(j, 1, "rejected", "memory_over_budget",
		       ".memgate.yml: baseline: peak 9782.74 MB > memory_cap_mb 11200 [memory_over_budget]\n");
	free_junit(j);
}

/* Issue 19, also seen: JUnit and Code Quality grew about 6x the report.
 * Both stop at their limit (lowered here to 2) and say so: JUnit in
 * a skipped case and a line of the decision's text, Code Quality in a last
 * issue. */
Test(junit, junit_and_code_quality_stop_at_their_limit_and_say_so)
{
	mg_check_item item;
	const char *text;
	cJSON *list, *last;
	char *cq;
	junit *j;

	build();
	fx.d.verdict = MG_REJECT;
	fx.d.reason = MG_O_NO_CANDIDATE_MEETS_BASE_BUDGET;
	fx.d.next_action = MG_N_REWORK_STRATEGY_OR_BUDGET;
	fx.d.selected = fx.d.best = NULL;
	fx.ev[1].status = fx.ev[3].status = MG_STATUS_REJECTED;
	fx.ev[1].reasons = fx.ev[3].reasons = BIT(MG_R_SAMPLES_PER_S_BELOW_FLOOR);
	fx.d.base.feasible_count = 0;
	fx.r.passed = false;
	mg_junit_max_items = 2;
	j = render(&fx.r);
	cr_assert_eq(j->count, 6);   /* evidence, 2 candidates, omitted, sensitivity, decision */
	expect_case(j, 3, "memgate.candidates", "omitted", REPORT);
	cr_assert_str_eq(skipped_of(j, 3), "2 more candidates omitted (the limit is 2); see the "
			 "decision record (memgate check --format json)");
	text = failure_of(j, j->count - 1) ? failure_of(j, j->count - 1)->text.ptr : "";
	cr_assert_not_null(strstr(text, " more findings omitted (the limit is 2); see the "
				  "decision record (memgate check --format json)\n"), "%s", text);
	free_junit(j);
	mg_junit_max_items = MG_JUNIT_MAX_ITEMS;

	memset(&item, 0, sizeof(item));
	item.policy = "p.memgate.yml";
	item.result = &fx.r;
	mg_codequality_max_issues = 2;
	cq = mg_codequality_render(&item, 1);
	list = cJSON_Parse(cq);
	cr_assert_not_null(list);
	cr_assert_eq(cJSON_GetArraySize(list), 3, "%s", cq);
	last = cJSON_GetArrayItem(list, 2);
	cr_assert_str_eq(cJSON_GetObjectItem(last, "check_name")->valuestring, "findings_omitted");
	cr_assert_not_null(strstr(cJSON_GetObjectItem(last, "description")->valuestring,
				  "1 more findings omitted (the limit is 2); see the decision record"));
	cJSON_Delete(list);
	free(cq);
	mg_codequality_max_issues = MG_CODEQUALITY_MAX_ISSUES;
}

Test(junit, selected_candidate_is_marked_in_system_out)
{
	junit *j = render(build());

	cr_assert_str_eq(system_out(j, 2), "selected candidate (accept: "
			 "selection_stable_across_thresholds)\npeak 9450.76 MB <= 11200\n"
			 "samples/s 1.761 >= 1\nmemory saving 331.98 MB >= 256\n");
	cr_assert_null(strstr(system_out(j, 4), "selected candidate"));
	free_junit(j);
}

Test(junit, candidates_stopped_before_the_thresholds_are_skipped_with_their_status)
{
	junit *j;

	build();
	fx.ev[3].status = MG_STATUS_OOM;
	fx.ev[3].reasons = BIT(MG_R_OOM);
	j = render(&fx.r);
	cr_assert_str_eq(skipped_of(j, 4), "not selected: oom");
	cr_assert_str_eq(system_out(j, 4), "bench/76_report.json: hybrid: ran out of memory (status "
			 "oom or metrics.oom) [oom]\n");
	free_junit(j);
}

Test(junit, baseline_missing_or_invalid_fails_the_baseline)
{
	junit *j;

	build();
	fx.d.verdict = MG_REJECT;
	fx.d.reason = MG_O_BASELINE_MISSING_OR_INVALID;
	fx.d.next_action = MG_N_RERUN_BASELINE_BEFORE_COMPARING_CANDIDATES;
	fx.d.selected = fx.d.best = NULL;
	fx.d.sensitivity_evaluated = false;
	fx.ev[0].status = MG_STATUS_OOM;
	fx.ev[0].reasons = BIT(MG_R_OOM);
	fx.r.passed = false;
	j = render(&fx.r);
	expect_failure(j, 1, "oom", "oom",
		       "bench/76_report.json: baseline: ran out of memory (status oom or metrics.oom) [oom]\n");
	cr_assert_str_eq(skipped_of(j, 3), "not selected: samples_per_s_below_floor");
	cr_assert_str_eq(skipped_of(j, 5), "not evaluated: the evidence did not reach a base decision");
	free_junit(j);
}

Test(junit, evidence_fails_with_its_issues)
{
	junit *j;

	build();
	fx.d.applicable = false;
	fx.d.issue[MG_ISSUE_REPORT_HASH_MISMATCH] = fx.d.issue[MG_ISSUE_CANDIDATES_MISSING] = true;
	fx.report.evidence.candidates_pos = (mg_pos){ 20, 17 };
	fx.d.verdict = MG_REJECT;
	fx.d.reason = MG_O_EVIDENCE_NOT_APPLICABLE;
	fx.r.passed = false;
	j = render(&fx.r);
	expect_failure(j, 0, "evidence_not_applicable", "report_hash_mismatch, candidates_missing",
		       "bench/75_manifest.json:4:15: report 'bench/76_report.json' has SHA-256 "
		       "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee; the manifest pins "
		       "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
		       "; if this report is the one to gate, pin it with 'memgate manifest --report bench/76_report.json --out bench/75_manifest.json --force' and commit the manifest "
		       "[report_hash_mismatch]\n"
		       "bench/76_report.json:20:17: the report has no candidates [candidates_missing]\n");
	cr_assert_not_null(failure_of(j, 6));
	free_junit(j);
	/* with fail_on [tune] the same evidence passes the gate: skipped, not failed */
	fx.r.passed = true;
	j = render(&fx.r);
	expect_no_failure(j);
	cr_assert_str_eq(skipped_of(j, 0), "not applicable, but the gate passes: "
			 "report_hash_mismatch, candidates_missing");
	free_junit(j);
}

Test(junit, evidence_names_the_report_when_there_is_no_manifest)
{
	junit *j;

	build();
	memset(&fx.r.manifest_ref, 0, sizeof(fx.r.manifest_ref));
	fx.r.manifest = NULL;
	j = render(&fx.r);
	expect_case(j, 0, "memgate.evidence", "evidence", REPORT);
	cr_assert_str_eq(system_out(j, 0), "report bench/76_report.json, SHA-256 "
			 "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee, at commit "
			 "1111111111111111111111111111111111111111\n");
	free_junit(j);
}

Test(junit, sensitivity_fails_when_the_selection_changes)
{
	junit *j;

	build();
	fx.d.verdict = MG_TUNE;
	fx.d.reason = MG_O_SELECTION_IS_THRESHOLD_SENSITIVE;
	fx.d.next_action = MG_N_COLLECT_BOUNDARY_EVIDENCE;
	fx.sc[1].best = "hybrid";
	fx.d.best_candidate_stable = false;
	fx.d.interpretation = "sensitive_to_thresholds";
	fx.r.passed = false;
	j = render(&fx.r);
	expect_failure(j, 5, "tune", "selection_is_threshold_sensitive",
		       ".memgate.yml: stricter[1] (min_samples_per_s 1.5): the winner is hybrid, not "
		       "checkpoint [selection_is_threshold_sensitive]\n");
	cr_assert_str_eq(system_out(j, 5), "selection sensitive: checkpoint wins 1 of 2 scenarios\n");
	free_junit(j);
	/* with fail_on [reject] the gate passes: no failure, the reasons in system-out */
	fx.r.passed = true;
	j = render(&fx.r);
	expect_no_failure(j);
	cr_assert_str_eq(system_out(j, 5), ".memgate.yml: stricter[1] (min_samples_per_s 1.5): the "
			 "winner is hybrid, not checkpoint [selection_is_threshold_sensitive]\n"
			 "selection sensitive: checkpoint wins 1 of 2 scenarios\n");
	free_junit(j);
}

Test(junit, decision_fails_when_the_gate_fails)
{
	junit *j;

	build();
	fx.d.verdict = MG_TUNE;
	fx.d.reason = MG_O_MEMORY_SAVING_BELOW_MEANINGFUL_THRESHOLD;
	fx.d.next_action = MG_N_TEST_LARGER_PRESSURE_OR_OPTIMIZER_COMPRESSION;
	fx.warnings[0] = "the policy names the report directly";
	fx.r.warnings = fx.warnings;
	fx.r.warning_count = 1;
	fx.r.passed = false;
	j = render(&fx.r);
	expect_failure(j, 6, "tune", "tune (memory_saving_below_meaningful_threshold): next action "
		       "test_larger_pressure_or_optimizer_compression",
		       "selected: checkpoint\ngate: failed (fails on: tune, reject)\n"
		       ".memgate.yml:11:22: offload: samples/s 0.533 < min_samples_per_s 1 "
		       "[samples_per_s_below_floor]\n"
		       "the policy names the report directly [warning]\n");
	free_junit(j);
}

Test(junit, passing_decision_reports_in_system_out)
{
	static const char want[] = "selected: checkpoint\ngate: passed (fails on: tune, reject)\n";
	junit *j = render(build());

	cr_assert_null(failure_of(j, 6));
	cr_assert(!strncmp(system_out(j, 6), want, strlen(want)), "%s", system_out(j, 6));
	free_junit(j);
}

Test(junit, no_candidates_still_gives_test_cases)
{
	junit *j;

	build();
	fx.d.base.count = 0;
	fx.d.selected = fx.d.best = NULL;
	j = render(&fx.r);
	cr_assert_eq(j->count, 3);
	expect_case(j, 1, "memgate.sensitivity", "sensitivity", ".memgate.yml");
	free_junit(j);
}

/* GitLab keeps only the first of two equal names: every case name differs. */
Test(junit, duplicate_and_missing_names_get_unique_case_names)
{
	static const char *const names[] = { "a", "a", NULL, "", "(unnamed #3)", "a #2", "a" };
	static const char *const want[] = {
		"a", "a #2", "(unnamed #3)", "(unnamed #4)", "(unnamed #3) #5", "a #2 #6", "a #7",
	};
	junit *j;
	size_t i;

	build();
	for (i = 0; i < 7; i++)
		fx.ev[i] = mg_fx_evaluation(i, (mg_fx_candidate){
			.name = names[i], .status = MG_STATUS_INVALID,
			.reasons = BIT(MG_R_MISSING_OR_DUPLICATE_NAME),
			.peak = 9000, .samples = 2, .loss = MG_FX_BASELINE_LOSS });
	fx.d.base.count = 7;
	j = render(&fx.r);
	for (i = 0; i < 7; i++)
		expect_case(j, 1 + i, "memgate.candidates", want[i], REPORT);
	free_junit(j);
}

/* Markup, quotes, controls, noncharacters and invalid UTF-8 in names,
 * paths and warnings: the report stays well formed and carries them
 * escaped. */
Test(junit, hostile_text_is_escaped_and_free_of_forbidden_characters)
{
	static const char *const names[] = {
		"a&b<c>\"d'e", "]]>", "x\x01y\x1bz", "tab\there\nline", "bad\xff\xfe",
		"non\xef\xbf\xbe" "char", "</testcase><testcase name=\"x\">",
	};
	static const char *const want[] = {
		"a&b<c>\"d'e", "]]>", "x\\x01y\\x1bz", "tab\\there\\nline", "bad\\xff\\xfe",
		"non\xef\xbf\xbd" "char", "</testcase><testcase name=\"x\">",
	};
	junit *j;
	size_t i;

	build();
	for (i = 0; i < 7; i++)
		fx.ev[i] = mg_fx_evaluation(i, (mg_fx_candidate){
			.name = names[i], .status = MG_STATUS_REJECTED,
			.reasons = BIT(MG_R_MEMORY_SAVING_BELOW_FLOOR),
			.peak = 9500, .samples = 2, .loss = MG_FX_BASELINE_LOSS });
	fx.d.base.count = 7;
	fx.d.selected = fx.d.best = names[6];
	fx.r.report_ref.path = "r<&>\"'\x02.json";
	fx.warnings[0] = "]]> <!-- \x07 -->";
	fx.r.warnings = fx.warnings;
	fx.r.warning_count = 1;
	j = render(&fx.r);
	cr_assert_eq(j->count, 10);
	for (i = 0; i < 7; i++) {
		expect_case(j, 1 + i, "memgate.candidates", want[i], "r<&>\"'\xef\xbf\xbd.json");
		cr_assert_eq(skipped_of(j, 1 + i) != NULL, i < 6);
	}
	cr_assert_not_null(strstr(system_out(j, 9), "]]> <!-- \\x07 --> [warning]\n"),
			   "%s", system_out(j, 9));
	free_junit(j);
}

/* ---- a real run ---- */

#define GIT "git -c init.defaultBranch=main -c commit.gpgsign=false " \
	    "-c user.name=memgate-test -c user.email=test@memgate.invalid"

static void write_file(const char *dir, const char *path, const char *data, size_t len)
{
	char full[512];
	FILE *f;

	snprintf(full, sizeof(full), "%s/%s", dir, path);
	f = fopen(full, "wb");
	cr_assert_not_null(f, "cannot write %s", full);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	fclose(f);
}

/* The seed's handoff report and policy, committed; checked. */
static mg_check_result *check_seed(char *dir)
{
	char cmd[1024], *text;
	mg_check_options opt = { 0 };
	mg_check_result *r = NULL;
	mg_error err;
	size_t len;

	strcpy(dir, "/tmp/memgate-junit.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/benchmarks/results'", dir);
	cr_assert_eq(system(cmd), 0);
	text = mg_test_read("fixtures/e2e/seed-handoff.yml", &len);
	write_file(dir, ".memgate.yml", text, len);
	free(text);
	text = mg_test_read("fixtures/reports/handoff.json", &len);
	write_file(dir, "benchmarks/results/76_handoff.json", text, len);
	free(text);
	snprintf(cmd, sizeof(cmd), "cd '%s' && " GIT " init -q . && " GIT " add -A && "
		 GIT " commit -q -m evidence", dir);
	cr_assert_eq(system(cmd), 0);
	opt.dir = dir;
	cr_assert_eq(mg_check_run(&r, &opt, &err), 0, "%s", err.message);
	return r;
}

/* check --all --changed that gates nothing still writes a test case (an
 * empty report fails a Jenkins build), passing, naming what was not gated
 * and why, the names escaped. */
Test(junit, nothing_gated_is_one_passing_case)
{
	mg_plan_entry entries[] = {
		{ "models/a/.memgate.yml", MG_PLAN_UNCHANGED, NULL },
		{ "models/b/.memgate.yml", MG_PLAN_RETIRED,
		  "'models/b/.memgate.yml' is retired: the change deletes it with its evidence" },
		{ "models/<c>\n::error::x/.memgate.yml", MG_PLAN_UNCHANGED, NULL },
	};
	mg_plan plan = { entries, 3 };
	junit *j = read_junit(mg_junit_render_set(NULL, 0, &plan));

	cr_assert_eq(j->count, 1);
	expect_case(j, 0, "memgate.plan", "nothing gated", NULL);
	expect_no_failure(j);
	cr_assert_null(skipped_of(j, 0));
	cr_assert_str_eq(system_out(j, 0),
			 "no policy was gated: the gate passes\n"
			 "unchanged, not gated: models/a/.memgate.yml\n"
			 "retired: 'models/b/.memgate.yml' is retired: the change deletes it with "
			 "its evidence\n"
			 "unchanged, not gated: models/<c>\\n::error::x/.memgate.yml\n");
	free_junit(j);
	j = read_junit(mg_junit_render_set(NULL, 0, NULL));
	cr_assert_eq(j->count, 1);
	cr_assert_str_eq(system_out(j, 0), "no policy was gated: the gate passes\n");
	free_junit(j);
}

Test(junit, real_seed_report_gives_a_well_formed_report)
{
	char dir[64], cmd[128];
	mg_check_result *r = check_seed(dir);
	junit *j = render(r);
	size_t i;

	cr_assert_eq(j->count, 3 + r->decision->base.count);
	expect_case(j, 0, "memgate.evidence", "evidence", "benchmarks/results/76_handoff.json");
	cr_assert(r->passed);
	expect_no_failure(j);
	for (i = 0; i < r->decision->base.count; i++)
		cr_assert_eq(skipped_of(j, 1 + i) != NULL,
			     r->decision->base.evaluations[i].status != MG_STATUS_FEASIBLE);
	free_junit(j);
	mg_check_result_free(r);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}
