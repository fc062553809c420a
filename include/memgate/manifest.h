#ifndef MEMGATE_MANIFEST_H
#define MEMGATE_MANIFEST_H
/*
 * The stage-75 input manifest (SPEC 1.2), read with cJSON as strictly as the
 * report, and the repository path rules every input path obeys.
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
} mg_manifest;

int mg_manifest_parse(mg_manifest **out, const char *path, const char *text,
		      size_t len, mg_error *err);
void mg_manifest_free(mg_manifest *m);

/*
 * Check a repository path against SPEC 1.2: relative, '/'-separated, not
 * empty, no "." or ".." segments, no empty segments, no backslash, no NUL or
 * control characters.  Returns 0, or MG_ERROR with a message that says why
 * (err->file/line/column left for the caller to fill).
 */
int mg_manifest_check_path(const char *repo_path, mg_error *err);

/* Build the manifest JSON text for a report (memgate manifest).  Returns a
 * malloc'd NUL-terminated string ending in a newline. */
char *mg_manifest_render(const char *source_path, const char *sha256_hex,
			 const char *schema_version, const char *semantic_id);

#endif
