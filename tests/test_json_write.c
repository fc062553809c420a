/* The one JSON writer (plugin/util/json_write.c): byte for byte what cJSON_Print
 * and cJSON_PrintUnformatted print, with every string valid UTF-8 and "##["
 * escaped, in each layout. */
#include <cjson/cJSON.h>
#include <float.h>
#include <limits.h>
#include <math.h>

#include "helpers.h"
#include "json.h"
#include "json_write.h"
#include "memgate/escape.h"

/* What the cJSON printers give for the tree, "##[" escaped as the writer
 * escapes it. */
static char *cjson_text(const cJSON *v, bool pretty)
{
	mg_buf out = MG_BUF_INIT;
	char *text = pretty ? cJSON_Print(v) : cJSON_PrintUnformatted(v);

	cr_assert_not_null(text);
	mg_escape_json_log(&out, text);
	cJSON_free(text);
	return mg_buf_detach(&out, NULL);
}

/* A cJSON tree written through the writer, value by value. */
static void write_tree(mg_jw *w, const cJSON *v)
{
	const cJSON *c;

	if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
		if (cJSON_IsObject(v))
			mg_jw_object(w);
		else
			mg_jw_array(w);
		cJSON_ArrayForEach(c, v) {
			if (cJSON_IsObject(v))
				mg_jw_key(w, c->string);
			write_tree(w, c);
		}
		mg_jw_end(w);
	} else if (cJSON_IsString(v)) {
		mg_jw_string(w, v->valuestring);
	} else if (cJSON_IsNumber(v)) {
		mg_jw_number(w, v->valuedouble);
	} else if (cJSON_IsBool(v)) {
		mg_jw_bool(w, cJSON_IsTrue(v));
	} else if (cJSON_IsRaw(v)) {
		mg_jw_raw(w, v->valuestring, strlen(v->valuestring));
	} else {
		cr_assert(cJSON_IsNull(v));
		mg_jw_null(w);
	}
}

static char *writer_text(const cJSON *v, enum mg_jw_style style)
{
	mg_buf out = MG_BUF_INIT;
	mg_jw w;

	mg_jw_init(&w, &out, style, 0);
	write_tree(&w, v);
	return mg_buf_detach(&out, NULL);
}

/* The writer and cJSON agree on v in both layouts; deletes v. */
static void expect_same(cJSON *v)
{
	int pretty;

	cr_assert_not_null(v);
	for (pretty = 0; pretty < 2; pretty++) {
		char *want = cjson_text(v, pretty), *got;

		got = writer_text(v, pretty ? MG_JW_TABS : MG_JW_LINE);
		cr_expect_str_eq(got, want, "pretty=%d", pretty);
		free(want);
		free(got);
	}
	cJSON_Delete(v);
}

static char *number_text(double v)
{
	mg_buf out = MG_BUF_INIT;
	mg_jw w;

	mg_jw_init(&w, &out, MG_JW_LINE, 0);
	mg_jw_number(&w, v);
	return mg_buf_detach(&out, NULL);
}

Test(json_write, prints_numbers_as_cjson_does)
{
	static const double values[] = {
		0, 1, -1, 2, 10, 100, 1e6, 0.1, 0.2, 0.30000000000000004, 1.0 / 3, -2.0 / 3,
		1e300, -1e300, 1e-300, 5e-324, DBL_MAX, -DBL_MAX, DBL_MIN, 1e15, 1e16, 1e17,
		123456789012345678.0, 9007199254740993.0, INT_MAX, INT_MIN, (double)INT_MAX + 1,
		(double)INT_MIN - 1, 2147483647.5, -2147483648.5, 4294967296.0, 9450.76,
		331.97999999999956, 0.69999999999999996, 1e21, 1e-7, 123.456e-10, 3.5, -3.5,
		0.1 + 0.7, 100.0 / 3, 1 - 1e-16, 1e22, 2.5e-5,
	};
	size_t i;

	for (i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		cJSON *n = cJSON_CreateNumber(values[i]);
		char *want = cJSON_PrintUnformatted(n), *got = number_text(values[i]);

		cr_expect_str_eq(got, want, "value %d (%.17g)", (int)i, values[i]);
		cJSON_free(want);
		free(got);
		cJSON_Delete(n);
	}
}

Test(json_write, prints_non_finite_numbers_as_null)
{
	static const double values[] = { NAN, -NAN, INFINITY, -INFINITY };
	size_t i;

	for (i = 0; i < 4; i++) {
		char *got = number_text(values[i]);

		cr_expect_str_eq(got, "null");
		free(got);
	}
	expect_same(cJSON_CreateNumber(INFINITY));
}

