#ifndef MEMGATE_DATE_H
#define MEMGATE_DATE_H
/*
 * Dates and times of the proleptic Gregorian calendar, in UTC (date.c): the
 * one reader of every date memgate reads (a waiver's expires, --today, the
 * allowed signers' valid-after and valid-before) and its one set of
 * messages.  A day that does not exist (2026-02-30, 2025-02-29) is refused
 * with its month's length, a text of another form with the form expected.
 */
#include <stddef.h>

#define MG_DATE_WHY 160   /* size of a `why` buffer */

/*
 * Read the n bytes of text as a date YYYY-MM-DD (year 1 to 9999) into
 * *ymd, year * 10000 + month * 100 + day.  0, or MG_ERROR with `why`
 * ("expected a date YYYY-MM-DD, got '...'", "no such day '...' (...)").
 */
int mg_date_parse(int *ymd, const char *text, size_t n, char why[MG_DATE_WHY]);

/*
 * Read the n bytes of text as a time YYYYMMDD[HHMM[SS]], optionally ending
 * in Z or UTC (ssh-keygen's form; from 1970), as seconds since 1970-01-01
 * UTC.  0, or MG_ERROR with `why` as mg_date_parse's.
 */
int mg_date_parse_time(long long *secs, const char *text, size_t n, char why[MG_DATE_WHY]);

/* Days from 1970-01-01 to the date ymd (as mg_date_parse gives it):
 * differences count days. */
long long mg_date_days(int ymd);

#endif
