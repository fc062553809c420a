/*
 * The approved decision record a manifest pins (approved_result): a parser,
 * below check, beside the policy, manifest and report parsers.  See
 * include/memgate/approved.h.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "json_write.h"
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
		mg_escape_text_max(&safe, word, strlen(word), 100);
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

/* A memgate record at node `rec`: "decision" is a string, "selected_candidate"
 * a string or null. */
static int read_memgate(char **decision, char **selected, const mg_json_tape *t, size_t rec,
			const char *path, mg_error *err)
{
	int error;

	if (mg_json__tape_type(t, mg_json__tape_get(t, rec, "decision")) != MG_J_STRING)
		error = not_a_record(err, path, mg_json__tape_pos(t, rec), "decision");
	else if (mg_json__tape_member(t, rec, "selected_candidate") == MG_J_NONE)
		error = not_a_record(err, path, mg_json__tape_pos(t, rec), "selected_candidate");
	else if ((error = read_verdict(decision, t, mg_json__tape_get(t, rec, "decision"), path,
				       err)) == MG_OK)
		error = read_candidate(selected, t, rec, "selected_candidate", path, err);
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
		error = read_memgate(decision, selected, t, 0, path, err);
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

/* ---- the approval beside the manifest ---- */

/* "'<path>' is not an approval (<why>)" at pos. */
static int not_an_approval(mg_error *err, const char *path, mg_pos pos, const char *why)
{
	mg_buf safe = MG_BUF_INIT;

	mg_escape_text(&safe, path, strlen(path));
	mg_error_at(err, path, pos, "'%s' is not an approval (%s); memgate approve writes it",
		    safe.ptr, why);
	mg_buf_free(&safe);
	return MG_ERROR;
}

/* object[key] of the given type, or MG_ERROR naming what is there instead;
 * `where` names the object for a missing member ("the approval"). */
static int member_of(size_t *node, const mg_json_tape *t, size_t object, const char *key,
		     enum mg_jtype type, const char *type_name, const char *path, mg_error *err)
{
	*node = mg_json__tape_member(t, object, key);
	if (*node == MG_J_NONE) {
		mg_buf why = MG_BUF_INIT;
		int error;

		mg_buf_printf(&why, "no '%s'", key);
		error = not_an_approval(err, path, mg_json__tape_pos(t, object), why.ptr);
		mg_buf_free(&why);
		return error;
	}
	if (mg_json__tape_type(t, *node) != type)
		return mg_error_at(err, path, mg_json__tape_pos(t, *node), "'%s' must be %s, not %s",
				   key, type_name, mg_json__tape_type_name(t, *node));
	return MG_OK;
}

/* Every key of `object` is one of `known` (NULL-terminated). */
static int known_keys(const mg_json_tape *t, size_t object, const char *const *known,
		      const char *expected, const char *path, mg_error *err)
{
	size_t node, i;
	int error = MG_OK;

	for (node = mg_json__tape_first(t, object); node != MG_J_NONE && !error;
	     node = mg_json__tape_next(t, object, node)) {
		char *key = mg_json__tape_key(t, node);
		mg_buf safe = MG_BUF_INIT;

		for (i = 0; known[i] && strcmp(known[i], key); i++)
			;
		if (!known[i]) {
			mg_escape_text_max(&safe, key, strlen(key), 100);
			error = mg_error_at(err, path, mg_json__tape_key_pos(t, node), "unknown key "
					    "'%s' in the approval (expected %s)", safe.ptr, expected);
		}
		mg_buf_free(&safe);
		free(key);
	}
	return error;
}

/* 64 lowercase hex digits. */
static bool is_sha256(const char *s)
{
	return strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

/* manifest: {path, sha256}. */
static int read_bound_manifest(mg_approved_file *a, const mg_json_tape *t, size_t object,
			       const char *path, mg_error *err)
{
	static const char *const keys[] = { "path", "sha256", NULL };
	size_t node;
	int error;

	if ((error = known_keys(t, object, keys, "path, sha256", path, err)) < 0 ||
	    (error = member_of(&node, t, object, "path", MG_J_STRING, "a string", path, err)) < 0)
		return error;
	a->manifest_path = mg_json__tape_strdup(t, node);
	if ((error = member_of(&node, t, object, "sha256", MG_J_STRING, "a string", path,
			       err)) < 0)
		return error;
	a->manifest_sha256 = mg_json__tape_strdup(t, node);
	a->manifest_sha256_pos = mg_json__tape_pos(t, node);
	if (!is_sha256(a->manifest_sha256)) {
		mg_buf safe = MG_BUF_INIT;

		mg_escape_text_max(&safe, a->manifest_sha256, strlen(a->manifest_sha256), 100);
		error = mg_error_at(err, path, a->manifest_sha256_pos, "'manifest.sha256' must be "
				    "64 lowercase hex digits (the manifest's SHA-256), not '%s'",
				    safe.ptr);
		mg_buf_free(&safe);
	}
	return error;
}

static int read_approval(mg_approved_file *a, const mg_json_tape *t, const char *path,
			 mg_error *err)
{
	static const char *const keys[] = { "memgate_approval", "manifest", "record", NULL };
	size_t node;
	int error;

	if (mg_json__tape_type(t, 0) != MG_J_OBJECT)
		return not_an_approval(err, path, mg_json__tape_pos(t, 0), "not a JSON object");
	if ((error = known_keys(t, 0, keys, "memgate_approval, manifest, record", path, err)) < 0 ||
	    (error = member_of(&node, t, 0, "memgate_approval", MG_J_NUMBER, "a number", path,
			       err)) < 0)
		return error;
	if (mg_json__tape_number(t, node) != MG_APPROVED_VERSION)
		return mg_error_at(err, path, mg_json__tape_pos(t, node), "'memgate_approval' is "
				   "%g: this memgate reads approvals of version %d",
				   mg_json__tape_number(t, node), MG_APPROVED_VERSION);
	if ((error = member_of(&node, t, 0, "manifest", MG_J_OBJECT, "an object", path, err)) < 0 ||
	    (error = read_bound_manifest(a, t, node, path, err)) < 0 ||
	    (error = member_of(&node, t, 0, "record", MG_J_OBJECT, "an object", path, err)) < 0)
		return error;
	a->record_pos = mg_json__tape_pos(t, node);
	return read_memgate(&a->decision, &a->selected, t, node, path, err);
}

int mg_approved_file_parse(mg_approved_file **out, const char *path, const char *text,
			   size_t len, mg_error *err)
{
	mg_approved_file *a = mg_xcalloc(1, sizeof(*a));
	mg_json_tape *t = NULL;
	int error;

	assert(out && path && text);
	*out = NULL;
	if ((error = mg_json__stream(&t, path, text, len, NULL, NULL, NULL, NULL, NULL, err)) < 0 ||
	    (error = read_approval(a, t, path, err)) < 0)
		goto done;
	*out = a;
	a = NULL;
done:
	mg_approved_file_free(a);
	mg_json__tape_free(t);
	return error;
}

void mg_approved_file_free(mg_approved_file *a)
{
	if (!a)
		return;
	free(a->manifest_path);
	free(a->manifest_sha256);
	free(a->decision);
	free(a->selected);
	free(a);
}

char *mg_approved_file_render(const char *manifest_path, const char *manifest_sha256,
			      const char *record)
{
	mg_buf b = MG_BUF_INIT;
	mg_jw w;
	size_t len = strlen(record);

	assert(manifest_path && manifest_sha256 && record);
	while (len && record[len - 1] == '\n')
		len--;
	mg_jw_init(&w, &b, MG_JW_SPACES, 0);
	mg_jw_object(&w);
	mg_jw_key(&w, "memgate_approval");
	mg_jw_uint(&w, MG_APPROVED_VERSION);
	mg_jw_key_object(&w, "manifest");
	mg_jw_key_string(&w, "path", manifest_path);
	mg_jw_key_string(&w, "sha256", manifest_sha256);
	mg_jw_end(&w);
	mg_jw_key(&w, "record");
	mg_jw_raw(&w, record, len);   /* the record's own text, byte for byte */
	mg_jw_end(&w);
	mg_buf_putc(&b, '\n');
	return mg_buf_detach(&b, NULL);
}

char *mg_approved_file_path(const char *manifest)
{
	mg_buf b = MG_BUF_INIT;
	size_t len = strlen(manifest);

	if (len > 5 && !strcmp(manifest + len - 5, ".json"))
		len -= 5;
	mg_buf_printf(&b, "%.*s.approved.json", (int)len, manifest);
	return mg_buf_detach(&b, NULL);
}
