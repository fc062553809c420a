#ifndef MEMGATE_OUTPUT_H
#define MEMGATE_OUTPUT_H
/*
 * Atomic output files.  Every file memgate writes (--json, --summary,
 * --junit, record --out, manifest --out) goes through here: all of a run's
 * files are first written to temporary files in their own directories, then
 * renamed into place, so that on any error nothing is left behind and a
 * reader never sees half a file.
 */
#include <stdbool.h>
#include <stddef.h>
#include "error.h"

typedef struct mg_outputs mg_outputs;  /* opaque; mg_outputs_free */

mg_outputs *mg_outputs_new(void);

/* Queue `len` bytes for `path` (relative to the current directory).  With
 * `append`, the file's current content is kept in front (GITHUB_STEP_SUMMARY,
 * GITHUB_OUTPUT).  The data is copied. */
void mg_outputs_add(mg_outputs *o, const char *path, const char *data, size_t len,
		    bool append);

/* Write every queued file to a temporary file beside it, then rename them
 * all.  On failure removes every temporary file and returns MG_ERROR naming
 * the path. */
int mg_outputs_commit(mg_outputs *o, mg_error *err);

void mg_outputs_free(mg_outputs *o);

#endif
