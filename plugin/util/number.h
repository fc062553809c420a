#ifndef MEMGATE_NUMBER_H
#define MEMGATE_NUMBER_H
/* Exact numbers for machines (number.c): what the JSON writer and the
 * renderers write when a value must read back as the same double. */
#include "memgate/buf.h"

/* A finite number as the decision record writes it: the shortest of
 * %.15g, %.16g and %.17g that reads back as the same double ("9450.76",
 * "331.97999999999956", "-0"), without snprintf for the usual magnitudes. */
void mg_format_exact(mg_buf *out, double v);
/* The same, always with snprintf and strtod (for tests). */
void mg_format__exact_slow(mg_buf *out, double v);

#endif
