#ifndef MEMGATE_TEST_HELPERS_H
#define MEMGATE_TEST_HELPERS_H
/*
 * Small helpers shared by the Criterion tests.  MG_SOURCE_DIR and
 * MG_BUILD_DIR are set by the Makefile.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"

/* Read a file under the source tree ("fixtures/reports/x.json"), or any
 * absolute path.  Aborts the test when it cannot.  The caller frees. */
static inline char *mg_test_read(const char *rel, size_t *len)
{
	char path[4096];
	FILE *f;
	mg_buf b = MG_BUF_INIT;
	char chunk[8192];
	size_t n;

	if (rel[0] == '/')
		snprintf(path, sizeof(path), "%s", rel);
	else
		snprintf(path, sizeof(path), "%s/%s", MG_SOURCE_DIR, rel);
	f = fopen(path, "rb");
	cr_assert_not_null(f, "cannot open %s", path);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		mg_buf_put(&b, chunk, n);
	fclose(f);
	return mg_buf_detach(&b, len);
}

#endif
