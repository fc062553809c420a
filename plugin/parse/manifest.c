/*
 * The stage-75 input manifest (memgate(1), REPORTS, its last
 * paragraph): see include/memgate/manifest.h.
 *
 * Read by the report's strict reader (mg_json__stream, whole document):
 * malformed JSON, duplicate keys and trailing text are errors.  Unknown keys
 * are ignored, so that a producer may add its own fields; a key that is
 * present with a null value counts as absent for optional keys and as the
 * wrong type for required ones.
 */
#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "json_write.h"
#include "memgate/buf.h"
#include "memgate/manifest.h"
#include "path.h"

struct parse {
	const mg_json_tape *t;
	const char *path;
	mg_error *err;
};

/* ---- reading ------------------------------------------------------ */

/* "source" or "source.path": how messages name a key. */
static void key_label(char *out, size_t n, const char *parent, const char *key)
{
	if (parent)
		snprintf(out, n, "%s.%s", parent, key);
	else
		snprintf(out, n, "%s", key);
}

static mg_pos pos_of(const struct parse *p, size_t node)
{
	return mg_json__tape_pos(p->t, node);
}

/*
 * parent[key], which must hold a value of `type` (MG_J_OBJECT or
 * MG_J_STRING).  *out is MG_J_NONE when the key is absent (or null) and
 * not required.
 */
static int member(size_t *out, const struct parse *p, size_t parent,
		  const char *parent_name, const char *key, enum mg_jtype type, bool required)
{
	size_t v = mg_json__tape_member(p->t, parent, key);
	enum mg_jtype vt = v == MG_J_NONE ? MG_J_NULL : mg_json__tape_type(p->t, v);
	char label[128];

	*out = MG_J_NONE;
	key_label(label, sizeof(label), parent_name, key);
	if (!required && vt == MG_J_NULL)
		return MG_OK;
	if (v == MG_J_NONE && parent_name)
		return mg_error_at(p->err, p->path, pos_of(p, parent),
				   "missing required key '%s' in '%s'", key, parent_name);
	if (v == MG_J_NONE)
		return mg_error_at(p->err, p->path, pos_of(p, parent),
				   "missing required key '%s'", key);
	if (vt != type)
		return mg_error_at(p->err, p->path, pos_of(p, v),
				   "'%s' must be %s, not %s", label,
				   type == MG_J_OBJECT ? "an object" : "a string",
				   mg_json__tape_type_name(p->t, v));
	*out = v;
	return MG_OK;
}

/* Why a sha256 value is refused, written into why[]; false when it is fine. */
static bool sha256_problem(char *why, size_t n, const char *hex)
{
	size_t len = strlen(hex), i;

	if (len != 64) {
		snprintf(why, n, "must be 64 lowercase hex digits, not %zu characters", len);
		return true;
	}
	for (i = 0; i < len; i++) {
		char c = hex[i];

		if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))
			continue;
		if (c >= 'A' && c <= 'F')
			snprintf(why, n, "must be lowercase hex digits, found '%c'", c);
		else if (c > 0x20 && c < 0x7f)
			snprintf(why, n, "must be 64 lowercase hex digits, found '%c'", c);
		else
			snprintf(why, n, "must be 64 lowercase hex digits");
		return true;
	}
	return false;
}

/* The path with control characters shown as '?', for messages. */
static void printable(char *out, size_t n, const char *s)
{
	size_t i;

	snprintf(out, n, "%s", s);
	for (i = 0; out[i]; i++)
		if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			out[i] = '?';
}

/* object.path and object.sha256, both required, checked and copied. */
static int read_ref(char **path, mg_pos *path_pos, char **sha, mg_pos *sha_pos,
		    const struct parse *p, size_t object, const char *name)
{
	size_t vp, vs;
	char why[160], label[64], shown[256], *ps = NULL, *ss = NULL;
	mg_error tmp;
	int error;

	if ((error = member(&vp, p, object, name, "path", MG_J_STRING, true)) < 0 ||
	    (error = member(&vs, p, object, name, "sha256", MG_J_STRING, true)) < 0)
		return error;
	ps = mg_json__tape_strdup(p->t, vp);
	ss = mg_json__tape_strdup(p->t, vs);
	if (mg_path_check(ps, &tmp) < 0) {
		printable(shown, sizeof(shown), ps);
		error = mg_error_at(p->err, p->path, pos_of(p, vp),
				    "invalid path '%s' in '%s.path': %s", shown, name, tmp.message);
	} else if (sha256_problem(why, sizeof(why), ss)) {
		key_label(label, sizeof(label), name, "sha256");
		error = mg_error_at(p->err, p->path, pos_of(p, vs), "'%s' %s", label, why);
	} else {
		*path = ps;
		*path_pos = pos_of(p, vp);
		*sha = ss;
		*sha_pos = pos_of(p, vs);
		ps = ss = NULL;
	}
	free(ps);
	free(ss);
	return error;
}