Test(json_write, writes_exact_numbers_and_whole_numbers)
{
	mg_buf out = MG_BUF_INIT;
	mg_jw w;

	mg_jw_init(&w, &out, MG_JW_LINE, 0);
	mg_jw_array(&w);
	mg_jw_exact(&w, 0.1);
	mg_jw_exact(&w, -0.0);
	mg_jw_exact(&w, 331.97999999999956);
	mg_jw_exact(&w, NAN);
	mg_jw_exact(&w, -INFINITY);
	mg_jw_uint(&w, 0);
	mg_jw_uint(&w, (size_t)-1);
	mg_jw_end(&w);
	cr_expect_str_eq(out.ptr, "[0.1,0,331.97999999999956,null,null,0,18446744073709551615]");
	mg_buf_free(&out);
}

/* memgate's rule (memgate(1), JSON): zero is written 0 whatever its sign,
 * exactly or as cJSON prints (cJSON 1.7.15 printed "-0", 1.7.16 "0"), and
 * a -0 read is 0. */
Test(json_write, writes_negative_zero_as_0_in_every_cjson_build)
{
	mg_json_tape *t = NULL;
	mg_buf out = MG_BUF_INIT;
	mg_jw w;

	mg_jw_init(&w, &out, MG_JW_LINE, 0);
	mg_jw_array(&w);
	mg_jw_number(&w, -0.0);
	mg_jw_exact(&w, -0.0);
	cr_assert_eq(mg_json__stream(&t, NULL, "[-0, -0.0, -0e5]", 16, NULL, NULL, NULL, NULL, NULL,
				     NULL), 0);
	mg_json__write_tape(&w, t, 0);
	mg_jw_end(&w);
	cr_expect_str_eq(out.ptr, "[0,0,[0,0,0]]");
	mg_json__tape_free(t);
	mg_buf_free(&out);
}

/* Every byte below 0x80 in a string, quotes and backslashes included. */
Test(json_write, escapes_strings_as_cjson_does)
{
	char all[128];
	int i;

	for (i = 1; i < 128; i++)
		all[i - 1] = (char)i;
	all[127] = '\0';
	expect_same(cJSON_CreateString(all));
	expect_same(cJSON_CreateString(""));
	expect_same(cJSON_CreateString("\"quoted\" \\ back\\slash /"));
	expect_same(cJSON_CreateString("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80 \xe2\x80\xae"));
	expect_same(cJSON_CreateString("\x7f\xc2\x85\xc2\x9f"));
}

Test(json_write, escapes_legacy_workflow_commands)
{
	expect_same(cJSON_CreateString("##[error]x"));
	expect_same(cJSON_CreateString("###[x] ##[ #[ ##\\[ ##["));
	expect_same(cJSON_CreateString("a\n##[group]b"));
	{
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "##[warning]", "v");
		expect_same(o);
	}
	{
		cJSON *v = cJSON_CreateString("##[x");
		char *got = writer_text(v, MG_JW_LINE);

		cr_expect_str_eq(got, "\"##\\u005bx\"");
		free(got);
		cJSON_Delete(v);
	}
}

/* Ill-formed UTF-8 and NUL-free controls become what mg_escape_utf8 makes
 * of them, then cJSON's escapes. */
Test(json_write, makes_strings_valid_utf8)
{
	static const char *const bad[] = {
		"\xff", "a\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", "x\x80y",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mg_buf valid = MG_BUF_INIT;
		cJSON *raw = cJSON_CreateString(bad[i]);
		char *got = writer_text(raw, MG_JW_LINE), *want;
		cJSON *fixed;

		mg_escape_utf8(&valid, bad[i], strlen(bad[i]));
		fixed = cJSON_CreateString(valid.ptr);
		want = cJSON_PrintUnformatted(fixed);
		cr_expect_str_eq(got, want, "case %d", (int)i);
		cJSON_free(want);
		free(got);
		cJSON_Delete(raw);
		cJSON_Delete(fixed);
		mg_buf_free(&valid);
	}
}

