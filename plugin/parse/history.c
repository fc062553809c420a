/*
 * regression.history: the medians of the base's report over its last
 * versions on the base's first-parent line.  See include/memgate/history.h
 * and plugin/parse/history_read.h.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/report.h"
#include "byname.h"
#include "history_read.h"

/* The metrics a median is taken of: what the regression thresholds read. */
static const enum mg_metric_id measured[] = { MG_M_PEAK, MG_M_SAMPLES, MG_M_EVAL_LOSS };
#define MEASURED (sizeof(measured) / sizeof(measured[0]))

/* A growing list of one candidate's values of one metric. */
struct values {
	size_t count, room;
	double *value;
	size_t *version;   /* for the peak only: the version of each value */
};

/*
 * While the versions are read: the candidates, and their indices sorted by
 * name.  No hash table: the names come from reports anyone could once have
 * committed, and sorting has no inputs that make it slow.
 */
struct build {
	mg_history *h;
	size_t room;               /* of evidence.candidates and vals */
	struct values (*vals)[MEASURED];
};

/* Append a candidate named `name` to the history; its index. */
static size_t add_candidate(struct build *b, const char *name)
{
	mg_evidence *ev = &b->h->evidence;
	size_t n = ev->candidate_count;

	if (n == b->room) {
		b->room = b->room ? b->room * 2 : 16;
		ev->candidates = mg_xrealloc(ev->candidates, b->room * sizeof(*ev->candidates));
		b->vals = mg_xrealloc(b->vals, b->room * sizeof(*b->vals));
	}
	memset(&ev->candidates[n], 0, sizeof(ev->candidates[n]));
	memset(&b->vals[n], 0, sizeof(b->vals[n]));
	ev->candidates[n].name = mg_xstrdup(name);
	ev->candidates[n].status = mg_xstrdup("ok");
	ev->candidates[n].repeats = 1;
	ev->candidate_count++;
	return n;
}

static void push(struct values *v, double x, size_t version, bool keep_version)
{
	if (v->count == v->room) {
		v->room = v->room ? v->room * 2 : 8;
		v->value = mg_xrealloc(v->value, v->room * sizeof(*v->value));
		if (keep_version)
			v->version = mg_xrealloc(v->version, v->room * sizeof(*v->version));
	}
	if (keep_version)
		v->version[v->count] = version;
	v->value[v->count++] = x;
}

/*
 * The history's candidate of each named candidate of r (at[i], or SIZE_MAX
 * for a nameless one and every repeat of a name: the first of a name
 * counts), new names appended in the report's order, and h->by_name kept
 * sorted: one sort of r's names and one merge with the names so far.
 */
static void match_names(struct build *b, const mg_evidence *ev, size_t *at)
{
	mg_history *h = b->h;
	size_t n = ev->candidate_count, old = h->evidence.candidate_count;
	size_t *order = mg_xcalloc(n ? n : 1, sizeof(*order));
	size_t i, j = 0, k = 0, named = 0, sorted;
	size_t *merged;
	mg_named *by_name = mg_byname_candidates(&sorted, ev);

	for (i = 0; i < n; i++)
		at[i] = SIZE_MAX;
	for (i = 0; i < sorted; i++)   /* by name, then index; empty names left out */
		if (*by_name[i].name)
			order[named++] = by_name[i].index;
	free(by_name);
	for (i = 0; i < named; i++) {
		const char *name = ev->candidates[order[i]].name;

		if (i && !strcmp(name, ev->candidates[order[i - 1]].name))
			continue;   /* a repeat: its first counts */
		while (j < old && strcmp(h->evidence.candidates[h->by_name[j]].name, name) < 0)
			j++;
		at[order[i]] = j < old && !strcmp(h->evidence.candidates[h->by_name[j]].name, name) ?
			h->by_name[j] : SIZE_MAX - 1;   /* new: added below */
		order[k++] = order[i];   /* the report's first of each name, by name */
	}
	for (i = 0; i < n; i++)
		if (at[i] == SIZE_MAX - 1)
			at[i] = add_candidate(b, ev->candidates[i].name);
	merged = mg_xcalloc(h->evidence.candidate_count ? h->evidence.candidate_count : 1,
			    sizeof(*merged));
	for (i = j = 0, named = 0; i < old || j < k;) {
		bool take_new = j < k && at[order[j]] >= old &&
			(i == old || strcmp(ev->candidates[order[j]].name,
					    h->evidence.candidates[h->by_name[i]].name) < 0);

		if (j < k && at[order[j]] < old)
			j++;   /* a name already there */
		else if (take_new)
			merged[named++] = at[order[j++]];
		else
			merged[named++] = h->by_name[i++];
	}
	free(h->by_name);
	h->by_name = merged;
	free(order);
}

