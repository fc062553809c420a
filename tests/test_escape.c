/* Escaping untrusted text: include/memgate/escape.h. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/escape.h"

#define REPLACEMENT "\xef\xbf\xbd"   /* U+FFFD in UTF-8 */

/* Escape len bytes of s for a terminal and check the result. */
static void expect_text(const char *s, size_t len, const char *want)
{
	mg_buf out = MG_BUF_INIT;

	mg_escape_text(&out, s, len);
	cr_assert_str_eq(out.ptr, want);
	cr_assert_eq(out.len, strlen(want));
	mg_buf_free(&out);
}

static void expect_utf8(const char *s, size_t len, const char *want)
{
	mg_buf out = MG_BUF_INIT;

	mg_escape_utf8(&out, s, len);
	cr_assert_str_eq(out.ptr, want);
	cr_assert_eq(out.len, strlen(want));
	mg_buf_free(&out);
}

#define TEXT(lit, want) expect_text(lit, sizeof(lit) - 1, want)
#define UTF8(lit, want) expect_utf8(lit, sizeof(lit) - 1, want)

/* The runner trims a line and runs it when it starts with "::"; a name may
 * start a line (the first column of a table). */
Test(escape, text_defuses_a_leading_workflow_command)
{
	TEXT("::error::x", "\\x3a:error::x");
	TEXT("  ::set-output name=a::b", "  \\x3a:set-output name=a::b");
	TEXT("\xc2\xa0\xe3\x80\x80::x", "\xc2\xa0\xe3\x80\x80\\x3a:x");  /* U+00A0, U+3000 */
	TEXT(":x::y", ":x::y");
	TEXT("::", "\\x3a:");
	TEXT(":", ":");
}

Test(escape, text_copies_printable_ascii_and_utf8)
{
	TEXT("checkpoint-v2 (bf16)", "checkpoint-v2 (bf16)");
	TEXT("r\xc3\xa9sum\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x9a\x80", "r\xc3\xa9sum\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x9a\x80");
	TEXT("a ::error::x", "a ::error::x");
	TEXT("", "");
}

/* At most max bytes, cut on a character's boundary, "..." when cut. */
static void expect_text_max(const char *s, size_t max, const char *want)
{
	mg_buf b = MG_BUF_INIT;

	mg_escape_text_max(&b, s, strlen(s), max);
	cr_expect_str_eq(b.ptr ? b.ptr : "", want, "max %zu", max);
	mg_buf_free(&b);
}

Test(escape, text_max_cuts_on_a_character_and_says_so)
{
	expect_text_max("abc", 3, "abc");
	expect_text_max("abcd", 3, "abc...");
	expect_text_max("a\xc3\xa9" "b", 2, "a...");      /* not half of U+00E9 */
	expect_text_max("a\xc3\xa9" "b", 3, "a\xc3\xa9...");
	expect_text_max("\n\nx", 2, "\\n\\n...");             /* escaped after the cut */
	expect_text_max("", 0, "");
}

Test(escape, text_defuses_legacy_github_commands)
{
	mg_buf out = MG_BUF_INIT;

	TEXT("x ##[error]boom", "x ##\\x5b" "error]boom");
	TEXT("#[a] ##a [b]", "#[a] ##a [b]");
	/* the "##" may already be in the buffer, written by the caller */
	mg_buf_puts(&out, "warning: ##");
	mg_escape_text(&out, "[set-env name=x]y", 17);
	cr_assert_str_eq(out.ptr, "warning: ##\\x5b" "set-env name=x]y");
	mg_buf_free(&out);
}

Test(escape, text_shows_newline_return_and_tab_as_escapes)
{
	TEXT("a\nb\r\tc", "a\\nb\\r\\tc");
}

Test(escape, text_shows_ansi_escape_sequence_as_hex)
{
	TEXT("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m");
}

Test(escape, text_shows_nul_inside_the_length)
{
	TEXT("a\0b", "a\\x00b");
}

Test(escape, text_shows_other_controls_del_and_c1_as_hex)
{
	TEXT("\x01\x07\x08\x0b\x0c\x1f", "\\x01\\x07\\x08\\x0b\\x0c\\x1f");
	TEXT("\x7f", "\\x7f");
	/* U+0085 (NEL) and U+009B (CSI) encoded as UTF-8 */
	TEXT("a\xc2\x85" "b\xc2\x9b" "31m", "a\\x85b\\x9b31m");
}