Test(json_write, lays_out_containers_as_cjson_does)
{
	cJSON *root = cJSON_CreateObject(), *o, *a, *inner;

	expect_same(cJSON_CreateObject());
	expect_same(cJSON_CreateArray());
	cJSON_AddStringToObject(root, "name", "x");
	cJSON_AddObjectToObject(root, "empty_object");
	cJSON_AddArrayToObject(root, "empty_array");
	cJSON_AddNullToObject(root, "nothing");
	cJSON_AddTrueToObject(root, "yes");
	cJSON_AddFalseToObject(root, "no");
	cJSON_AddRawToObject(root, "raw", "1.50");
	a = cJSON_AddArrayToObject(root, "list");
	cJSON_AddItemToArray(a, cJSON_CreateNumber(1));
	cJSON_AddItemToArray(a, cJSON_CreateObject());
	cJSON_AddItemToArray(a, cJSON_CreateArray());
	inner = cJSON_CreateObject();
	cJSON_AddNumberToObject(inner, "k", 0.5);
	o = cJSON_AddObjectToObject(inner, "deeper");
	cJSON_AddItemToObject(o, "arr", cJSON_CreateStringArray((const char *[]){ "a", "b" }, 2));
	cJSON_AddObjectToObject(o, "e");
	cJSON_AddItemToArray(a, inner);
	cJSON_AddItemToArray(a, cJSON_CreateNull());
	o = cJSON_AddObjectToObject(root, "tail");
	cJSON_AddStringToObject(o, "tab\tkey", "tab\tvalue");
	expect_same(root);
}

/* Nesting well past the tab run the writer keeps (16 levels). */
Test(json_write, indents_deep_nesting)
{
	cJSON *root = cJSON_CreateObject(), *parent = root, *child;
	int i;

	for (i = 0; i < 40; i++) {
		child = i % 3 == 1 ? cJSON_CreateArray() : cJSON_CreateObject();
		if (cJSON_IsObject(parent)) {
			cJSON_AddNumberToObject(parent, "n", i);
			cJSON_AddItemToObject(parent, "c", child);
		} else {
			cJSON_AddItemToArray(parent, cJSON_CreateNumber(i));
			cJSON_AddItemToArray(parent, child);
		}
		parent = child;
	}
	expect_same(root);
}

/* MG_JW_SPACES: the tab layout with two spaces a level and ": ". */
Test(json_write, writes_the_two_space_layout)
{
	mg_buf out = MG_BUF_INIT;
	mg_jw w;

	mg_jw_init(&w, &out, MG_JW_SPACES, 0);
	mg_jw_object(&w);
	mg_jw_key_object(&w, "source");
	mg_jw_key_string(&w, "path", "a\tb");
	mg_jw_key_object(&w, "empty");
	mg_jw_end(&w);
	mg_jw_key_array(&w, "list");
	mg_jw_number(&w, 1);
	mg_jw_number(&w, 2);
	mg_jw_end(&w);
	mg_jw_end(&w);
	mg_jw_end(&w);
	cr_expect_str_eq(out.ptr, "{\n  \"source\": {\n    \"path\": \"a\\tb\",\n    \"empty\": {\n"
				  "    },\n    \"list\": [1, 2]\n  }\n}");
	mg_buf_free(&out);
}

/* An array of lines (mg_jw_array_lines): each element on a line of its
 * own, one level in, as cJSON_PrintUnformatted prints it; "]" on a line of
 * its own at the key's level; "[]" when empty; the layout around it and
 * after it unchanged, in both indented layouts. */
Test(json_write, writes_an_array_of_lines)
{
	static const char *const rows[] = {
		"{\"name\": \"a\", \"n\": [1, 2.5, null], \"noise\": {\"bands\": {\"p\": [1, 2]}, "
		"\"w\": []}, \"e\": {}}",
		"{\"name\": \"b\\n##[x\", \"n\": [], \"noise\": null, \"e\": {\"k\": true}}",
	};
	static const enum mg_jw_style styles[] = { MG_JW_TABS, MG_JW_SPACES };
	static const char *const want[] = {
		"{\n\t\"rows\":\t[\n\t\t%s,\n\t\t%s\n\t],\n\t\"none\":\t[],\n"
		"\t\"after\":\t{\n\t\t\"x\":\t[1, 2]\n\t}\n}",
		"{\n  \"rows\": [\n    %s,\n    %s\n  ],\n  \"none\": [],\n"
		"  \"after\": {\n    \"x\": [1, 2]\n  }\n}",
	};
	size_t i, k;

	for (i = 0; i < 2; i++) {
		mg_buf out = MG_BUF_INIT, expected = MG_BUF_INIT;
		char *flat[2];
		mg_jw w;

		mg_jw_init(&w, &out, styles[i], 0);
		mg_jw_object(&w);
		mg_jw_key(&w, "rows");
		mg_jw_array_lines(&w);
		for (k = 0; k < 2; k++) {
			cJSON *row = cJSON_Parse(rows[k]);

			cr_assert_not_null(row);
			cr_assert(mg_jw_flat(&w) == false, "the array's own level is not flat");
			write_tree(&w, row);
			flat[k] = cjson_text(row, false);
			cJSON_Delete(row);
		}
		mg_jw_end(&w);
		cr_assert_not(mg_jw_flat(&w), "the layout goes on after the array");
		mg_jw_key(&w, "none");
		mg_jw_array_lines(&w);
		mg_jw_end(&w);
		mg_jw_key_object(&w, "after");
		mg_jw_key_array(&w, "x");
		mg_jw_number(&w, 1);
		mg_jw_number(&w, 2);
		mg_jw_end(&w);
		mg_jw_end(&w);
		mg_jw_end(&w);
		mg_buf_printf(&expected, want[i], flat[0], flat[1]);
		cr_expect_str_eq(out.ptr, expected.ptr);
		cr_assert_not_null(strstr(out.ptr, "\\u005b"), "##[ escaped in a line too");
		free(flat[0]);
		free(flat[1]);
		mg_buf_free(&out);
		mg_buf_free(&expected);
	}
}

