/* Escaping untrusted text: see include/memgate/escape.h. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "memgate/escape.h"

#define INVALID UINT32_MAX   /* code point of an ill-formed sequence */

/* Called by walk() for each character or ill-formed sequence: cp is the
 * code point (INVALID for an ill-formed sequence), bytes[0..n) its bytes. */
typedef void (*emit_fn)(mg_buf *out, uint32_t cp, const unsigned char *bytes,
			size_t n);

/* Continuation bytes that may follow lead byte b0 first: the well-formed
 * ranges of Unicode's table 3-7.  Returns the number of continuation bytes
 * (0 for an ASCII byte, -1 for a byte that cannot start a sequence). */
static int lead(unsigned char b0, unsigned char *lo, unsigned char *hi)
{
	*lo = 0x80;
	*hi = 0xbf;
	if (b0 < 0x80)
		return 0;
	if (b0 >= 0xc2 && b0 <= 0xdf)
		return 1;
	if (b0 >= 0xe0 && b0 <= 0xef) {
		if (b0 == 0xe0)
			*lo = 0xa0;
		else if (b0 == 0xed)
			*hi = 0x9f;
		return 2;
	}
	if (b0 >= 0xf0 && b0 <= 0xf4) {
		if (b0 == 0xf0)
			*lo = 0x90;
		else if (b0 == 0xf4)
			*hi = 0x8f;
		return 3;
	}
	return -1;
}

/* Decode the sequence at s[0..len), len >= 1.  Returns its length; *cp is the
 * code point, or INVALID for an ill-formed maximal subpart of that length. */
static size_t decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	unsigned char lo, hi;
	int need = lead(s[0], &lo, &hi);
	uint32_t v;
	size_t i;

	*cp = INVALID;
	if (need <= 0) {
		if (need == 0)
			*cp = s[0];
		return 1;
	}
	v = s[0] & (0x3f >> need);
	for (i = 1; i <= (size_t)need; i++) {
		if (i >= len || s[i] < lo || s[i] > hi)
			return i;
		v = (v << 6) | (s[i] & 0x3f);
		lo = 0x80;
		hi = 0xbf;
	}
	*cp = v;
	return i;
}

/* Hand every character and ill-formed sequence of s[0..len) to emit, but
 * each run of bytes that `plain` (when not NULL) says emit writes as they
 * are, whatever precedes them: those are put at once. */
static void walk(mg_buf *out, const char *s, size_t len, emit_fn emit,
		 int (*plain)(unsigned char))
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	size_t n;

	while (len) {
		for (n = 0; plain && n < len && plain(p[n]); n++)
			;
		if (n) {
			mg_buf_put(out, p, n);
		} else {
			n = decode(p, len, &cp);
			emit(out, cp, p, n);
		}
		p += n;
		len -= n;
	}
}