Test(escape, text_doubles_backslash)
{
	TEXT("C:\\x1b", "C:\\\\x1b");
}

Test(escape, text_shows_bidi_and_line_separators_as_code_points)
{
	TEXT("a\xe2\x80\xae" "b", "a\\u202eb");           /* RIGHT-TO-LEFT OVERRIDE */
	TEXT("\xe2\x80\xa8\xe2\x80\xa9", "\\u2028\\u2029");
	TEXT("\xe2\x81\xa6x\xe2\x81\xa9", "\\u2066x\\u2069");
	TEXT("\xd8\x9c\xe2\x80\x8e\xe2\x80\x8f", "\\u061c\\u200e\\u200f");
}

Test(escape, text_shows_each_byte_of_invalid_utf8)
{
	TEXT("bad\xff", "bad\\xff");
	TEXT("\xe2\x9c" "x", "\\xe2\\x9cx");               /* truncated */
	TEXT("\xc0\xaf", "\\xc0\\xaf");                    /* overlong '/' */
	TEXT("\xed\xa0\x80", "\\xed\\xa0\\x80");           /* surrogate */
	TEXT("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");  /* above U+10FFFF */
	TEXT("\x80", "\\x80");                             /* lone continuation */
	TEXT("\xf0\x9f\x9a", "\\xf0\\x9f\\x9a");           /* cut at the end */
}

/* Every byte value, alone and after a lead byte: no control character and
 * no invalid UTF-8 ever comes out. */
Test(escape, text_output_never_holds_a_control_character)
{
	mg_buf out = MG_BUF_INIT, check = MG_BUF_INIT;
	char in[2];
	int b, lead;
	size_t i;

	for (lead = 0; lead < 256; lead += 0x31) {
		for (b = 0; b < 256; b++) {
			in[0] = (char)lead;
			in[1] = (char)b;
			mg_escape_text(&out, in, 2);
		}
	}
	for (i = 0; i < out.len; i++) {
		unsigned char c = (unsigned char)out.ptr[i];

		cr_assert(c >= 0x20 && c != 0x7f, "control byte 0x%02x at %zu", c, i);
	}
	mg_escape_utf8(&check, out.ptr, out.len);
	cr_assert_str_eq(check.ptr, out.ptr, "escaped text is not valid UTF-8");
	mg_buf_free(&out);
	mg_buf_free(&check);
}

Test(escape, text_appends_to_what_the_buffer_holds)
{
	mg_buf out = MG_BUF_INIT;

	mg_buf_puts(&out, "name: ");
	mg_escape_text(&out, "a\nb", 3);
	cr_assert_str_eq(out.ptr, "name: a\\nb");
	mg_buf_free(&out);
}

Test(escape, utf8_keeps_valid_text_and_control_characters)
{
	UTF8("a\n\t\x1b[31m\x7f", "a\n\t\x1b[31m\x7f");
	UTF8("\xc2\x85\xe2\x80\xae\xf0\x9f\x9a\x80\xf4\x8f\xbf\xbf", "\xc2\x85\xe2\x80\xae\xf0\x9f\x9a\x80\xf4\x8f\xbf\xbf");
}

Test(escape, utf8_replaces_nul_with_replacement_character)
{
	UTF8("a\0b", "a" REPLACEMENT "b");
}

Test(escape, utf8_replaces_each_maximal_ill_formed_subpart)
{
	UTF8("bad\xff", "bad" REPLACEMENT);
	UTF8("\xff\xfe", REPLACEMENT REPLACEMENT);
	UTF8("\xe2\x9c" "x", REPLACEMENT "x");               /* one truncated sequence */
	UTF8("\xf0\x9f\x9a", REPLACEMENT);                   /* cut at the end */
	UTF8("\xed\xa0\x80", REPLACEMENT REPLACEMENT REPLACEMENT); /* surrogate: Unicode's example */
	UTF8("\xc0\xaf", REPLACEMENT REPLACEMENT);            /* overlong */
	UTF8("\xf4\x90\x80\x80", REPLACEMENT REPLACEMENT REPLACEMENT REPLACEMENT);
	UTF8("\xe0\x80\x80", REPLACEMENT REPLACEMENT REPLACEMENT);
	UTF8("\xe1\x80" "\xe2\x82\xac", REPLACEMENT "\xe2\x82\xac");
}