/* A value written at depth n by its own writer, then put into an array
 * with mg_jw_raw, reads as if written in place. */
Test(json_write, continues_a_fragment_with_raw)
{
	mg_buf whole = MG_BUF_INIT, part = MG_BUF_INIT, joined = MG_BUF_INIT;
	mg_jw w, f;
	int k;

	mg_jw_init(&w, &whole, MG_JW_TABS, 0);
	mg_jw_init(&f, &joined, MG_JW_TABS, 0);
	mg_jw_object(&w);
	mg_jw_key_array(&w, "results");
	mg_jw_object(&f);
	mg_jw_key_array(&f, "results");
	for (k = 0; k < 2; k++) {
		mg_jw fragment;

		mg_jw_object(&w);
		mg_jw_key_number(&w, "k", k);
		mg_jw_end(&w);
		part.len = 0;
		mg_jw_init(&fragment, &part, MG_JW_TABS, 2);
		mg_jw_object(&fragment);
		mg_jw_key_number(&fragment, "k", k);
		mg_jw_end(&fragment);
		mg_jw_raw(&f, part.ptr, part.len);
	}
	mg_jw_end(&w);
	mg_jw_end(&w);
	mg_jw_end(&f);
	mg_jw_end(&f);
	cr_expect_str_eq(joined.ptr, whole.ptr);
	mg_buf_free(&whole);
	mg_buf_free(&part);
	mg_buf_free(&joined);
}

/* ---- a tape written again (mg_json__write_tape) ---------------------- */

/* The strict reader's tape of text, written again, is byte for byte what
 * the cJSON printers print for cJSON's parse of the same text. */
static void expect_tape_as_cjson(const char *text)
{
	mg_json_tape *t = NULL;
	cJSON *v = cJSON_Parse(text);
	int pretty;

	cr_assert_not_null(v, "cJSON refuses %s", text);
	cr_assert_eq(mg_json__stream(&t, NULL, text, strlen(text), NULL, NULL, NULL, NULL, NULL, NULL), 0,
		     "the reader refuses %s", text);
	for (pretty = 0; pretty < 2; pretty++) {
		mg_buf out = MG_BUF_INIT;
		char *want = cjson_text(v, pretty);
		mg_jw w;

		mg_jw_init(&w, &out, pretty ? MG_JW_TABS : MG_JW_LINE, 0);
		mg_json__write_tape(&w, t, 0);
		cr_expect_str_eq(out.ptr, want, "%s, pretty=%d", text, pretty);
		free(want);
		mg_buf_free(&out);
	}
	mg_json__tape_free(t);
	cJSON_Delete(v);
}

Test(json_write, writes_a_tape_as_cjson_prints_its_parse)
{
	static const char *const texts[] = {
		"{}", "[]", "0", "\"\"", "true", "false", "null",
		"{\"a\": 1, \"b\": [1, 2.5, -3e-7, 1e300, -1e300, 0.1, 123456789012345678901],"
		" \"c\": {\"d\": {}, \"e\": []}, \"f\": true, \"g\": false, \"h\": null}",
		"[0.30000000000000004, 1E+2, 1.5e-320, 9007199254740993, 100000000000000000000000]",
		"{\"k\\u00e9y\\n\": \"\\ud83d\\ude80 \\u20ac \\\"q\\\" \\\\ \\/ \\b\\f\\n\\r\\t\"}",
		"{\"##[error]\": \"##[warning]x\", \"caf\xc3\xa9\": \"\xe2\x80\xae\\u007f\"}",
		"\xef\xbb\xbf {\"bom\": [[[[{\"x\": [\"\"]}]]]]}\n",
	};
	size_t i;

	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
		expect_tape_as_cjson(texts[i]);
}
