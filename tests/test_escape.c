/* Escaping untrusted text: include/memgate/escape.h. */
#include <criterion/criterion.h>
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

Test(escape, text_copies_printable_ascii_and_utf8)
{
	TEXT("checkpoint-v2 (bf16)", "checkpoint-v2 (bf16)");
	TEXT("r\xc3\xa9sum\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x9a\x80", "r\xc3\xa9sum\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x9a\x80");
	TEXT("::error::x", "::error::x");
	TEXT("", "");
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