/* ---- Markdown table cells ---- */

static void expect_md(const char *s, size_t len, const char *want)
{
	mg_buf out = MG_BUF_INIT;

	mg_escape_markdown_cell(&out, s, len);
	cr_assert_str_eq(out.ptr, want);
	mg_buf_free(&out);
}

#define MD(lit, want) expect_md(lit, sizeof(lit) - 1, want)

Test(escape, markdown_copies_letters_digits_spaces_and_utf8)
{
	MD("checkpoint 2 r\xc3\xa9sum\xc3\xa9 \xf0\x9f\x9a\x80", "checkpoint 2 r\xc3\xa9sum\xc3\xa9 \xf0\x9f\x9a\x80");
	MD("", "");
}

Test(escape, markdown_backslash_escapes_table_and_inline_syntax)
{
	MD("a|b", "a\\|b");
	MD("a\\b", "a\\\\b");
	MD("\\|", "\\\\\\|");
	MD("`code` *em* _em_ ~~s~~", "\\`code\\` \\*em\\* \\_em\\_ \\~\\~s\\~\\~");
	MD("[x](http://e.com)", "\\[x\\]\\(http\\:\\/\\/e\\.com\\)");
	MD("@octocat #1 :smile: $x$ www.e.com", "\\@octocat \\#1 \\:smile\\: \\$x\\$ www\\.e\\.com");
}

Test(escape, markdown_writes_angle_brackets_and_ampersand_as_entities)
{
	MD("<script>alert(1)</script>", "&lt;script&gt;alert\\(1\\)&lt;\\/script&gt;");
	MD("&lt; &", "&amp;lt\\; &amp;");
}

Test(escape, markdown_turns_line_breaks_and_tabs_into_spaces)
{
	MD("a\nb\r\nc\td", "a b  c d");
}

Test(escape, markdown_shows_controls_bidi_and_invalid_bytes_as_escapes)
{
	MD("\x1b[31m", "\\\\x1b\\[31m");
	MD("a\0b\x7f", "a\\\\x00b\\\\x7f");
	MD("a\xe2\x80\xae" "b", "a\\\\u202eb");
	MD("bad\xff\xe2\x9c", "bad\\\\xff\\\\xe2\\\\x9c");
}

/* Whatever the input, a cell holds no '<', no line break, no control
 * character and no '|' that is not escaped, and stays valid UTF-8. */
Test(escape, markdown_output_never_breaks_a_cell)
{
	mg_buf out = MG_BUF_INIT, check = MG_BUF_INIT;
	char in[2];
	int b, lead;
	size_t i;

	for (lead = 0; lead < 256; lead += 0x17) {
		for (b = 0; b < 256; b++) {
			in[0] = (char)lead;
			in[1] = (char)b;
			mg_escape_markdown_cell(&out, in, 2);
		}
	}
	for (i = 0; i < out.len; i++) {
		unsigned char c = (unsigned char)out.ptr[i];

		cr_assert(c >= 0x20 && c != 0x7f && c != '<' && c != '>', "byte 0x%02x at %zu", c, i);
		if (c == '|') {
			size_t k = i;

			while (k > 0 && out.ptr[k - 1] == '\\')
				k--;
			cr_assert((i - k) % 2 == 1, "unescaped '|' at %zu", i);
		}
	}
	mg_escape_utf8(&check, out.ptr, out.len);
	cr_assert_str_eq(check.ptr, out.ptr, "escaped text is not valid UTF-8");
	mg_buf_free(&out);
	mg_buf_free(&check);
}

/* ---- XML ---- */

static void expect_xml(const char *s, size_t len, const char *want)
{
	mg_buf out = MG_BUF_INIT;

	mg_escape_xml(&out, s, len);
	cr_assert_str_eq(out.ptr, want);
	mg_buf_free(&out);
}

#define XML(lit, want) expect_xml(lit, sizeof(lit) - 1, want)

