/* Numbers and names for people: see include/memgate/format.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/escape.h"
#include "memgate/format.h"

#define SHORT_DIGITS 10   /* above this, try 6 significant digits */

/* Significant digits in a %g rendering, from the first non-zero digit to
 * the last ("0.8765" has 4, "11200" has 3). */
static int sig_digits(const char *s)
{
	int n = 0, last = 0;

	for (; *s && *s != 'e'; s++) {
		if (*s >= '1' && *s <= '9')
			last = ++n;
		else if (*s == '0' && n)
			n++;
	}
	return last;
}

static int compare(double a, double b)
{
	return (a > b) - (a < b);
}

void mg_format_value(mg_buf *out, double v, const double *limit)
{
	char full[40], brief[40];

	v = v == 0 ? 0 : v;
	snprintf(full, sizeof(full), "%.15g", v);
	snprintf(brief, sizeof(brief), "%.6g", v);
	if (sig_digits(full) > SHORT_DIGITS &&
	    (!limit || compare(strtod(brief, NULL), *limit) == compare(v, *limit)))
		mg_buf_puts(out, brief);
	else
		mg_buf_puts(out, full);
}

void mg_format_threshold(mg_buf *out, double v)
{
	mg_buf_printf(out, "%.15g", v == 0 ? 0 : v);
}

void mg_format_name(mg_buf *out, const char *name)
{
	if (!name)
		mg_buf_puts(out, "(no name)");
	else if (!name[0])
		mg_buf_puts(out, "(empty name)");
	else
		mg_escape_text(out, name, strlen(name));
}
