#ifndef MEMGATE_MANIFEST_H
#define MEMGATE_MANIFEST_H
/*
 * The stage-75 input manifest (memgate(1), REPORTS), read with cJSON as strictly as the
 * report.
 */
#include <stdbool.h>
#include <stddef.h>
#include "error.h"

typedef struct mg_manifest {
	char *path;
	char *source_path;          /* required */
	mg_pos source_path_pos;
	char *source_sha256;        /* required, 64 lowercase hex */
	mg_pos source_sha256_pos;
	char *schema_version;       /* optional, NULL when absent */
	mg_pos schema_version_pos;
	char *semantic_id;          /* optional */
	mg_pos semantic_id_pos;
	bool has_approved;          /* approved_result present */
	char *approved_path;
	mg_pos approved_path_pos;
	char *approved_sha256;
	mg_pos approved_sha256_pos;
	char *measured_commit;      /* measured.commit: optional, a full commit id
				       (40 or 64 lowercase hex), NULL when absent */
	mg_pos measured_commit_pos;
} mg_manifest;

/*
 * Parse `len` bytes of `text` (need not be NUL-terminated) read from `path`,
 * as strictly as a report (malformed JSON, duplicate keys, trailing text,
 * NUL bytes, invalid UTF-8 are errors).  `source` must be an object with
 * string `path` and `sha256` (64 lowercase hex digits); `schema_version` and
 * `semantic_id` in `source` are optional strings; `measured`, when present
 * and not null, must be an object with `commit`, a full commit id (40, or 64
 * in a SHA-256 repository, lowercase hex digits); `approved_result`, when
 * present and not null, must be an object with the same `path` and `sha256`.
 * Both paths must pass the repository path rules (plugin/util/path.h).  Unknown keys are ignored;
 * a null optional key counts as absent.  Errors name path:line:column: a
 * wrong value at the value ("'source.sha256' must be 64 lowercase hex
 * digits, not 32 characters"), a missing key at the object that lacks it
 * ("missing required key 'sha256' in 'source'").  On success *out is the
 * caller's; free with mg_manifest_free (which accepts NULL).
 */
int mg_manifest_parse(mg_manifest **out, const char *path, const char *text,
		      size_t len, mg_error *err);
void mg_manifest_free(mg_manifest *m);

/* Build the manifest JSON text for a report (memgate manifest): `source`
 * with path, sha256 and, when not NULL, schema_version and semantic_id,
 * indented by two spaces as Python's json.dumps(indent=2) writes it.
 * Returns a malloc'd NUL-terminated string ending in a newline; the caller
 * frees it with free(). */
char *mg_manifest_render(const char *source_path, const char *sha256_hex,
			 const char *schema_version, const char *semantic_id);

/* The same, with measured {commit} when `measured_commit` is not NULL and an
 * approved_result {path, sha256} when both are not NULL (memgate manifest
 * keeps the one of the manifest it replaces). */
char *mg_manifest_render_approved(const char *source_path, const char *sha256_hex,
				  const char *schema_version, const char *semantic_id,
				  const char *approved_path, const char *approved_sha256,
				  const char *measured_commit);

/*
 * The manifest `text` (`len` bytes, already read by mg_manifest_parse) with
 * its approved_result set to {path, sha256} (memgate approve): an existing
 * approved_result is replaced where it stands, else one is added last;
 * every other key is kept, in its order, in the layout mg_manifest_render
 * writes (so a manifest memgate wrote changes only there).  Returns a
 * malloc'd NUL-terminated string ending in a newline, or NULL when `text`
 * is not a JSON object.  The caller frees it.
 */
char *mg_manifest_set_approved(const char *text, size_t len, const char *approved_path,
			       const char *approved_sha256);

#endif