Test(escape, xml_escapes_the_five_special_characters)
{
	XML("a&b<c>d\"e'f", "a&amp;b&lt;c&gt;d&quot;e&apos;f");
	XML("<script>", "&lt;script&gt;");
	XML("checkpoint r\xc3\xa9sum\xc3\xa9 \xf0\x9f\x9a\x80", "checkpoint r\xc3\xa9sum\xc3\xa9 \xf0\x9f\x9a\x80");
}

Test(escape, xml_keeps_tab_newline_and_return_as_character_references)
{
	XML("a\tb\nc\rd", "a&#9;b&#10;c&#13;d");
}

Test(escape, xml_replaces_what_xml_cannot_carry)
{
	XML("a\0b", "a" REPLACEMENT "b");
	XML("\x01\x08\x0b\x0c\x1b\x1f", REPLACEMENT REPLACEMENT REPLACEMENT REPLACEMENT REPLACEMENT REPLACEMENT);
	XML("\x7f\xc2\x85\xc2\x9b", REPLACEMENT REPLACEMENT REPLACEMENT);
	XML("\xef\xbf\xbe\xef\xbf\xbf", REPLACEMENT REPLACEMENT);        /* U+FFFE, U+FFFF */
	XML("\xef\xbf\xbd", REPLACEMENT);                                  /* U+FFFD itself */
	XML("bad\xff", "bad" REPLACEMENT);
	XML("\xed\xa0\x80", REPLACEMENT REPLACEMENT REPLACEMENT);          /* surrogate */
	XML("\xf0\x9f\x9a", REPLACEMENT);                                  /* cut at the end */
}

/* Every byte pair: no raw control character (other than none at all: tab,
 * LF and CR become references), no raw < > " ' and valid UTF-8. */
Test(escape, xml_output_never_holds_a_forbidden_character)
{
	mg_buf out = MG_BUF_INIT, check = MG_BUF_INIT;
	char in[2];
	int b, lead;
	size_t i;

	for (lead = 0; lead < 256; lead += 0x17) {
		for (b = 0; b < 256; b++) {
			in[0] = (char)lead;
			in[1] = (char)b;
			mg_escape_xml(&out, in, 2);
		}
	}
	for (i = 0; i < out.len; i++) {
		unsigned char c = (unsigned char)out.ptr[i];

		cr_assert(c >= 0x20 && c != 0x7f && !strchr("<>\"'", c), "byte 0x%02x at %zu", c, i);
		cr_assert(!(c == 0xc2 && (unsigned char)out.ptr[i + 1] < 0xa0), "C1 control at %zu", i);
		if (c == '&')
			cr_assert(strncmp(out.ptr + i, "&amp;", 5) == 0 || strncmp(out.ptr + i, "&lt;", 4) == 0 ||
				  strncmp(out.ptr + i, "&gt;", 4) == 0 || strncmp(out.ptr + i, "&quot;", 6) == 0 ||
				  strncmp(out.ptr + i, "&apos;", 6) == 0 || strncmp(out.ptr + i, "&#9;", 4) == 0 ||
				  strncmp(out.ptr + i, "&#10;", 5) == 0 || strncmp(out.ptr + i, "&#13;", 5) == 0,
				  "bare '&' at %zu", i);
	}
	mg_escape_utf8(&check, out.ptr, out.len);
	cr_assert_str_eq(check.ptr, out.ptr, "escaped text is not valid UTF-8");
	mg_buf_free(&out);
	mg_buf_free(&check);
}

/* ---- GitHub workflow commands ---- */

static void expect_gh(bool property, const char *s, size_t len, const char *want)
{
	mg_buf out = MG_BUF_INIT;

	if (property)
		mg_escape_gh_property(&out, s, len);
	else
		mg_escape_gh_data(&out, s, len);
	cr_assert_str_eq(out.ptr, want);
	mg_buf_free(&out);
}

#define GH_DATA(lit, want) expect_gh(false, lit, sizeof(lit) - 1, want)
#define GH_PROP(lit, want) expect_gh(true, lit, sizeof(lit) - 1, want)

/* The runner's decoding (ActionCommand.cs): each mapping replaced in turn,
 * %25 last. */
