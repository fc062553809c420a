/* Errors and positions: see include/memgate/error.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "memgate/error.h"

void mg_error_clear(mg_error *err)
{
	if (!err)
		return;
	err->file[0] = '\0';
	err->line = 0;
	err->column = 0;
	err->message[0] = '\0';
}

static int error_vset(mg_error *err, const char *file, int line, int column,
		      const char *fmt, va_list ap)
{
	char *p;

	if (!err)
		return MG_ERROR;
	snprintf(err->file, sizeof(err->file), "%s", file ? file : "");
	err->line = line > 0 ? line : 0;
	err->column = column > 0 && line > 0 ? column : 0;
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	for (p = err->message; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return MG_ERROR;
}

int mg_error_set(mg_error *err, const char *file, int line, int column,
		 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_vset(err, file, line, column, fmt, ap);
	va_end(ap);
	return MG_ERROR;
}

int mg_error_at(mg_error *err, const char *file, mg_pos pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	error_vset(err, file, pos.line, pos.column, fmt, ap);
	va_end(ap);
	return MG_ERROR;
}

const char *mg_error_format(const mg_error *err, char *buf, size_t n)
{
	if (!n)
		return buf;
	if (!err->file[0])
		snprintf(buf, n, "%s", err->message);
	else if (err->line && err->column)
		snprintf(buf, n, "%s:%d:%d: %s", err->file, err->line, err->column, err->message);
	else if (err->line)
		snprintf(buf, n, "%s:%d: %s", err->file, err->line, err->message);
	else
		snprintf(buf, n, "%s: %s", err->file, err->message);
	return buf;
}

mg_pos mg_pos_of(const char *text, size_t len, size_t offset)
{
	mg_pos pos = { 1, 1 };
	size_t i;

	for (i = 0; i < offset && i < len; i++) {
		if (text[i] == '\n') {
			pos.line++;
			pos.column = 1;
		} else if ((text[i] & 0xC0) != 0x80) {
			pos.column++;
		}
	}
	return pos;
}