/* Add the measured metrics of report version `version` (the first
 * candidate of each name; nameless ones are not compared either). */
static void add_report(struct build *b, const mg_report *r, size_t version)
{
	const mg_evidence *ev = &r->evidence;
	size_t *at = mg_xcalloc(ev->candidate_count ? ev->candidate_count : 1, sizeof(*at));
	size_t i, k;

	match_names(b, ev, at);
	for (i = 0; i < ev->candidate_count; i++) {
		const mg_candidate *x = &ev->candidates[i];

		if (at[i] == SIZE_MAX)
			continue;
		for (k = 0; k < MEASURED; k++)
			if (x->metric[measured[k]].state == MG_METRIC_NUMBER)
				push(&b->vals[at[i]][k], x->metric[measured[k]].value, version,
				     k == 0);
	}
	free(at);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double mg_history_median(double *values, size_t n)
{
	if (!n)
		return NAN;
	qsort(values, n, sizeof(*values), cmp_double);
	return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

/* Fill each candidate's medians and peak series from the values. */
static void conclude(struct build *b)
{
	mg_history *h = b->h;
	size_t c, k, n = h->evidence.candidate_count;
	double *tmp;

	h->peaks = mg_xcalloc(n ? n : 1, sizeof(*h->peaks));
	for (c = 0; c < n; c++) {
		mg_candidate *x = &h->evidence.candidates[c];

		for (k = 0; k < MEASURED; k++) {
			struct values *v = &b->vals[c][k];

			if (!v->count)
				continue;
			tmp = mg_xmalloc(v->count * sizeof(*tmp));
			memcpy(tmp, v->value, v->count * sizeof(*tmp));
			x->metric[measured[k]].state = MG_METRIC_NUMBER;
			x->metric[measured[k]].value = mg_history_median(tmp, v->count);
			free(tmp);
		}
		/* the peak series moves to the history */
		h->peaks[c].count = b->vals[c][0].count;
		h->peaks[c].value = b->vals[c][0].value;
		h->peaks[c].version = b->vals[c][0].version;
		b->vals[c][0].value = NULL;
		b->vals[c][0].version = NULL;
	}
}

static void build_free(struct build *b)
{
	size_t c, k;

	for (c = 0; c < b->h->evidence.candidate_count; c++)
		for (k = 0; k < MEASURED; k++) {
			free(b->vals[c][k].value);
			free(b->vals[c][k].version);
		}
	free(b->vals);
}

/* The history's copy of version v (git.h's type, the same ids). */
static void version_set(mg_history_version *to, const mg_repo_version *v)
{
	_Static_assert(sizeof(to->commit) >= sizeof(v->commit) &&
		       sizeof(to->blob) >= sizeof(v->blob), "room for every id");
	snprintf(to->commit, sizeof(to->commit), "%s", v->commit);
	snprintf(to->blob, sizeof(to->blob), "%s", v->blob);
}

/* Read version v as a report into the build, when `accept` (if any) lets
 * it count; skipped versions are counted per reason (the first unreadable
 * one's kept).  0, or MG_ERROR when `accept` fails. */
static int read_version(struct build *b, mg_repo *repo, const mg_repo_version *v,
			size_t max_bytes, mg_history_accept_fn accept, void *ctx,
			mg_error *err)
{
	mg_history *h = b->h;
	mg_blob blob = { 0 };
	mg_report *r = NULL;
	mg_error e;
	char lfs[MG_GIT_LFS_OID_HEX], msg[sizeof(e.message) + 64];
	unsigned long long size;
	int why = MG_HISTORY_SKIP_UNREADABLE, error = MG_OK;
	bool counts = false;

	mg_error_clear(&e);
	if (mg_repo_read_blob(&blob, repo, v->blob, h->path, v->commit, max_bytes, &e) < 0)
		goto done;
	if (mg_blob_is_lfs_pointer(blob.data, blob.len, lfs, &size)) {
		mg_error_set(&e, h->path, 0, 0, "a Git LFS pointer at %.7s (history reads no LFS "
			     "objects)", v->commit);
		goto done;
	}
	if (mg_report_parse(&r, h->path, blob.data, blob.len, &e) < 0)
		goto done;
	why = 0;   /* read: counts unless accept says why not */
	if (accept) {
		if ((why = accept(ctx, v, blob.data, blob.len, r, err)) < 0) {
			error = why;
			goto done;
		}
	}
	if (why)
		goto done;
	add_report(b, r, h->used);
	version_set(&h->versions[h->used++], v);
	counts = true;
done:
	if (error == MG_OK && !counts) {
		assert(why >= 0 && why < MG_HISTORY_SKIP_COUNT);
		h->skipped_for[why]++;
	}
	if (error == MG_OK && !counts && why == MG_HISTORY_SKIP_UNREADABLE && !h->skipped++) {
		mg_error_format(&e, msg, sizeof(msg));
		h->skipped_why = mg_xstrdup(msg);
	}
	mg_report_free(r);
	mg_blob_release(&blob);
	return error;
}

/* The versions that accept skipped: the walk looks as much further. */
static size_t accept_skipped(const mg_history *h)
{
	return mg_history_skipped_total(h) - h->skipped;
}

int mg_history__read(mg_history **out, mg_repo *repo, const char *base_hex,
		     const char *path, int asked, size_t max_commits, size_t max_bytes,
		     mg_history_accept_fn accept, void *ctx, mg_error *err)
{
	mg_repo_version *list = NULL;
	mg_repo_walk how;
	struct build b = { 0 };
	mg_history *h = NULL;
	size_t n = 0, i = 0, want = (size_t)asked;
	int error;

	assert(out && repo && base_hex && path && asked > 0 && max_commits > 0);
	*out = NULL;
	h = b.h = mg_xcalloc(1, sizeof(*h));
	h->asked = asked;
	h->max_commits = max_commits;
	snprintf(h->base, sizeof(h->base), "%s", base_hex);
	h->path = mg_xstrdup(path);
	h->evidence.candidates_present = true;
	for (;;) {
		/* a skipped version makes the walk look further: again from the
		 * base, each version read once (rare: the walk is cheap beside
		 * the reading) */
		free(list);
		list = NULL;
		if ((error = mg_repo_path_versions(&list, &n, &how, repo, base_hex, path, want,
						   max_commits, err)) < 0) {
			char why[sizeof(err->message)];

			snprintf(why, sizeof(why), "%s", err->message);
			mg_error_set(err, NULL, 0, 0, "regression.history: %s", why);
			goto done;
		}
		h->versions = mg_xrealloc(h->versions, (n ? n : 1) * sizeof(*h->versions));
		for (; i < n; i++)
			if ((error = read_version(&b, repo, &list[i], max_bytes, accept, ctx,
						  err)) < 0)
				goto done;
		if (n < want || (size_t)asked + accept_skipped(h) <= want)
			break;
		want = (size_t)asked + accept_skipped(h);
	}
	h->visited = how.visited;
	h->bounded = how.bounded;
	h->ended = how.ended;
	h->shallow = how.shallow;
	conclude(&b);
	*out = h;
	h = NULL;
done:
	build_free(&b);
	mg_history_free(h);
	free(list);
	return error;
}

size_t mg_history_skipped_total(const mg_history *h)
{
	size_t i, n = 0;

	for (i = 0; h && i < MG_HISTORY_SKIP_COUNT; i++)
		n += h->skipped_for[i];
	return n;
}

static const char *const skip_words[MG_HISTORY_SKIP_COUNT] = {
	"not a report memgate reads", "not pinned by the manifest",
	"measured on another workload or hardware", "unsigned",
};
static const char *const skip_keys[MG_HISTORY_SKIP_COUNT] = {
	"unreadable", "not_pinned", "identity", "unsigned",
};

const char *mg_history_skip_words(enum mg_history_skip why)
{
	assert(why < MG_HISTORY_SKIP_COUNT);
	return skip_words[why];
}

const char *mg_history_skip_key(enum mg_history_skip why)
{
	assert(why < MG_HISTORY_SKIP_COUNT);
	return skip_keys[why];
}

long mg_history_find(const mg_history *h, const char *name)
{
	size_t lo = 0, hi = h && name ? h->evidence.candidate_count : 0, mid;
	int c;

	while (lo < hi) {   /* h->by_name is sorted by name */
		mid = lo + (hi - lo) / 2;
		c = strcmp(h->evidence.candidates[h->by_name[mid]].name, name);
		if (!c)
			return (long)h->by_name[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

void mg_history_free(mg_history *h)
{
	size_t i;

	if (!h)
		return;
	for (i = 0; i < h->evidence.candidate_count; i++) {
		free(h->evidence.candidates[i].name);
		free(h->evidence.candidates[i].status);
		free(h->peaks ? h->peaks[i].value : NULL);
		free(h->peaks ? h->peaks[i].version : NULL);
	}
	free(h->evidence.candidates);
	free(h->by_name);
	free(h->peaks);
	free(h->versions);
	free(h->path);
	free(h->skipped_why);
	free(h);
}
