/* Dates and times: see date.h. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "memgate/error.h"
#include "date.h"

static const char *const month_name[12] = {
	"January", "February", "March", "April", "May", "June", "July", "August",
	"September", "October", "November", "December"
};

static bool leap_year(long y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int month_days(long y, long m)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return days[m - 1] + (m == 2 && leap_year(y));
}

/* The n digits at s as a number; false when one is not a digit. */
static bool digits(long *out, const char *s, size_t n)
{
	size_t i;

	*out = 0;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		*out = *out * 10 + (s[i] - '0');
	}
	return true;
}

/* Whether y-m-d is a day of the calendar; else `why` names the text. */
static bool real_day(long y, long m, long d, const char *text, size_t n, char why[MG_DATE_WHY])
{
	if (m >= 1 && m <= 12 && d >= 1 && d <= month_days(y, m))
		return true;
	if (m < 1 || m > 12)
		snprintf(why, MG_DATE_WHY, "no such day '%.*s' (a month is 01 to 12)",
			 (int)(n > 40 ? 40 : n), text);
	else
		snprintf(why, MG_DATE_WHY, "no such day '%.*s' (%s %ld has %d days)",
			 (int)(n > 40 ? 40 : n), text, month_name[m - 1], y, month_days(y, m));
	return false;
}

int mg_date_parse(int *ymd, const char *text, size_t n, char why[MG_DATE_WHY])
{
	long y, m, d;

	if (n != 10 || text[4] != '-' || text[7] != '-' || !digits(&y, text, 4) ||
	    !digits(&m, text + 5, 2) || !digits(&d, text + 8, 2) || y < 1) {
		snprintf(why, MG_DATE_WHY, "expected a date YYYY-MM-DD, got '%.*s'",
			 (int)(n > 40 ? 40 : n), text);
		return MG_ERROR;
	}
	if (!real_day(y, m, d, text, n, why))
		return MG_ERROR;
	*ymd = (int)(y * 10000 + m * 100 + d);
	return MG_OK;
}

/* Days from 1970-01-01 to y-m-d. */
static long long days_from_civil(long y, long m, long d)
{
	long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (long long)era * 146097 + doe - 719468;
}

long long mg_date_days(int ymd)
{
	return days_from_civil(ymd / 10000, ymd / 100 % 100, ymd % 100);
}

int mg_date_parse_time(long long *secs, const char *text, size_t n, char why[MG_DATE_WHY])
{
	size_t k = n;
	long y, mo, d, h = 0, mi = 0, s = 0;

	if (k > 1 && (text[k - 1] == 'Z' || text[k - 1] == 'z'))
		k--;
	else if (k > 3 && !strncasecmp(text + k - 3, "UTC", 3))
		k -= 3;
	if ((k != 8 && k != 12 && k != 14) || !digits(&y, text, 4) || !digits(&mo, text + 4, 2) ||
	    !digits(&d, text + 6, 2) || (k >= 12 && (!digits(&h, text + 8, 2) ||
						    !digits(&mi, text + 10, 2))) ||
	    (k == 14 && !digits(&s, text + 12, 2)) || y < 1970) {
		snprintf(why, MG_DATE_WHY, "expected a time YYYYMMDD[HHMM[SS]][Z] from 1970, "
			 "got '%.*s'", (int)(n > 40 ? 40 : n), text);
		return MG_ERROR;
	}
	if (!real_day(y, mo, d, text, n, why))
		return MG_ERROR;
	if (h > 23 || mi > 59 || s > 59) {
		snprintf(why, MG_DATE_WHY, "no such time '%.*s' (hours 00 to 23, minutes and "
			 "seconds 00 to 59)", (int)(n > 40 ? 40 : n), text);
		return MG_ERROR;
	}
	*secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
	return MG_OK;
}
