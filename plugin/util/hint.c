/*
 * "Did you mean" (see hint.h): the known word nearest a misspelt one, for
 * the policy's unknown keys, waivers' reasons and gate.fail_on's decisions,
 * and the command line's commands and options.
 */
#include <stdint.h>
#include <string.h>

#include "hint.h"

/* Levenshtein distance between a[0..alen) and b (strlen(b) < 64). */
static size_t edit_distance(const char *a, size_t alen, const char *b)
{
	size_t row[64], blen = strlen(b), i, j, diag, up, best;

	for (j = 0; j <= blen; j++)
		row[j] = j;
	for (i = 1; i <= alen; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= blen; j++) {
			up = row[j];
			best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[blen];
}

const char *mg_hint_nearest(const char *const *words, const char *word, size_t n)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX, d, limit;
	int i;

	if (n > 48)
		return NULL;
	for (i = 0; words[i]; i++) {
		d = edit_distance(word, n, words[i]);
		limit = strlen(words[i]) / 2 > 2 ? strlen(words[i]) / 2 : 2;
		if (d < best_d && d <= limit && d < n) {
			best = words[i];
			best_d = d;
		}
	}
	return best;
}

void mg_hint_list(mg_buf *b, const char *const *words)
{
	int i;

	for (i = 0; words[i]; i++)
		mg_buf_printf(b, "%s%s", i ? ", " : "", words[i]);
}
