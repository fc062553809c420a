/* buf: the growable, always NUL-terminated byte buffer. */
#include <criterion/criterion.h>
#include <string.h>
#include "memgate/buf.h"

Test(buf, starts_empty_and_terminated)
{
	mg_buf b = MG_BUF_INIT;

	cr_expect_not_null(b.ptr);
	cr_expect_str_eq(b.ptr, "");
	cr_expect_eq(b.len, 0);
	mg_buf_free(&b);
	cr_expect_str_eq(b.ptr, "", "a freed buffer is empty again");
}

Test(buf, appends_bytes_strings_chars_and_formats)
{
	mg_buf b = MG_BUF_INIT;

	mg_buf_put(&b, "ab\0c", 4);
	mg_buf_puts(&b, "de");
	mg_buf_putc(&b, 'f');
	mg_buf_printf(&b, "-%d-%s", 42, "x");
	cr_expect_eq(b.len, 12);
	cr_expect_eq(memcmp(b.ptr, "ab\0cdef-42-x", 12), 0);
	cr_expect_eq(b.ptr[b.len], '\0');
	mg_buf_free(&b);
}

Test(buf, grows_past_many_reallocations)
{
	mg_buf b = MG_BUF_INIT;
	size_t i;

	for (i = 0; i < 100000; i++)
		mg_buf_putc(&b, (char)('a' + i % 26));
	cr_expect_eq(b.len, 100000);
	cr_expect_eq(b.ptr[99999], (char)('a' + 99999 % 26));
	cr_expect_eq(b.ptr[100000], '\0');
	mg_buf_free(&b);
}

Test(buf, formats_longer_than_any_first_guess)
{
	mg_buf b = MG_BUF_INIT;
	char big[5000];

	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	mg_buf_printf(&b, "<%s>", big);
	cr_expect_eq(b.len, sizeof(big) + 1);
	cr_expect_eq(b.ptr[0], '<');
	cr_expect_eq(b.ptr[b.len - 1], '>');
	mg_buf_free(&b);
}

Test(buf, detach_hands_over_the_bytes_and_resets)
{
	mg_buf b = MG_BUF_INIT;
	size_t len = 0;
	char *s;

	mg_buf_puts(&b, "kept");
	s = mg_buf_detach(&b, &len);
	cr_expect_str_eq(s, "kept");
	cr_expect_eq(len, 4);
	cr_expect_eq(b.len, 0);
	cr_expect_str_eq(b.ptr, "");
	free(s);
	s = mg_buf_detach(&b, NULL);
	cr_expect_str_eq(s, "", "an empty buffer detaches an empty string the caller frees");
	free(s);
}

Test(buf, copies_strings)
{
	char *a = mg_xstrdup("hello"), *b = mg_xstrndup("hello", 3);

	cr_expect_str_eq(a, "hello");
	cr_expect_str_eq(b, "hel");
	free(a);
	free(b);
}
