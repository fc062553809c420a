#ifndef MEMGATE_HINT_H
#define MEMGATE_HINT_H
/*
 * "Did you mean": the known word nearest a misspelt one (Levenshtein
 * distance, at most half the known word's length and at least 2), for
 * every message that names an unknown word: policy keys, reasons and
 * decisions, and the command line's commands and options.
 */
#include <stddef.h>
#include "memgate/buf.h"

/* The word of the NULL-terminated `words` nearest to `word` (n bytes, no
 * NUL needed), when near enough to be a typo; or NULL.  Borrowed from
 * `words`. */
const char *mg_hint_nearest(const char *const *words, const char *word, size_t n);

/* Append the NULL-terminated words, separated by ", ". */
void mg_hint_list(mg_buf *b, const char *const *words);

#endif
