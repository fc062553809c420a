#ifndef MEMGATE_PLUGIN_JSON_WRITE_H
#define MEMGATE_PLUGIN_JSON_WRITE_H
/*
 * The one JSON writer: every JSON text memgate writes (the decision record,
 * SARIF, Code Quality, the manifest, `list`, the GitHub step's outputs) is
 * streamed onto an mg_buf through it, so that each escaping rule is written
 * once, here.
 *
 * Invariants of what it writes:
 *   - a string is valid UTF-8 (each ill-formed sequence and NUL becomes
 *     U+FFFD, as mg_escape_utf8), escaped as cJSON escapes it: \" \\ \b \f
 *     \n \r \t, the other controls below 0x20 as \u00NN (lowercase hex),
 *     everything else copied;
 *   - the '[' of every "##[" in a string or key is written \u005b (a legacy
 *     GitHub workflow command, run wherever it stands in a log line; see
 *     mg_escape_json_log): JSON text memgate writes may be shown in a log;
 *   - a number is printed as cJSON_Print prints it (mg_jw_number), or
 *     exactly (mg_jw_exact); a non-finite one is null, and zero is 0
 *     whatever its sign (cJSON builds differ on -0);
 *   - the layout is cJSON_Print's (MG_JW_TABS), cJSON_PrintUnformatted's
 *     (MG_JW_LINE) or the tab layout with two spaces per level and ": "
 *     after a key (MG_JW_SPACES, the manifest), byte for byte; but for an
 *     array opened with mg_jw_array_lines, whose elements each stand on a
 *     line of their own, indented one level more than the array's key and
 *     written inside as MG_JW_LINE writes them, with "]" on the line after
 *     the last (a table of one row per candidate: the record).
 *
 * The writer keeps no allocation of its own (no free); it asserts that
 * calls nest (a key only in an object, a value only after a key there) and
 * that nesting stays below MG_JW_MAX_DEPTH.  The caller adds a final
 * newline when it wants one.
 */
#include <stdbool.h>
#include <stddef.h>

#include "memgate/buf.h"

enum mg_jw_style {
	MG_JW_LINE,    /* one line, no spaces: cJSON_PrintUnformatted */
	MG_JW_TABS,    /* a tab per level, "key":<tab>value: cJSON_Print */
	MG_JW_SPACES   /* two spaces per level, "key": value */
};

#define MG_JW_MAX_DEPTH 72   /* above MG_JSON_MAX_DEPTH, which reading allows */

typedef struct mg_jw {
	mg_buf *out;
	enum mg_jw_style style;
	int depth;                          /* containers open (plus the start) */
	bool key_written;                   /* a key waits for its value */
	int lines;                          /* the level of the open array of
					       lines (mg_jw_array_lines), or 0 */
	bool array[MG_JW_MAX_DEPTH];        /* the level is an array */
	bool any[MG_JW_MAX_DEPTH];          /* the level has a member or element */
} mg_jw;

/*
 * Start writing onto out.  `depth` is the level the first value stands at
 * (0 for a whole text; n to write an element of an array whose text another
 * writer continues with mg_jw_raw, at n containers deep).
 */
void mg_jw_init(mg_jw *w, mg_buf *out, enum mg_jw_style style, int depth);

void mg_jw_object(mg_jw *w);   /* open an object */
void mg_jw_array(mg_jw *w);    /* open an array */
/* Open an array of lines (above); not inside another one, nor in MG_JW_LINE. */
void mg_jw_array_lines(mg_jw *w);
void mg_jw_end(mg_jw *w);      /* close the innermost one */

/* A member's key (the next call writes its value). */
void mg_jw_key(mg_jw *w, const char *key);

/* A string; null for NULL. */
void mg_jw_string(mg_jw *w, const char *s);
/* A number as cJSON prints one: an integer in int's range as %d (-0 as
 * 0), else %1.15g, or %1.17g when that does not read back; null for NaN
 * and infinities. */
void mg_jw_number(mg_jw *w, double v);
/* A number exactly (mg_format_exact: the shortest of %.15g, %.16g, %.17g
 * that reads back, "-0" kept); null when not finite. */
void mg_jw_exact(mg_jw *w, double v);
/* A whole number in decimal digits. */
void mg_jw_uint(mg_jw *w, size_t n);
void mg_jw_bool(mg_jw *w, bool v);
void mg_jw_null(mg_jw *w);
/* len bytes of JSON text written as one value, unchanged (the caller's
 * text already obeys the rules above). */
void mg_jw_raw(mg_jw *w, const char *text, size_t len);

/* Whether values are written here as MG_JW_LINE writes them (", " or ","
 * between the elements of an array of numbers written with mg_jw_raw). */
bool mg_jw_flat(const mg_jw *w);

/* key, then the value: shorthands for the usual member. */
void mg_jw_key_string(mg_jw *w, const char *key, const char *s);
void mg_jw_key_number(mg_jw *w, const char *key, double v);
void mg_jw_key_exact(mg_jw *w, const char *key, double v);
void mg_jw_key_bool(mg_jw *w, const char *key, bool v);
void mg_jw_key_null(mg_jw *w, const char *key);
/* key, then open an object or an array. */
void mg_jw_key_object(mg_jw *w, const char *key);
void mg_jw_key_array(mg_jw *w, const char *key);

#endif
