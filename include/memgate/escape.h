#ifndef MEMGATE_ESCAPE_H
#define MEMGATE_ESCAPE_H
/*
 * Making untrusted text safe for one destination.
 *
 * Candidate names, paths, report strings and error messages that quote them
 * are untrusted: they may hold NUL bytes, invalid UTF-8, control characters,
 * terminal escape sequences (ESC [ 3 1 m) or text that a CI log would run as
 * a command.  Each escaper here takes such bytes as a pointer and a length
 * and appends a safe form for one destination to an mg_buf.
 *
 * Invariants, for every escaper:
 *   - it never fails and never truncates: every input byte is accounted for
 *     in the output (copied, escaped or replaced);
 *   - UTF-8 is decoded one way for all of them (Unicode's "maximal subpart"
 *     practice: a lead byte and the continuation bytes that fit it, up to the
 *     first that does not, form one ill-formed sequence; overlong forms,
 *     surrogates and values above U+10FFFF are ill-formed);
 *   - the output is valid UTF-8 without NUL bytes.
 *
 * New destinations (Markdown, XML, GitHub workflow commands) are added here
 * as further mg_escape_<destination> functions.
 */
#include <stddef.h>

#include "buf.h"

/*
 * For a terminal or a log: printable text is copied, and
 *   \n \r \t                      become the two-character escapes \n \r \t,
 *   other C0 controls, DEL and C1 become \xNN (ESC is \x1b, U+0085 is \x85),
 *   each byte of invalid UTF-8    becomes \xNN,
 *   a backslash                   becomes \\ (so the escaping is unambiguous),
 *   bidirectional controls and the line/paragraph separators (U+061C,
 *   U+200E, U+200F, U+2028-U+202E, U+2066-U+2069) become \uNNNN.
 * The output holds no control character at all.
 */
void mg_escape_text(mg_buf *out, const char *s, size_t len);

/*
 * For JSON (through cJSON) and other UTF-8 consumers: valid UTF-8 is copied
 * unchanged, control characters included (the JSON printer escapes them);
 * each ill-formed sequence and each NUL byte becomes U+FFFD.
 */
void mg_escape_utf8(mg_buf *out, const char *s, size_t len);

#endif
