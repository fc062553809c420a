#ifndef MEMGATE_TEST_APPROVED_READ_H
#define MEMGATE_TEST_APPROVED_READ_H
/*
 * An approved record read back with mg_approved_read, for the tests that
 * read the records memgate writes (test_record.c) and the ones it is given
 * (test_approved.c).
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "memgate/approved.h"
#include "memgate/error.h"

struct approved {
	char *decision, *selected;
	int rc;
	mg_error err;
};

static inline struct approved read_approved(const char *path, const char *text, size_t len)
{
	struct approved a;

	mg_error_clear(&a.err);
	a.rc = mg_approved_read(&a.decision, &a.selected, path, text, len, &a.err);
	return a;
}

static inline void expect_approved(struct approved a, const char *decision, const char *selected)
{
	cr_assert_eq(a.rc, 0, "%s:%d:%d: %s", a.err.file, a.err.line, a.err.column, a.err.message);
	cr_assert_str_eq(a.decision, decision);
	if (selected)
		cr_assert_str_eq(a.selected, selected);
	else
		cr_assert_null(a.selected);
	free(a.decision);
	free(a.selected);
}

#endif