static int read_optional_string(char **out, mg_pos *pos, const struct parse *p,
				size_t object, const char *name, const char *key)
{
	size_t v;
	int error;

	if ((error = member(&v, p, object, name, key, MG_J_STRING, false)) < 0 || v == MG_J_NONE)
		return error;
	*out = mg_json__tape_strdup(p->t, v);
	*pos = pos_of(p, v);
	return MG_OK;
}

static int read_source(mg_manifest *m, const struct parse *p, size_t root)
{
	size_t src;
	int error;

	if ((error = member(&src, p, root, NULL, "source", MG_J_OBJECT, true)) < 0)
		return error;
	if ((error = read_ref(&m->source_path, &m->source_path_pos, &m->source_sha256,
			      &m->source_sha256_pos, p, src, "source")) < 0)
		return error;
	if ((error = read_optional_string(&m->schema_version, &m->schema_version_pos,
					  p, src, "source", "schema_version")) < 0)
		return error;
	return read_optional_string(&m->semantic_id, &m->semantic_id_pos,
				    p, src, "source", "semantic_id");
}

static int read_approved(mg_manifest *m, const struct parse *p, size_t root)
{
	size_t ap;
	int error;

	if ((error = member(&ap, p, root, NULL, "approved_result", MG_J_OBJECT, false)) < 0 ||
	    ap == MG_J_NONE)
		return error;
	m->has_approved = true;
	return read_ref(&m->approved_path, &m->approved_path_pos, &m->approved_sha256,
			&m->approved_sha256_pos, p, ap, "approved_result");
}

/* measured.commit: a full object id, 40 (or, SHA-256, 64) lowercase hex. */
static int read_measured(mg_manifest *m, const struct parse *p, size_t root)
{
	size_t ms, c, len;
	char *id;
	int error;

	if ((error = member(&ms, p, root, NULL, "measured", MG_J_OBJECT, false)) < 0 ||
	    ms == MG_J_NONE)
		return error;
	if ((error = member(&c, p, ms, "measured", "commit", MG_J_STRING, true)) < 0)
		return error;
	id = mg_json__tape_strdup(p->t, c);
	len = strlen(id);
	if ((len != 40 && len != 64) || strspn(id, "0123456789abcdef") != len) {
		free(id);
		return mg_error_at(p->err, p->path, pos_of(p, c),
				   "'measured.commit' must be a full commit id (40 lowercase hex "
				   "digits; memgate manifest --measured-commit REV writes it)");
	}
	m->measured_commit = id;
	m->measured_commit_pos = pos_of(p, c);
	return MG_OK;
}

static int read_manifest(mg_manifest *m, const struct parse *p)
{
	size_t root = 0;
	int error;

	if (mg_json__tape_type(p->t, root) != MG_J_OBJECT)
		return mg_error_at(p->err, p->path, pos_of(p, root),
				   "manifest must be a JSON object, not %s",
				   mg_json__tape_type_name(p->t, root));
	if ((error = read_source(m, p, root)) < 0 ||
	    (error = read_measured(m, p, root)) < 0)
		return error;
	return read_approved(m, p, root);
}

int mg_manifest_parse(mg_manifest **out, const char *path, const char *text,
		      size_t len, mg_error *err)
{
	mg_json_tape *t = NULL;
	mg_manifest *m = NULL;
	struct parse p;
	int error;

	assert(out);
	*out = NULL;
	if ((error = mg_json__stream(&t, path, text, len, NULL, NULL, NULL, NULL, NULL, err)) < 0)
		goto done;
	p.t = t;
	p.path = path;
	p.err = err;
	m = mg_xcalloc(1, sizeof(*m));
	m->path = mg_xstrdup(path ? path : "");
	if ((error = read_manifest(m, &p)) < 0)
		goto done;
	*out = m;
	m = NULL;
done:
	mg_manifest_free(m);
	mg_json__tape_free(t);
	return error;
}