/* Text that could reorder or break a line on display. */
static int is_layout_control(uint32_t cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f ||
	       (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

static void emit_text(mg_buf *out, uint32_t cp, const unsigned char *bytes, size_t n)
{
	size_t i;

	if (cp == INVALID) {
		for (i = 0; i < n; i++)
			mg_buf_printf(out, "\\x%02x", bytes[i]);
	} else if (cp == '\n') {
		mg_buf_puts(out, "\\n");
	} else if (cp == '\r') {
		mg_buf_puts(out, "\\r");
	} else if (cp == '\t') {
		mg_buf_puts(out, "\\t");
	} else if (cp == '\\') {
		mg_buf_puts(out, "\\\\");
	} else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) {
		mg_buf_printf(out, "\\x%02x", (unsigned)cp);
	} else if (is_layout_control(cp)) {
		mg_buf_printf(out, "\\u%04x", (unsigned)cp);
	} else if (cp == '[' && out->len >= 2 && out->ptr[out->len - 1] == '#' &&
		   out->ptr[out->len - 2] == '#') {
		/* The GitHub runner runs a legacy "##[command]" found anywhere
		 * in a log line, stdout or stderr (memgate(1), SECURITY, "Escaping for CI"). */
		mg_buf_puts(out, "\\x5b");
	} else {
		mg_buf_put(out, bytes, n);
	}
}

/* Does the runner's TrimStart() drop cp (.NET's char.IsWhiteSpace)?  The
 * controls among them are escaped anyway; these are kept as they are. */
static int is_trimmed_space(uint32_t cp)
{
	return cp == ' ' || cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) ||
	       cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

void mg_escape_json_log(mg_buf *out, const char *json)
{
	const char *hit;

	while ((hit = strstr(json, "##["))) {
		mg_buf_put(out, json, (size_t)(hit - json) + 2);
		mg_buf_puts(out, "\\u005b");
		json = hit + 3;
	}
	mg_buf_puts(out, json);
}

/* Bytes emit_text writes as they are, whatever precedes them: printable
 * ASCII but the backslash and '[' (which "##" before it escapes). */
static int is_plain_text(unsigned char b)
{
	return b >= 0x20 && b < 0x7f && b != '\\' && b != '[';
}

void mg_escape_text(mg_buf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t lead = 0, n;
	uint32_t cp;

	/* A log line that starts with "::" once the runner trims it is a
	 * workflow command, and the text may start a line (a table's first
	 * column): its leading ':' is written \x3a. */
	while (lead < len && (n = decode(p + lead, len - lead, &cp)) && is_trimmed_space(cp))
		lead += n;
	if (len - lead >= 2 && p[lead] == ':' && p[lead + 1] == ':') {
		walk(out, s, lead, emit_text, is_plain_text);
		mg_buf_puts(out, "\\x3a");
		lead++;
	} else {
		lead = 0;
	}
	walk(out, s + lead, len - lead, emit_text, is_plain_text);
}

static void emit_utf8(mg_buf *out, uint32_t cp, const unsigned char *bytes, size_t n)
{
	if (cp == INVALID || cp == 0)
		mg_buf_puts(out, "\xef\xbf\xbd");
	else
		mg_buf_put(out, bytes, n);
}

void mg_escape_utf8(mg_buf *out, const char *s, size_t len)
{
	walk(out, s, len, emit_utf8, NULL);
}

#define REPLACEMENT "\xef\xbf\xbd"   /* U+FFFD in UTF-8 */

static int is_c0_del_or_c1(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

/* The characters CommonMark lets a backslash escape. */
static int is_ascii_punct(uint32_t cp)
{
	return (cp >= 0x21 && cp <= 0x2f) || (cp >= 0x3a && cp <= 0x40) ||
	       (cp >= 0x5b && cp <= 0x60) || (cp >= 0x7b && cp <= 0x7e);
}

static void emit_markdown(mg_buf *out, uint32_t cp, const unsigned char *bytes, size_t n)
{
	size_t i;

	if (cp == INVALID) {
		for (i = 0; i < n; i++)
			mg_buf_printf(out, "\\\\x%02x", bytes[i]);
	} else if (cp == '<') {
		mg_buf_puts(out, "&lt;");
	} else if (cp == '>') {
		mg_buf_puts(out, "&gt;");
	} else if (cp == '&') {
		mg_buf_puts(out, "&amp;");
	} else if (cp == '\n' || cp == '\r' || cp == '\t') {
		mg_buf_putc(out, ' ');
	} else if (is_c0_del_or_c1(cp)) {
		mg_buf_printf(out, "\\\\x%02x", (unsigned)cp);
	} else if (is_layout_control(cp)) {
		mg_buf_printf(out, "\\\\u%04x", (unsigned)cp);
	} else {
		if (is_ascii_punct(cp))
			mg_buf_putc(out, '\\');
		mg_buf_put(out, bytes, n);
	}
}

void mg_escape_markdown_cell(mg_buf *out, const char *s, size_t len)
{
	walk(out, s, len, emit_markdown, NULL);
}

/* XML's five predefined entities, or NULL. */
static const char *xml_entity(uint32_t cp)
{
	switch (cp) {
	case '&': return "&amp;";
	case '<': return "&lt;";
	case '>': return "&gt;";
	case '"': return "&quot;";
	case '\'': return "&apos;";
	default: return NULL;
	}
}

static void emit_xml(mg_buf *out, uint32_t cp, const unsigned char *bytes, size_t n)
{
	const char *entity = xml_entity(cp);

	if (entity)
		mg_buf_puts(out, entity);
	else if (cp == '\t' || cp == '\n' || cp == '\r')
		mg_buf_printf(out, "&#%u;", (unsigned)cp);
	else if (cp == INVALID || is_c0_del_or_c1(cp) || cp == 0xfffe || cp == 0xffff)
		mg_buf_puts(out, REPLACEMENT);
	else
		mg_buf_put(out, bytes, n);
}

void mg_escape_xml(mg_buf *out, const char *s, size_t len)
{
	walk(out, s, len, emit_xml, NULL);
}

/* The workflow-command encodings of @actions/core (command.ts); `property`
 * adds the two characters that end a property. */
static void emit_gh(mg_buf *out, uint32_t cp, const unsigned char *bytes, size_t n,
		    int property)
{
	if (cp == INVALID || cp == 0)
		mg_buf_puts(out, REPLACEMENT);
	else if (cp == '%')
		mg_buf_puts(out, "%25");
	else if (cp == '\r')
		mg_buf_puts(out, "%0D");
	else if (cp == '\n')
		mg_buf_puts(out, "%0A");
	else if (property && cp == ':')
		mg_buf_puts(out, "%3A");
	else if (property && cp == ',')
		mg_buf_puts(out, "%2C");
	else
		mg_buf_put(out, bytes, n);
}

static void emit_gh_data(mg_buf *out, uint32_t cp, const unsigned char *bytes, size_t n)
{
	emit_gh(out, cp, bytes, n, 0);
}

static void emit_gh_property(mg_buf *out, uint32_t cp, const unsigned char *bytes, size_t n)
{
	emit_gh(out, cp, bytes, n, 1);
}

void mg_escape_gh_data(mg_buf *out, const char *s, size_t len)
{
	walk(out, s, len, emit_gh_data, NULL);
}

void mg_escape_gh_property(mg_buf *out, const char *s, size_t len)
{
	walk(out, s, len, emit_gh_property, NULL);
}

void mg_escape_mermaid_label(mg_buf *out, const char *s, size_t len, size_t max)
{
	static const char keep[] = " _.+-/()#";
	size_t i, n = len > max ? (max > 3 ? max - 3 : 0) : len;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || (c && strchr(keep, c));

		mg_buf_putc(out, ok ? (char)c : '_');
	}
	if (n < len)
		mg_buf_puts(out, "...");
}

void mg_escape_text_max(mg_buf *out, const char *s, size_t len, size_t max)
{
	size_t n = len;

	if (len > max) {
		n = max;
		while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	mg_escape_text(out, s, n);
	if (n < len)
		mg_buf_puts(out, "...");
}
