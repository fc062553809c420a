#ifndef MEMGATE_OUTPUT_H
#define MEMGATE_OUTPUT_H
/*
 * Output files.  Every file memgate writes (--json, --summary, --junit,
 * record --out, manifest --out, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT) goes
 * through here, in one transaction per run:
 *
 *   1. every destination is checked before anything is written: a file
 *      memgate replaces or appends to must be a regular file or absent, never
 *      a symlink, a directory, a device or a FIFO (the runner's own files,
 *      MG_OUTPUT_RUNNER, excepted);
 *   2. replaced files are written to temporary files beside them;
 *   3. they are renamed into place (an existing file is first hard-linked
 *      aside, so that it can be put back);
 *   4. appended files are appended to in place, last;
 *   5. on any failure every step already done is undone where the file
 *      system allows it: replaced files are put back, created files removed,
 *      appended files truncated to their old length.
 *
 * A destination's directory is opened one component at a time (from the
 * current directory for a relative path or an absolute one inside it, else
 * from the root), and the file is checked, written, renamed and read
 * through that handle.  What a hostile repository controls is the current
 * directory and the gated repository's work tree (mg_outputs_guard): from
 * where the walk enters either, every component is opened with
 * O_NOFOLLOW | O_DIRECTORY, so a symlink in any parent there is refused as
 * one in the last component is (the runner's files excepted).  Any other
 * directory was named by the trusted caller, and a symlink there (macOS's
 * /tmp -> private/tmp, /var/folders) is followed, its target walked by the
 * same rule (so it cannot lead through a symlink inside a guarded
 * directory); the last component is never followed.  Reading goes the
 * same way, and nothing an append target holds is read at all.  A file
 * memgate creates gets mode 0644 less the umask; a file it replaces keeps
 * its permission bits less the execute, set-id and sticky bits.
 */
#include <stdbool.h>
#include <stddef.h>
#include "buf.h"
#include "error.h"

typedef struct mg_outputs mg_outputs;  /* opaque; mg_outputs_free */

enum mg_output_mode {
	MG_OUTPUT_REPLACE,  /* write a temporary file, rename it into place */
	MG_OUTPUT_APPEND,   /* append in place to a regular file (created when absent) */
	MG_OUTPUT_RUNNER    /* the runner's GITHUB_STEP_SUMMARY or GITHUB_OUTPUT, named
			     * by the runner's environment, not by the repository:
			     * appended in place to whatever it is (a symlink is
			     * followed, a device written to) */
};

mg_outputs *mg_outputs_new(void);

/*
 * Also guard `dir` (the gated repository's work tree; NULL is ignored):
 * no output path that reaches it, by any name, follows a symlink from
 * there down.  The current directory is always guarded.
 */
void mg_outputs_guard(mg_outputs *o, const char *dir);

/* Queue `len` bytes for `path` (relative to the current directory).  The
 * data is copied. */
void mg_outputs_add(mg_outputs *o, const char *path, const char *data, size_t len,
		    enum mg_output_mode mode);

/*
 * Queue a file memgate replaces (MG_OUTPUT_REPLACE) whose content is too
 * large to hold (the decision record of a large sweep): at commit, step 2
 * calls `source` to write it to the temporary file through `sink`.  The
 * source returns MG_OK, or MG_ERROR when the sink failed (errno set).
 * `ctx` must stay valid until the commit.
 */
typedef int (*mg_output_source)(void *ctx, mg_sink sink, void *sink_ctx);
void mg_outputs_add_source(mg_outputs *o, const char *path, mg_output_source source,
			   void *ctx);
/* Carry out the transaction above.  Returns MG_OK, or MG_ERROR naming the
 * path after undoing what was done. */
int mg_outputs_commit(mg_outputs *o, mg_error *err);

void mg_outputs_free(mg_outputs *o);

/*
 * Read the regular file at `path` without following a symlink (its
 * directory is opened as for writing, with o's guarded directories), for a
 * comparison before replacing it (record --out, manifest --out).  *data
 * (NUL-terminated, *len bytes) is the caller's; it is NULL when the file
 * does not exist.  A symlink, directory, device or FIFO is MG_ERROR.
 */
int mg_outputs_read_existing(char **data, size_t *len, const mg_outputs *o, const char *path,
			     mg_error *err);

/*
 * A fresh random delimiter for what renderers write around untrusted text:
 * the GitHub renderers' ::stop-commands:: token and GITHUB_OUTPUT heredoc
 * delimiter.  16 random bytes (OpenSSL's RAND_bytes), hex-encoded.
 * Returns 0 or MG_ERROR.
 */
#define MG_OUTPUT_TOKEN_SIZE 33   /* 32 hex digits and a NUL */
int mg_output_token(char out[MG_OUTPUT_TOKEN_SIZE]);

#endif