void mg_manifest_free(mg_manifest *m)
{
	if (!m)
		return;
	free(m->path);
	free(m->source_path);
	free(m->source_sha256);
	free(m->schema_version);
	free(m->semantic_id);
	free(m->approved_path);
	free(m->approved_sha256);
	free(m->measured_commit);
	free(m);
}

/* ---- rendering ---------------------------------------------------- */

/* The manifest's layout: json.dump(s, indent=2)'s for its objects (two
 * spaces a level, ": " after a key), written with the one JSON writer, and a
 * newline. */
static char *finish(mg_buf *out)
{
	mg_buf_putc(out, '\n');
	return mg_buf_detach(out, NULL);
}

char *mg_manifest_render(const char *source_path, const char *sha256_hex,
			 const char *schema_version, const char *semantic_id)
{
	return mg_manifest_render_approved(source_path, sha256_hex, schema_version,
					   semantic_id, NULL, NULL, NULL);
}

char *mg_manifest_render_approved(const char *source_path, const char *sha256_hex,
				  const char *schema_version, const char *semantic_id,
				  const char *approved_path, const char *approved_sha256,
				  const char *measured_commit)
{
	mg_buf out = MG_BUF_INIT;
	mg_jw w;

	assert(source_path && sha256_hex);
	mg_jw_init(&w, &out, MG_JW_SPACES, 0);
	mg_jw_object(&w);
	mg_jw_key_object(&w, "source");
	mg_jw_key_string(&w, "path", source_path);
	mg_jw_key_string(&w, "sha256", sha256_hex);
	if (schema_version)
		mg_jw_key_string(&w, "schema_version", schema_version);
	if (semantic_id)
		mg_jw_key_string(&w, "semantic_id", semantic_id);
	mg_jw_end(&w);
	if (measured_commit) {
		mg_jw_key_object(&w, "measured");
		mg_jw_key_string(&w, "commit", measured_commit);
		mg_jw_end(&w);
	}
	if (approved_path && approved_sha256) {
		mg_jw_key_object(&w, "approved_result");
		mg_jw_key_string(&w, "path", approved_path);
		mg_jw_key_string(&w, "sha256", approved_sha256);
		mg_jw_end(&w);
	}
	mg_jw_end(&w);
	return finish(&out);
}

/* approved_result: {path, sha256} as the member's value. */
static void put_approved(mg_jw *w, const char *path, const char *sha256)
{
	mg_jw_object(w);
	mg_jw_key_string(w, "path", path);
	mg_jw_key_string(w, "sha256", sha256);
	mg_jw_end(w);
}

/* The root object's members, approved_result (the first, if ever more)
 * replaced where it stands; true when there was one. */
static bool put_members(mg_jw *w, const mg_json_tape *t, const char *approved_path,
			const char *approved_sha256)
{
	bool replaced = false;
	size_t c;

	for (c = mg_json__tape_first(t, 0); c != MG_J_NONE; c = mg_json__tape_next(t, 0, c)) {
		char *key = mg_json__tape_key(t, c);

		mg_jw_key(w, key);
		if (!replaced && !strcmp(key, "approved_result")) {
			put_approved(w, approved_path, approved_sha256);
			replaced = true;
		} else {
			mg_json__write_tape(w, t, c);
		}
		free(key);
	}
	return replaced;
}

/* Read by the strict reader (as every manifest is), so a text with
 * duplicate keys, trailing text or nesting deeper than MG_JSON_MAX_DEPTH
 * (which the writer could not write) is refused: NULL. */
char *mg_manifest_set_approved(const char *text, size_t len, const char *approved_path,
			       const char *approved_sha256)
{
	mg_buf out = MG_BUF_INIT;
	mg_json_tape *t = NULL;
	mg_jw w;

	assert(text && approved_path && approved_sha256);
	if (mg_json__stream(&t, NULL, text, len, NULL, NULL, NULL, NULL, NULL, NULL) < 0 ||
	    mg_json__tape_type(t, 0) != MG_J_OBJECT) {
		mg_json__tape_free(t);
		return NULL;
	}
	mg_jw_init(&w, &out, MG_JW_SPACES, 0);
	mg_jw_object(&w);
	if (!put_members(&w, t, approved_path, approved_sha256)) {
		mg_jw_key(&w, "approved_result");
		put_approved(&w, approved_path, approved_sha256);
	}
	mg_jw_end(&w);
	mg_json__tape_free(t);
	return finish(&out);
}
