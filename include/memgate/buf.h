#ifndef MEMGATE_BUF_H
#define MEMGATE_BUF_H
/*
 * A growable, always NUL-terminated byte buffer (git's strbuf).
 *
 * Invariants: `ptr` is never NULL after mg_buf_init (it points at a static
 * "" until the first append); ptr[len] == '\0'.  Allocation failure aborts:
 * memgate has no sensible way to go on without memory.
 */
#include <stdarg.h>
#include <stddef.h>

typedef struct mg_buf {
	char *ptr;
	size_t len;
	size_t cap;  /* 0 while ptr is the static empty string */
} mg_buf;

#define MG_BUF_INIT { mg_buf__empty, 0, 0 }
extern char mg_buf__empty[];

void mg_buf_init(mg_buf *b);
void mg_buf_free(mg_buf *b);
void mg_buf_grow(mg_buf *b, size_t extra);
void mg_buf_put(mg_buf *b, const void *data, size_t len);
void mg_buf_puts(mg_buf *b, const char *s);
void mg_buf_putc(mg_buf *b, char c);
void mg_buf_printf(mg_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mg_buf_vprintf(mg_buf *b, const char *fmt, va_list ap);

/*
 * Where streamed output goes (the decision record to stdout or a file):
 * called with each piece in order.  Returns 0, or -1 with errno set to stop
 * the writer, which then writes nothing more and reports MG_ERROR.
 */
typedef int (*mg_sink)(void *ctx, const char *data, size_t len);
/* Hand the bytes to the caller (who frees them) and reset b. */
char *mg_buf_detach(mg_buf *b, size_t *len);

/* malloc that aborts on failure; strdup/strndup likewise. */
void *mg_xmalloc(size_t n);
void *mg_xcalloc(size_t n, size_t size);
void *mg_xrealloc(void *p, size_t n);
char *mg_xstrdup(const char *s);
char *mg_xstrndup(const char *s, size_t n);

#endif
