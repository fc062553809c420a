#ifndef MEMGATE_TEXT_PUT_H
#define MEMGATE_TEXT_PUT_H
/*
 * What the files of the text rendering (text.c, text_sensitivity.c,
 * text_insight.c) share: untrusted text and candidate names written for a
 * terminal, and the sections text.c assembles.
 */
#include <string.h>
#include "memgate/buf.h"
#include "memgate/result.h"
#include "memgate/escape.h"
#include "format.h"

/* Beyond this a log gets a summary instead of every row: the whole list is
 * in the decision record (--format json). */
#define TEXT_MAX_ROWS 20         /* candidates listed one a row */

/* Append untrusted text escaped for a terminal. */
static inline void mg_text__put_safe(mg_buf *out, const char *s)
{
	mg_escape_text(out, s, strlen(s));
}

/* A winner or selection: "(none)" for NULL. */
static inline void mg_text__put_winner(mg_buf *out, const char *name)
{
	if (name)
		mg_format_name(out, name);
	else
		mg_buf_puts(out, "(none)");
}

/* The sensitivity section: the scenarios, or a summary of their winners
 * (text_sensitivity.c). */
void mg_text__put_sensitivity(mg_buf *out, const mg_check_result *r);

/* Tipping points, noise, the trade-off front and the exchange rate
 * (text_insight.c). */
void mg_text__put_insight(mg_buf *out, const mg_check_result *r);

#endif