static char *runner_unescape(const char *s, bool property)
{
	static const char *const data[][2] = { { "%0D", "\r" }, { "%0A", "\n" }, { "%25", "%" } };
	static const char *const prop[][2] = { { "%0D", "\r" }, { "%0A", "\n" }, { "%3A", ":" },
					       { "%2C", "," }, { "%25", "%" } };
	const char *const (*map)[2] = property ? prop : data;
	size_t n = property ? 5 : 3, k;
	char *text = mg_xstrdup(s);

	for (k = 0; k < n; k++) {
		mg_buf b = MG_BUF_INIT;
		const char *p = text, *hit;

		while ((hit = strstr(p, map[k][0]))) {
			mg_buf_put(&b, p, (size_t)(hit - p));
			mg_buf_puts(&b, map[k][1]);
			p = hit + 3;
		}
		mg_buf_puts(&b, p);
		free(text);
		text = mg_buf_detach(&b, NULL);
	}
	return text;
}

Test(escape, gh_data_encodes_percent_and_line_breaks_only)
{
	GH_DATA("100% done\r\nnext", "100%25 done%0D%0Anext");
	GH_DATA("a:b,c ::error::x ##[error]y", "a:b,c ::error::x ##[error]y");
	GH_DATA("%0A stays %0A", "%250A stays %250A");
	GH_DATA("\x1b[31m r\xc3\xa9sum\xc3\xa9", "\x1b[31m r\xc3\xa9sum\xc3\xa9");
}

Test(escape, gh_property_also_encodes_colon_and_comma)
{
	GH_PROP("src/a,b.c", "src/a%2Cb.c");
	GH_PROP("Policy: forbidden", "Policy%3A forbidden");
	GH_PROP("a::b\n%,", "a%3A%3Ab%0A%25%2C");
	GH_PROP("k=v;w", "k=v;w");
}

Test(escape, gh_replaces_nul_and_invalid_utf8)
{
	GH_DATA("a\0b\xff", "a" REPLACEMENT "b" REPLACEMENT);
	GH_PROP("\xe2\x9c:", REPLACEMENT "%3A");
}

/* What the runner decodes is exactly what went in, for any valid UTF-8
 * without NUL, however many '%' sequences it holds. */
Test(escape, gh_round_trips_through_the_runner_decoding)
{
	static const char *const inputs[] = {
		"plain", "100%", "%25", "%3A%2C%0D%0A", "%%0A0A", "a\r\nb\rc\n", "k1=;=%252C=%250D",
		"::error::x", "a,b:c", "\xe2\x80\xae\x1b[0m", "%", "%0", "%2",
	};
	size_t i;
	int property;

	for (i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		for (property = 0; property < 2; property++) {
			mg_buf out = MG_BUF_INIT;
			char *back;

			if (property)
				mg_escape_gh_property(&out, inputs[i], strlen(inputs[i]));
			else
				mg_escape_gh_data(&out, inputs[i], strlen(inputs[i]));
			cr_assert_null(strpbrk(out.ptr, "\r\n"), "line break in '%s'", out.ptr);
			if (property)
				cr_assert_null(strstr(out.ptr, "::"), "'::' in a property: '%s'", out.ptr);
			back = runner_unescape(out.ptr, property);
			cr_assert_str_eq(back, inputs[i], "'%s' came back as '%s'", inputs[i], back);
			free(back);
			mg_buf_free(&out);
		}
	}
}

/* JSON text for a log: the '[' of every "##[" becomes \u005b, the rest
 * is copied; the one rule the record, manifest, SARIF and list share. */
Test(escape, json_log_escapes_every_legacy_command)
{
	mg_buf b = MG_BUF_INIT;

	mg_escape_json_log(&b, "{\"a\": \"##[error]x ##[ ##\", \"b\": \"#[#[\"}");
	cr_assert_str_eq(b.ptr, "{\"a\": \"##\\u005berror]x ##\\u005b ##\", \"b\": \"#[#[\"}");
	mg_buf_free(&b);
	mg_escape_json_log(&b, "");
	cr_assert_str_eq(b.ptr, "");
	mg_buf_free(&b);

	cr_assert(mg_escape_is_command("a##[", 3));
	cr_assert_not(mg_escape_is_command("##[", 1));
	cr_assert_not(mg_escape_is_command("#[", 1));
	cr_assert_not(mg_escape_is_command("x#[", 2));
}
