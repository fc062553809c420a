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

#include <stdbool.h>
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
 *   the '[' of "##[" (a legacy GitHub workflow command, run wherever it
 *   stands in a log line) becomes \x5b, also when the "##" was already in
 *   the buffer.
 *   a leading "::" (after spaces the GitHub runner trims, such as U+00A0 or
 *   U+3000) becomes \x3a: (a log line that starts with "::" is a workflow
 *   command, and the text may start a line).
 * The output holds no control character at all.
 */
void mg_escape_text(mg_buf *out, const char *s, size_t len);

/*
 * mg_escape_text of at most the first `max` bytes of s, cut on a
 * character's boundary, then "..." when s was longer: untrusted text of
 * any length quoted in a one-line message, which must stay whole.
 */
void mg_escape_text_max(mg_buf *out, const char *s, size_t len, size_t max);

/*
 * For JSON (through cJSON) and other UTF-8 consumers: valid UTF-8 is copied
 * unchanged, control characters included (the JSON printer escapes them);
 * each ill-formed sequence and each NUL byte becomes U+FFFD.
 */
void mg_escape_utf8(mg_buf *out, const char *s, size_t len);

/*
 * The one rule for JSON text that reaches a log (the record, the manifest,
 * SARIF, Code Quality, list): the GitHub runner runs a legacy "##[command]"
 * found anywhere in a log line, so the '[' of every "##[" is written
 * \u005b.  '#' only occurs inside strings in JSON text, so the escape
 * always lands in a string, and the JSON means the same.
 *
 * mg_escape_is_command tells a writer that escapes a string byte by byte
 * (plugin/util/json_write.c, which writes all of memgate's JSON) whether s[i] is
 * such a '['; mg_escape_json_log appends NUL-terminated JSON text printed
 * by another writer to out so escaped.
 */
void mg_escape_json_log(mg_buf *out, const char *json);

static inline bool mg_escape_is_command(const char *s, size_t i)
{
	return s[i] == '[' && i >= 2 && s[i - 1] == '#' && s[i - 2] == '#';
}

/*
 * For a cell of a GitHub-flavoured Markdown table (and any inline Markdown):
 *   every ASCII punctuation character but < > & is backslash-escaped
 *   (CommonMark shows "\" + punctuation as the character itself), so input
 *   cannot end a cell (|), nor start emphasis, code, a link, an autolink,
 *   an @mention, an :emoji: or $math$;
 *   < > & become &lt; &gt; &amp;, so input never writes HTML;
 *   \n \r \t become a space, so input never ends a row;
 *   other C0 controls, DEL, C1 and each byte of invalid UTF-8 become
 *   \\xNN, the layout controls of mg_escape_text \\uNNNN (shown as
 *   \xNN and \uNNNN once rendered).
 * Line breaks in a cell (<br>) are the caller's to write, never the input's.
 */
void mg_escape_markdown_cell(mg_buf *out, const char *s, size_t len);

/*
 * For XML 1.0 character data and attribute values (JUnit reports):
 *   & < > " ' become &amp; &lt; &gt; &quot; &apos;,
 *   \t \n \r become &#9; &#10; &#13; (kept as they are, even in an
 *   attribute, where a parser would turn them into spaces),
 *   what XML 1.0 cannot carry, raw or as &#N; (NUL and the other C0
 *   controls, U+FFFE, U+FFFF, ill-formed sequences), and what it
 *   discourages (DEL, C1), become U+FFFD, one per character or sequence.
 */
void mg_escape_xml(mg_buf *out, const char *s, size_t len);

/*
 * For the DATA (message) of a GitHub workflow command ::NAME ...::DATA, as
 * @actions/core escapeData: % \r \n become %25 %0D %0A, everything else is
 * copied, so that the runner decodes the exact text and a command stays on
 * one line (memgate(1), SECURITY, "Escaping for CI").  NUL and each
 * ill-formed sequence become U+FFFD.
 */
void mg_escape_gh_data(mg_buf *out, const char *s, size_t len);

/*
 * For a property value of a workflow command (file=, title=), as
 * @actions/core escapeProperty: mg_escape_gh_data, and : , become %3A %2C
 * (so that a value cannot end the properties with "::" or start another
 * property with ",").
 */
void mg_escape_gh_property(mg_buf *out, const char *s, size_t len);

/* A label for a Mermaid chart, to be written inside double quotes: letters,
 * digits, space and "_.+-/()#" are kept, every other byte (quotes, '%', '`',
 * brackets, ':', ',', ';', line breaks, non-ASCII) becomes '_', and at most
 * `max` bytes are kept ("..." marks a cut).  So a hostile name cannot start
 * a directive (%%{init}%%), leave the string, close the code block or break
 * the chart's syntax. */
void mg_escape_mermaid_label(mg_buf *out, const char *s, size_t len, size_t max);

#endif
