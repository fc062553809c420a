/* A growable byte buffer: see include/memgate/buf.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"

char mg_buf__empty[1];

static void oom(void)
{
	fputs("memgate: out of memory\n", stderr);
	abort();
}

void *mg_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom();
	return p;
}

void *mg_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *mg_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		oom();
	return q;
}

char *mg_xstrndup(const char *s, size_t n)
{
	char *p = mg_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *mg_xstrdup(const char *s)
{
	return mg_xstrndup(s, strlen(s));
}

void mg_buf_init(mg_buf *b)
{
	b->ptr = mg_buf__empty;
	b->len = 0;
	b->cap = 0;
}

void mg_buf_free(mg_buf *b)
{
	if (b->cap)
		free(b->ptr);
	mg_buf_init(b);
}

void mg_buf_grow(mg_buf *b, size_t extra)
{
	size_t want;

	if (extra > (size_t)-1 / 2 - b->len)
		oom();
	want = b->len + extra + 1;
	if (want <= b->cap)
		return;
	if (want < 2 * b->cap)
		want = 2 * b->cap;
	if (want < 64)
		want = 64;
	if (!b->cap) {
		b->ptr = mg_xmalloc(want);
		b->ptr[0] = '\0';
	} else {
		b->ptr = mg_xrealloc(b->ptr, want);
	}
	b->cap = want;
}

void mg_buf_put(mg_buf *b, const void *data, size_t len)
{
	if (!len)
		return;
	mg_buf_grow(b, len);
	memcpy(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
}

void mg_buf_puts(mg_buf *b, const char *s)
{
	mg_buf_put(b, s, strlen(s));
}

void mg_buf_putc(mg_buf *b, char c)
{
	mg_buf_put(b, &c, 1);
}

/* Formats into the room the buffer has, and again after growing it only
 * when that was too small (a text report prints thousands of cells). */
void mg_buf_vprintf(mg_buf *b, const char *fmt, va_list ap)
{
	size_t room = b->cap ? b->cap - b->len : 0;
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(room ? b->ptr + b->len : NULL, room, fmt, cp);
	va_end(cp);
	if (room)
		b->ptr[b->len + (n > 0 && (size_t)n < room ? (size_t)n : 0)] = '\0';
	if (n <= 0)
		return;
	if ((size_t)n >= room) {
		mg_buf_grow(b, (size_t)n);
		vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	}
	b->len += (size_t)n;
}

void mg_buf_printf(mg_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	mg_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

char *mg_buf_detach(mg_buf *b, size_t *len)
{
	char *p;

	if (!b->cap)
		mg_buf_grow(b, 0);
	p = b->ptr;
	if (len)
		*len = b->len;
	mg_buf_init(b);
	return p;
}
