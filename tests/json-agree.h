/*
 * The strict JSON reader (plugin/util/json_stream.c) against cJSON, the
 * project's reference: does the reader accept exactly the texts cJSON reads
 * (cJSON_ParseWithLengthOpts on the text and its NUL, requiring the
 * document to end there), apart from the strictness memgate(1) lists
 * (JSON)?  For tests/test_json_cjson.c and the fuzz targets.
 *
 * json_agree returns AGREE_SAME, the class of a documented difference
 * (checked at the byte the reader stopped at, not taken on its word), or
 * AGREE_DISAGREE.
 */
#ifndef MEMGATE_TESTS_JSON_AGREE_H
#define MEMGATE_TESTS_JSON_AGREE_H
#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

enum agree_class {
	AGREE_DISAGREE = -1,
	AGREE_SAME = 0,
	AGREE_DUPLICATE_KEY,     /* duplicate keys */
	AGREE_DEPTH,             /* nesting deeper than MG_JSON_MAX_DEPTH */
	AGREE_RANGE,             /* a number beyond a double */
	AGREE_NUMBER_GRAMMAR,    /* 01, 1., -.5, 1.e5: strtod reads them */
	AGREE_NUL,               /* a NUL byte */
	AGREE_ESCAPED_NUL,       /* \u0000, or \u without 4 hex digits */
	AGREE_UTF8,              /* invalid UTF-8 */
	AGREE_CONTROL,           /* a control character in a string, or as white space */
	AGREE_LONG_NUMBER,       /* > 63 characters, in a cJSON build that stops there */
	AGREE_CLASSES
};

static const char *const agree_class_names[AGREE_CLASSES] = {
	"same", "duplicate keys", "nesting depth", "number beyond a double",
	"number outside RFC 8259's grammar", "NUL byte", "\\u0000 or a bad \\u escape",
	"invalid UTF-8", "control character", "long number (cJSON build)",
};

static bool agree_cjson_reads(const char *text, size_t len)
{
	char *copy = malloc(len + 1);
	const char *end = NULL;
	cJSON *root;

	if (!copy)
		abort();
	memcpy(copy, text, len);
	copy[len] = '\0';
	root = cJSON_ParseWithLengthOpts(copy, len + 1, &end, 1);
	cJSON_Delete(root);
	free(copy);
	return root != NULL;
}

/* The characters cJSON takes into a number. */
static bool agree_numberish(char c)
{
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* The number text at text[off]: strtod's value, and whether it is one of
 * the shapes strtod reads but RFC 8259 refuses (a leading zero before a
 * digit, a '.' without a digit after it or before it). */
static bool agree_loose_number(const char *text, size_t len, size_t off, double *v)
{
	size_t end = off, p = off;
	char *copy, *stop;
	bool loose = false;

	while (end < len && agree_numberish(text[end]))
		end++;
	copy = strndup(text + off, end - off);
	if (!copy)
		abort();
	*v = strtod(copy, &stop);
	free(copy);
	p += p < end && text[p] == '-';
	if (p + 1 < end && text[p] == '0' && text[p + 1] >= '0' && text[p + 1] <= '9')
		loose = true;
	for (; p < end; p++)
		if (text[p] == '.' && (p + 1 >= end || text[p + 1] < '0' || text[p + 1] > '9' ||
				       p == off || text[p - 1] < '0' || text[p - 1] > '9'))
			loose = true;
	return loose;
}

/* Does any number of the text run longer than 63 characters? */
static bool agree_has_long_number(const char *text, size_t len)
{
	size_t p = 0, run = 0;

	for (; p < len; p++) {
		run = agree_numberish(text[p]) ? run + 1 : 0;
		if (run > 63)
			return true;
	}
	return false;
}

static enum agree_class json_agree(const char *text, size_t len)
{
	struct mg_json_fault f;
	bool ours = mg_json__check(&f, text, len) == MG_OK;
	bool theirs = agree_cjson_reads(text, len);
	unsigned char at;
	double v;

	if (ours == theirs)
		return AGREE_SAME;
	if (ours)   /* only a build of cJSON that stops a number after 63 characters */
		return agree_has_long_number(text, len) &&
		       !agree_cjson_reads("[1111111111111111111111111111111111111111111111111111111111111111111111]", 72) ?
		       AGREE_LONG_NUMBER : AGREE_DISAGREE;
	at = f.off < len ? (unsigned char)text[f.off] : 0;
	switch (f.kind) {
	case MG_JF_DUPLICATE:
		return at == '"' ? AGREE_DUPLICATE_KEY : AGREE_DISAGREE;
	case MG_JF_DEPTH:
		return at == '[' || at == '{' ? AGREE_DEPTH : AGREE_DISAGREE;
	case MG_JF_RANGE:
		agree_loose_number(text, len, f.off, &v);
		return isinf(v) ? AGREE_RANGE : AGREE_DISAGREE;
	case MG_JF_NUMBER:
		return agree_loose_number(text, len, f.off, &v) ? AGREE_NUMBER_GRAMMAR : AGREE_DISAGREE;
	case MG_JF_NUL:
		return f.off < len && at == 0 ? AGREE_NUL : AGREE_DISAGREE;
	case MG_JF_ESCAPED_NUL:
	case MG_JF_HEX:
		return at == '\\' && f.off + 1 < len && text[f.off + 1] == 'u' ? AGREE_ESCAPED_NUL :
		       AGREE_DISAGREE;
	case MG_JF_UTF8:
		return at >= 0x80 ? AGREE_UTF8 : AGREE_DISAGREE;
	case MG_JF_CONTROL:
	case MG_JF_CHAR:
	case MG_JF_TRAILING:
		return f.off < len && at < 0x20 ? AGREE_CONTROL : AGREE_DISAGREE;
	default:
		return AGREE_DISAGREE;
	}
}

#endif
