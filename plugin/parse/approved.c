/*
 * The approved decision record a manifest pins (approved_result): a parser,
 * below check, beside the policy, manifest and report parsers.  See
 * include/memgate/approved.h.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "memgate/approved.h"
#include "memgate/buf.h"
#include "memgate/decision.h"
#include "memgate/escape.h"

/* "'<path>' is not a decision record (no '<what>')" at pos. */
static int not_a_record(mg_error *err, const char *path, mg_pos pos, const char *what)
{
	mg_buf safe = MG_BUF_INIT;

	mg_escape_text(&safe, path, strlen(path));
	mg_error_at(err, path, pos, "'%s' is not a decision record (no '%s')", safe.ptr, what);
	mg_buf_free(&safe);
	return MG_ERROR;
}

/* The verdict word of a record (a string node): "accept", "tune" or "reject". */
static int read_verdict(char **out, const mg_json_tape *t, size_t node,
			const char *path, mg_error *err)
{
	mg_buf safe = MG_BUF_INIT;
	char *word = mg_json__tape_strdup(t, node);
	int error = MG_OK;

	if (mg_verdict_from_name(word) >= 0) {
		*out = word;
		word = NULL;
	} else {
		mg_escape_text(&safe, word, strlen(word));
		error = mg_error_at(err, path, mg_json__tape_pos(t, node),
				    "unknown decision '%s' (expected %s, %s or %s)", safe.ptr,
				    mg_verdict_name(MG_ACCEPT), mg_verdict_name(MG_TUNE),
				    mg_verdict_name(MG_REJECT));
	}
	free(word);
	mg_buf_free(&safe);
	return error;
}

/* A candidate name under key: a string, or null or absent (*out stays NULL). */
static int read_candidate(char **out, const mg_json_tape *t, size_t object,
			  const char *key, const char *path, mg_error *err)
{
	size_t node = mg_json__tape_get(t, object, key);
	int error = MG_OK;

	if (node == MG_J_NONE)
		return MG_OK;
	if (mg_json__tape_type(t, node) == MG_J_STRING)
		*out = mg_json__tape_strdup(t, node);
	else
		error = mg_error_at(err, path, mg_json__tape_pos(t, node),
				    "'%s' must be a string or null, not %s", key,
				    mg_json__tape_type_name(t, node));
	return error;
}

/* A memgate record: "decision" is a string, "selected_candidate" a string or null. */
static int read_memgate(char **decision, char **selected, const mg_json_tape *t,
			const char *path, mg_error *err)
{
	int error;

	if (mg_json__tape_member(t, 0, "selected_candidate") == MG_J_NONE)
		error = not_a_record(err, path, mg_json__tape_pos(t, 0), "selected_candidate");
	else if ((error = read_verdict(decision, t, mg_json__tape_get(t, 0, "decision"), path,
				       err)) == MG_OK)
		error = read_candidate(selected, t, 0, "selected_candidate", path, err);
	return error;
}

/* The seed's stage-75 record: decision.decision and summary.best_candidate. */
static int read_seed(char **decision, char **selected, const mg_json_tape *t,
		     const char *path, mg_error *err)
{
	size_t outer = mg_json__tape_get(t, 0, "decision");
	size_t inner = mg_json__tape_get(t, outer, "decision");
	size_t summary = mg_json__tape_get(t, 0, "summary");
	int error;

	if (mg_json__tape_type(t, inner) != MG_J_STRING)
		error = not_a_record(err, path, mg_json__tape_pos(t, outer), "decision");
	else if (mg_json__tape_type(t, summary) != MG_J_OBJECT)
		error = not_a_record(err, path, mg_json__tape_pos(t, 0), "summary");
	else if ((error = read_verdict(decision, t, inner, path, err)) == MG_OK)
		error = read_candidate(selected, t, summary, "best_candidate", path, err);
	return error;
}

int mg_approved_read(char **decision, char **selected, const char *path, const char *text,
		     size_t len, mg_error *err)
{
	mg_json_tape *t = NULL;
	enum mg_jtype verdict;
	int error;

	assert(decision && selected && path && text);
	*decision = NULL;
	*selected = NULL;
	if ((error = mg_json__stream(&t, path, text, len, NULL, NULL, NULL, NULL, NULL, err)) < 0)
		goto done;
	verdict = mg_json__tape_type(t, mg_json__tape_get(t, 0, "decision"));
	if (verdict == MG_J_STRING)
		error = read_memgate(decision, selected, t, path, err);
	else if (verdict == MG_J_OBJECT)
		error = read_seed(decision, selected, t, path, err);
	else
		error = not_a_record(err, path, mg_json__tape_pos(t, 0), "decision");
done:
	if (error < 0) {
		free(*decision);
		free(*selected);
		*decision = NULL;
		*selected = NULL;
	}
	mg_json__tape_free(t);
	return error;
}

/* A string at object.key, else NULL. */
static char *string_at(const mg_json_tape *t, size_t object, const char *key)
{
	size_t node = mg_json__tape_get(t, object, key);

	return mg_json__tape_type(t, node) == MG_J_STRING ? mg_json__tape_strdup(t, node) : NULL;
}

void mg_approved_evidence(char **report_sha256, char **measured_commit, const char *text,
			  size_t len)
{
	mg_json_tape *t = NULL;
	size_t inputs;

	assert(report_sha256 && measured_commit && text);
	*report_sha256 = NULL;
	*measured_commit = NULL;
	if (mg_json__stream(&t, NULL, text, len, NULL, NULL, NULL, NULL, NULL, NULL) < 0)
		return;
	inputs = mg_json__tape_get(t, 0, "inputs");
	*report_sha256 = string_at(t, mg_json__tape_get(t, inputs, "report"), "sha256");
	*measured_commit = string_at(t, mg_json__tape_get(t, 0, "evidence"), "measured_commit");
	mg_json__tape_free(t);
}
