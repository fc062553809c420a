/*
 * The approved decision record a manifest pins (approved_result): a parser,
 * below check, beside the policy, manifest and report parsers.  See
 * include/memgate/approved.h.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

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

/* The verdict word of a record: "accept", "tune" or "reject". */
static int read_verdict(char **out, const mg_json *j, const cJSON *node,
			const char *path, mg_error *err)
{
	mg_buf safe = MG_BUF_INIT;
	int error = MG_OK;

	if (mg_verdict_from_name(node->valuestring) >= 0) {
		*out = mg_xstrdup(node->valuestring);
	} else {
		mg_escape_text(&safe, node->valuestring, strlen(node->valuestring));
		error = mg_error_at(err, path, mg_json__pos(j, node),
				    "unknown decision '%s' (expected %s, %s or %s)", safe.ptr,
				    mg_verdict_name(MG_ACCEPT), mg_verdict_name(MG_TUNE),
				    mg_verdict_name(MG_REJECT));
	}
	mg_buf_free(&safe);
	return error;
}

/* A candidate name under key: a string, or null or absent (*out stays NULL). */
static int read_candidate(char **out, const mg_json *j, const cJSON *object,
			  const char *key, const char *path, mg_error *err)
{
	const cJSON *node = cJSON_GetObjectItemCaseSensitive(object, key);
	int error = MG_OK;

	if (cJSON_IsString(node))
		*out = mg_xstrdup(node->valuestring);
	else if (node && !cJSON_IsNull(node))
		error = mg_error_at(err, path, mg_json__pos(j, node),
				    "'%s' must be a string or null, not %s", key,
				    mg_json__type_name(node));
	return error;
}

/* A memgate record: "decision" is a string, "selected_candidate" a string or null. */
static int read_memgate(char **decision, char **selected, const mg_json *j,
			const char *path, mg_error *err)
{
	const cJSON *root = mg_json__root(j);
	int error;

	if (!cJSON_GetObjectItemCaseSensitive(root, "selected_candidate"))
		error = not_a_record(err, path, mg_json__pos(j, root), "selected_candidate");
	else if ((error = read_verdict(decision, j, mg_json__get(root, "decision"), path, err)) == MG_OK)
		error = read_candidate(selected, j, root, "selected_candidate", path, err);
	return error;
}

/* The seed's stage-75 record: decision.decision and summary.best_candidate. */
static int read_seed(char **decision, char **selected, const mg_json *j,
		     const char *path, mg_error *err)
{
	const cJSON *root = mg_json__root(j);
	const cJSON *outer = mg_json__get(root, "decision");
	const cJSON *inner = mg_json__get(outer, "decision");
	const cJSON *summary = mg_json__get(root, "summary");
	int error;

	if (!cJSON_IsString(inner))
		error = not_a_record(err, path, mg_json__pos(j, outer), "decision");
	else if (!cJSON_IsObject(summary))
		error = not_a_record(err, path, mg_json__pos(j, root), "summary");
	else if ((error = read_verdict(decision, j, inner, path, err)) == MG_OK)
		error = read_candidate(selected, j, summary, "best_candidate", path, err);
	return error;
}

int mg_approved_read(char **decision, char **selected, const char *path, const char *text,
		     size_t len, mg_error *err)
{
	mg_json *j = NULL;
	const cJSON *root, *verdict;
	int error;

	assert(decision && selected && path && text);
	*decision = NULL;
	*selected = NULL;
	if ((error = mg_json__parse(&j, path, text, len, 0, err)) < 0)
		goto done;
	root = mg_json__root(j);
	verdict = cJSON_IsObject(root) ? mg_json__get(root, "decision") : NULL;
	if (cJSON_IsString(verdict))
		error = read_memgate(decision, selected, j, path, err);
	else if (cJSON_IsObject(verdict))
		error = read_seed(decision, selected, j, path, err);
	else
		error = not_a_record(err, path, mg_json__pos(j, root), "decision");
done:
	if (error < 0) {
		free(*decision);
		free(*selected);
		*decision = NULL;
		*selected = NULL;
	}
	mg_json__free(j);
	return error;
}
