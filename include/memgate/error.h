#ifndef MEMGATE_ERROR_H
#define MEMGATE_ERROR_H
/*
 * Errors and source positions.
 *
 * Every fallible function returns an int: 0 (MG_OK) on success, negative on
 * failure, and fills an mg_error when one is given.  Positions are 1-based;
 * 0 means "unknown".  The library never prints: only plugin/cli/main.c does.
 */
#include <stddef.h>

#define MG_OK        0
#define MG_ERROR    -1   /* bad input or failed operation: exit 2 */
#define MG_ENOTFOUND -3  /* a path or revision that does not exist */

typedef struct mg_pos {
	int line;   /* 1-based, 0 when unknown */
	int column; /* 1-based, 0 when unknown */
} mg_pos;

typedef struct mg_error {
	char file[512];     /* the input the error is about, "" when none */
	int line;           /* 1-based, 0 when none */
	int column;         /* 1-based, 0 when none */
	char message[1024]; /* lowercase, no full stop, one line */
} mg_error;

/* Reset to "no error". */
void mg_error_clear(mg_error *err);

/*
 * Record an error about `file` (may be NULL) at line:column (0 = unknown).
 * `err` may be NULL.  Always returns MG_ERROR so callers can write
 * `return mg_error_set(err, ...)`.  Newlines in the message are replaced by
 * spaces so that the message stays one line.
 */
int mg_error_set(mg_error *err, const char *file, int line, int column,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Same as mg_error_set with a position struct. */
int mg_error_at(mg_error *err, const char *file, mg_pos pos,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * The 1-based line and column of text[offset] (an offset past len counts
 * as len).  Columns count UTF-8 characters, as editors show them.
 */
mg_pos mg_pos_of(const char *text, size_t len, size_t offset);

/*
 * Format as "file:line:col: message", "file:line: message", "file: message"
 * or "message".  Writes at most n bytes into buf and returns buf.
 */
const char *mg_error_format(const mg_error *err, char *buf, size_t n);

#endif
