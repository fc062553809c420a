/* Strict JSON reading (plugin/util/json_stream.c, the whole document) and
 * the reason it gives when it refuses a text: what cJSON lets through and
 * we refuse, the one number rule, and the positions every later message
 * relies on. */
#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>

#include "helpers.h"
#include "json.h"

static mg_json_tape *parse_ok_n(const char *text, size_t len)
{
	mg_json_tape *t = NULL;
	mg_error err;

	mg_error_clear(&err);
	if (mg_json__stream(&t, "in.json", text, len, NULL, NULL, NULL, NULL, NULL, &err) < 0)
		cr_assert_fail("refused: %s at %d:%d", err.message, err.line, err.column);
	cr_assert_not_null(t);
	return t;
}

static mg_json_tape *parse_ok(const char *text)
{
	return parse_ok_n(text, strlen(text));
}

/* The refusal, read whole; mg_json__check (no tape) must say the same. */
static mg_error parse_fail(const char *text, size_t len)
{
	struct mg_json_fault f;
	mg_json_tape *t = NULL;
	mg_error err;

	mg_error_clear(&err);
	cr_assert_eq(mg_json__stream(&t, "in.json", text, len, NULL, NULL, NULL, NULL, NULL, &err),
		     MG_ERROR, "accepted: %s", text);
	cr_assert_null(t);
	cr_assert_eq(mg_json__check(&f, text, len), MG_ERROR);
	cr_expect_str_eq(f.what, err.message);
	cr_expect_neq(f.kind, MG_JF_NONE);
	return err;
}

/* The index-th element (or member) of node, MG_J_NONE when there is none. */
static size_t item(const mg_json_tape *t, size_t node, size_t index)
{
	size_t c = mg_json__tape_first(t, node);

	while (c != MG_J_NONE && index--)
		c = mg_json__tape_next(t, node, c);
	return c;
}

static size_t member(const mg_json_tape *t, size_t object, const char *key)
{
	return mg_json__tape_member(t, object, key);
}

/* Macros, so that a failure names the line of the test. */
#define expect_error_n(text, len, l, c, msg) do { \
	mg_error e_ = parse_fail((text), (len)); \
	cr_expect_str_eq(e_.file, "in.json"); \
	cr_expect_str_eq(e_.message, (msg)); \
	cr_expect_eq(e_.line, (l), "line %d, want %d (%s)", e_.line, (l), e_.message); \
	cr_expect_eq(e_.column, (c), "column %d, want %d (%s)", e_.column, (c), e_.message); \
} while (0)

#define expect_error(text, l, c, msg) expect_error_n((text), strlen(text), l, c, msg)

#define expect_pos(p, l, c) do { \
	mg_pos p_ = (p); \
	cr_expect_eq(p_.line, (l), "line %d, want %d", p_.line, (l)); \
	cr_expect_eq(p_.column, (c), "column %d, want %d", p_.column, (c)); \
} while (0)

/* ---- positions ---------------------------------------------------- */

Test(json, records_the_position_of_every_value_and_key)
{
	mg_json_tape *t = parse_ok("{\n  \"a\": 1,\n  \"list\": [true, {\"b\": null}],\n  \"s\": \"x\"\n}\n");
	size_t list = member(t, 0, "list");
	size_t inner = item(t, list, 1);

	expect_pos(mg_json__tape_pos(t, 0), 1, 1);
	expect_pos(mg_json__tape_key_pos(t, member(t, 0, "a")), 2, 3);
	expect_pos(mg_json__tape_pos(t, member(t, 0, "a")), 2, 8);
	expect_pos(mg_json__tape_pos(t, list), 3, 11);
	expect_pos(mg_json__tape_pos(t, item(t, list, 0)), 3, 12);
	expect_pos(mg_json__tape_pos(t, inner), 3, 18);
	expect_pos(mg_json__tape_key_pos(t, member(t, inner, "b")), 3, 19);
	expect_pos(mg_json__tape_pos(t, member(t, inner, "b")), 3, 24);
	expect_pos(mg_json__tape_pos(t, member(t, 0, "s")), 4, 8);
	mg_json__tape_free(t);
}

Test(json, key_position_of_an_array_item_is_its_value_position)
{
	mg_json_tape *t = parse_ok("[\n 10,\n 20]");
	size_t second = item(t, 0, 1);

	expect_pos(mg_json__tape_key_pos(t, second), 3, 2);
	expect_pos(mg_json__tape_pos(t, second), 3, 2);
	mg_json__tape_free(t);
}

Test(json, unknown_node_has_no_position)
{
	mg_json_tape *t = parse_ok("{\"a\": 1}");

	expect_pos(mg_json__tape_pos(t, MG_J_NONE), 0, 0);
	expect_pos(mg_json__tape_pos(t, 2), 0, 0);
	expect_pos(mg_json__tape_key_pos(t, MG_J_NONE), 0, 0);
	mg_json__tape_free(t);
}

Test(json, columns_count_characters_not_bytes)
{
	/* "é" and "€" are 2 and 3 bytes: the value after them is column 12. */
	mg_json_tape *t = parse_ok("{\"é€\": 1, \"b\": 2}");
	size_t b = member(t, 0, "b");

	expect_pos(mg_json__tape_key_pos(t, b), 1, 11);
	expect_pos(mg_json__tape_pos(t, b), 1, 16);
	mg_json__tape_free(t);
}

Test(json, utf8_bom_is_accepted_and_takes_no_column)
{
	mg_json_tape *t = parse_ok("\xef\xbb\xbf{\"a\": 1}");

	expect_pos(mg_json__tape_pos(t, 0), 1, 1);
	expect_pos(mg_json__tape_pos(t, member(t, 0, "a")), 1, 7);
	expect_pos(mg_json__tape_key_pos(t, member(t, 0, "a")), 1, 2);
	mg_json__tape_free(t);
}

Test(json, crlf_line_endings_count_one_line_each)
{
	mg_json_tape *t = parse_ok("{\r\n  \"a\": 1,\r\n  \"b\": 2\r\n}\r\n");

	expect_pos(mg_json__tape_pos(t, member(t, 0, "b")), 3, 8);
	expect_pos(mg_json__tape_key_pos(t, member(t, 0, "b")), 3, 3);
	mg_json__tape_free(t);
}

Test(json, error_after_crlf_lines_names_the_right_line)
{
	expect_error("{\r\n  \"a\": 1,\r\n  \"b\": tru\r\n}\r\n", 3, 8,
		     "malformed JSON: unexpected character 't'");
}

/* ---- lookup ------------------------------------------------------- */

Test(json, get_treats_null_as_absent_and_is_case_sensitive)
{
	mg_json_tape *t = parse_ok("{\"A\": 1, \"a\": 2, \"n\": null}");

	cr_expect_eq(mg_json__tape_number(t, mg_json__tape_get(t, 0, "a")), 2);
	cr_expect_eq(mg_json__tape_number(t, mg_json__tape_get(t, 0, "A")), 1);
	cr_expect_eq(mg_json__tape_get(t, 0, "n"), MG_J_NONE);
	cr_expect_eq(mg_json__tape_type(t, mg_json__tape_member(t, 0, "n")), MG_J_NULL,
		     "a member that may be null");
	cr_expect_eq(mg_json__tape_get(t, 0, "missing"), MG_J_NONE);
	cr_expect_eq(mg_json__tape_member(t, 0, "missing"), MG_J_NONE);
	cr_expect_eq(mg_json__tape_get(t, mg_json__tape_get(t, 0, "a"), "x"), MG_J_NONE,
		     "a number has no members");
	cr_expect_eq(mg_json__tape_get(t, MG_J_NONE, "a"), MG_J_NONE);
	mg_json__tape_free(t);
}

Test(json, type_names_read_well_in_messages)
{
	mg_json_tape *t = parse_ok("[1, \"s\", true, null, [], {}, false]");

	cr_expect_str_eq(mg_json__tape_type_name(t, item(t, 0, 0)), "a number");
	cr_expect_str_eq(mg_json__tape_type_name(t, item(t, 0, 1)), "a string");
	cr_expect_str_eq(mg_json__tape_type_name(t, item(t, 0, 2)), "a boolean");
	cr_expect_str_eq(mg_json__tape_type_name(t, item(t, 0, 3)), "null");
	cr_expect_str_eq(mg_json__tape_type_name(t, item(t, 0, 4)), "an array");
	cr_expect_str_eq(mg_json__tape_type_name(t, item(t, 0, 5)), "an object");
	cr_expect_str_eq(mg_json__tape_type_name(t, item(t, 0, 6)), "a boolean");
	cr_expect_str_eq(mg_json__tape_type_name(t, MG_J_NONE), "null");
	mg_json__tape_free(t);
}

/* ---- numbers ------------------------------------------------------ */

Test(json, numbers_are_read_as_doubles)
{
	mg_json_tape *t = parse_ok("[-0, 1e308, -1.7976931348623157e308, 9007199254740993, 1e-999, "
				   "12.356503, -1e-999, 0e99999]");

	cr_expect_eq(mg_json__tape_type(t, item(t, 0, 0)), MG_J_NUMBER);
	cr_expect_eq(mg_json__tape_number(t, item(t, 0, 0)), 0.0);
	cr_expect(!signbit(mg_json__tape_number(t, item(t, 0, 0))), "-0 reads as 0");
	cr_expect_eq(mg_json__tape_number(t, item(t, 0, 1)), 1e308);
	cr_expect_eq(mg_json__tape_number(t, item(t, 0, 2)), -DBL_MAX);
	cr_expect_eq(mg_json__tape_number(t, item(t, 0, 3)), 9007199254740992.0,
		     "2^53+1 rounds to the nearest double");
	cr_expect_eq(mg_json__tape_number(t, item(t, 0, 4)), 0.0);
	cr_expect_eq(mg_json__tape_number(t, item(t, 0, 5)), 12.356503);
	cr_expect(!signbit(mg_json__tape_number(t, item(t, 0, 6))), "-1e-999 reads as 0");
	cr_expect_eq(mg_json__tape_number(t, item(t, 0, 7)), 0.0);
	mg_json__tape_free(t);
}

/* memgate's number rule (memgate(1), JSON): any number of digits, rounded
 * to the nearest double; beyond a double's range refused at the number.
 * (Before, a number of more than 63 characters inside an array was read
 * or refused as the linked cJSON build did.) */
Test(json, long_numbers_round_to_the_nearest_double)
{
	mg_buf b = MG_BUF_INIT;
	mg_json_tape *t;
	size_t i;

	mg_buf_puts(&b, "[0.");
	for (i = 0; i < 400; i++)
		mg_buf_putc(&b, '3');
	mg_buf_puts(&b, ", 1");
	for (i = 0; i < 300; i++)
		mg_buf_putc(&b, '0');
	mg_buf_puts(&b, ".5, 9007199254740993000000000000000000000000000000000000000000000000000e-50]");
	t = parse_ok_n(b.ptr, b.len);
	cr_expect_eq(mg_json__tape_number(t, item(t, 0, 0)), 1.0 / 3.0, "400 digits of 1/3");
	cr_expect_eq(mg_json__tape_number(t, item(t, 0, 1)), 1e300);
	cr_expect_eq(mg_json__tape_number(t, item(t, 0, 2)), 90071992547409930.0);
	mg_json__tape_free(t);
	mg_buf_free(&b);
}

Test(json, numbers_beyond_a_double_are_refused_at_the_number)
{
	expect_error("{\"peak_memory_mb\": 1e999}", 1, 20,
		     "number '1e999' is out of range (a double holds at most 1.7976931348623157e+308)");
	expect_error("[1,\n -1e400]", 2, 2,
		     "number '-1e400' is out of range (a double holds at most 1.7976931348623157e+308)");
	expect_error("[1.8e308]", 1, 2,
		     "number '1.8e308' is out of range (a double holds at most 1.7976931348623157e+308)");
	expect_error("[0.00001e99999999999999999999]", 1, 2,
		     "number '0.00001e99999999999999999999' is out of range (a double holds at most "
		     "1.7976931348623157e+308)");
}

Test(json, nan_and_infinity_literals_are_malformed)
{
	expect_error("{\"eval_loss\": NaN}", 1, 15, "malformed JSON: unexpected character 'N'");
	expect_error("[Infinity]", 1, 2, "malformed JSON: unexpected character 'I'");
	expect_error("[-Infinity]", 1, 2, "malformed JSON: invalid number '-'");
}

Test(json, refuses_numbers_outside_the_json_grammar)
{
	expect_error("{\"batch_size\": 01}", 1, 16, "malformed JSON: invalid number '01'");
	expect_error("[1.]", 1, 2, "malformed JSON: invalid number '1.'");
	expect_error("[-.5]", 1, 2, "malformed JSON: invalid number '-.5'");
	expect_error("[1e]", 1, 2, "malformed JSON: invalid number '1e'");
	expect_error("[1e5.3]", 1, 2, "malformed JSON: invalid number '1e5.3'");
	expect_error("[.5]", 1, 2, "malformed JSON: unexpected character '.'");
	expect_error("[0x10]", 1, 3, "malformed JSON: unexpected character 'x'");
}

/* ---- syntax errors ------------------------------------------------ */

Test(json, unexpected_character_points_at_it)
{
	expect_error("{\n  \"a\": 1,\n  \"b\": tru\n}", 3, 8,
		     "malformed JSON: unexpected character 't'");
	expect_error("{\"a\" 1}", 1, 6, "malformed JSON: unexpected character '1'");
	expect_error("{\"a\": 1 \"b\": 2}", 1, 9, "malformed JSON: unexpected character '\"'");
	expect_error("[1 2]", 1, 4, "malformed JSON: unexpected character '2'");
	expect_error("['a']", 1, 2, "malformed JSON: unexpected character '''");
}

Test(json, unquoted_or_missing_key_points_at_the_key)
{
	/* cJSON stops one byte after a bad key: the message must not. */
	expect_error("{peak: 1}", 1, 2, "malformed JSON: unexpected character 'p'");
	expect_error("{\"a\": 1, b: 2}", 1, 10, "malformed JSON: unexpected character 'b'");
	expect_error("{\n  \"a\": 1,\n}", 3, 1, "malformed JSON: unexpected character '}'");
	expect_error("[{}x]", 1, 4, "malformed JSON: unexpected character 'x'");
}

Test(json, trailing_comma_in_an_array_is_malformed)
{
	expect_error("[1, 2,]", 1, 7, "malformed JSON: unexpected character ']'");
}

Test(json, truncated_document_is_unexpected_end_of_input)
{
	expect_error("{\"a\": [1, 2", 1, 12, "malformed JSON: unexpected end of input");
	expect_error("{\n  \"a\": 1,\n", 3, 1, "malformed JSON: unexpected end of input");
	expect_error("", 1, 1, "malformed JSON: unexpected end of input");
	expect_error("  \n ", 2, 2, "malformed JSON: unexpected end of input");
}

Test(json, non_ascii_unexpected_character_is_named_by_code_point)
{
	expect_error("[1, \xe2\x80\x9c" "a\xe2\x80\x9d]", 1, 5,
		     "malformed JSON: unexpected character U+201C");
}

/* ---- strings ------------------------------------------------------ */

Test(json, unterminated_string_points_at_its_opening_quote)
{
	expect_error("{\n  \"name\": \"checkpoint", 2, 11, "malformed JSON: unterminated string");
}

Test(json, invalid_escape_points_at_the_backslash)
{
	expect_error("[\"C:\\Users\"]", 1, 5, "malformed JSON: invalid escape sequence '\\U' in string");
}

Test(json, invalid_unicode_escapes_are_malformed)
{
	/* cJSON would turn "\u12x4" into a NUL and cut the string. */
	expect_error("[\"ab\\u12x4\"]", 1, 5,
		     "malformed JSON: invalid unicode escape (want '\\u' and 4 hex digits)");
	expect_error("[\"\\ud800\"]", 1, 3, "malformed JSON: unpaired surrogate in unicode escape");
	expect_error("[\"\\udc00\\ud800\"]", 1, 3,
		     "malformed JSON: unpaired surrogate in unicode escape");
}

Test(json, escaped_nul_is_refused_because_it_would_cut_the_string)
{
	expect_error("{\"name\": \"base\\u0000line\"}", 1, 15,
		     "escaped NUL character '\\u0000' is not supported");
}

Test(json, valid_escapes_decode)
{
	mg_json_tape *t = parse_ok("[\"tab\\t \\\"q\\\" \\u00e9 \\ud83d\\ude00 \\/\"]");
	char *s = mg_json__tape_strdup(t, item(t, 0, 0));

	cr_expect_str_eq(s, "tab\t \"q\" \xc3\xa9 \xf0\x9f\x98\x80 /");
	free(s);
	mg_json__tape_free(t);
}

Test(json, raw_control_character_in_a_string_is_malformed)
{
	expect_error("{\"name\": \"a\tb\"}", 1, 12,
		     "malformed JSON: unescaped control character U+0009 in string");
	expect_error("{\"name\": \"a\nb\"}", 1, 12,
		     "malformed JSON: unescaped control character U+000A in string");
}

Test(json, form_feed_is_not_json_whitespace)
{
	expect_error("{\"a\":\f1}", 1, 6, "malformed JSON: unexpected character U+000C");
}

Test(json, vertical_tab_is_not_json_whitespace)
{
	expect_error("[\v]", 1, 2, "malformed JSON: unexpected character U+000B");
}

/* ---- trailing text ------------------------------------------------ */

Test(json, trailing_text_is_an_error_at_its_start)
{
	expect_error("{\"a\": 1}\n\n  {\"b\": 2}\n", 3, 3, "trailing text after the JSON document");
	expect_error("[1]]", 1, 4, "trailing text after the JSON document");
	expect_error("{} x", 1, 4, "trailing text after the JSON document");
}

Test(json, trailing_whitespace_is_fine)
{
	mg_json__tape_free(parse_ok("{\"a\": 1}\n\n \t\r\n"));
}

Test(json, text_need_not_be_nul_terminated)
{
	const char buf[] = "[1,2]XYZ";

	mg_json__tape_free(parse_ok_n(buf, 5));
	expect_error_n(buf, 4, 1, 5, "malformed JSON: unexpected end of input");
}

/* ---- duplicate keys ----------------------------------------------- */

Test(json, duplicate_key_is_reported_at_its_second_occurrence)
{
	expect_error("{\n  \"peak_memory_mb\": 1,\n  \"peak_memory_mb\": 2\n}", 3, 3,
		     "duplicate key 'peak_memory_mb'");
}

Test(json, nested_duplicate_key_is_found)
{
	expect_error("{\"candidates\": [{\"name\": \"a\"}, {\"name\": \"b\", \"x\": 1, \"name\": \"c\"}]}",
		     1, 54, "duplicate key 'name'");
}

Test(json, first_duplicate_in_text_order_is_reported)
{
	/* The inner object closes first in the text, the outer 'a' comes later. */
	expect_error("{\"a\": {\"c\": 1, \"c\": 2}, \"b\": 1, \"b\": 2, \"a\": 3}", 1, 16,
		     "duplicate key 'c'");
	expect_error("{\"x\": 1, \"y\": 1, \"y\": 2, \"x\": 2}", 1, 18, "duplicate key 'y'");
}

/* The name is shown decoded and escaped for a log: an escaped newline in
 * it (CI's fuzz_report found one) shows as \n, never as a line break, and
 * a long one is cut at 100 bytes, on a character's boundary, with "...". */
Test(json, a_duplicate_key_is_named_escaped)
{
	char key[400], text[1000], want[400];
	int i, n = 0;

	expect_error("{\"a\\nb\": 1, \"a\\u000ab\": 2}", 1, 13, "duplicate key 'a\\nb'");
	expect_error("{\"a\\\\b\": 1, \"a\\\\b\": 2}", 1, 13, "duplicate key 'a\\\\b'");
	/* 'x' and 150 U+00E9 (2 bytes each): 100 bytes end inside the 50th. */
	n = snprintf(key, sizeof(key), "x");
	for (i = 0; i < 150; i++)
		n += snprintf(key + n, sizeof(key) - n, "\xc3\xa9");
	snprintf(text, sizeof(text), "{\"%s\": 1, \"%s\": 2}", key, key);
	snprintf(want, sizeof(want), "duplicate key '%.99s...'", key);
	expect_error(text, 1, 160, want);
}

/* Of several faults, the reader names the first it meets, reading from the
 * start: a duplicate key is met when its object closes (before, a text up
 * to 1 MiB named where cJSON stopped first, here the '}'). */
Test(json, the_first_fault_met_is_named)
{
	expect_error("{\"a\": 01, \"b\": }", 1, 7, "malformed JSON: invalid number '01'");
	expect_error("[1, \"\xff\", \"\x01\"]", 1, 6, "invalid UTF-8: invalid lead byte (byte 0xff)");
	expect_error("[\"\x01\", \"\xff\"]", 1, 3,
		     "malformed JSON: unescaped control character U+0001 in string");
}

Test(json, a_duplicate_key_is_met_when_its_object_closes)
{
	expect_error("{\"a\": {\"x\": 1, \"x\": 2}, \"b\": 01}", 1, 16, "duplicate key 'x'");
	expect_error("{\"a\": {\"x\": 1, \"x\": 2, \"z\": {\"q\": 1, \"q\": 2}}}", 1, 38,
		     "duplicate key 'q'");
	expect_error("{\"a\": 01, \"a\": 2}", 1, 7, "malformed JSON: invalid number '01'");
	expect_error("{\"x\": 1, \"x\": 2, \"y\": 01}", 1, 23, "malformed JSON: invalid number '01'");
}

/* Of a name written three times, the second is named, in a small object
 * (pairs) and a large one (sorted). */
Test(json, the_second_occurrence_of_a_key_is_named)
{
	mg_buf b = MG_BUF_INIT;
	mg_error err;
	int i;

	expect_error("{\"b\": 1, \"a\": 1, \"a\": 2, \"b\": 2, \"a\": 3}", 1, 18, "duplicate key 'a'");
	mg_buf_puts(&b, "{\"b\": 1, \"a\": 1, \"a\": 2, \"b\": 2, \"a\": 3");
	for (i = 0; i < 20; i++)
		mg_buf_printf(&b, ", \"k%d\": 0", i);
	mg_buf_putc(&b, '}');
	err = parse_fail(b.ptr, b.len);
	cr_expect_str_eq(err.message, "duplicate key 'a'");
	cr_expect_eq(err.column, 18);
	mg_buf_free(&b);
}

Test(json, keys_equal_after_unescaping_are_duplicates)
{
	expect_error("{\"name\": 1, \"n\\u0061me\": 2}", 1, 13, "duplicate key 'name'");
}

Test(json, same_key_in_sibling_objects_is_fine)
{
	mg_json__tape_free(parse_ok("[{\"name\": 1}, {\"name\": 2}, {\"name\": {\"name\": 3}}]"));
}

/* Found by fuzz/fuzz_report: an empty object met before any key did
 * arithmetic on the still-NULL key stack (clang's UBSan: "applying zero
 * offset to null pointer"; gcc's UBSan does not check it). */
Test(json, empty_object_before_any_key_parses)
{
	size_t len;
	char *text = mg_test_read("fixtures/reports/fuzz-empty-object.json", &len);
	mg_json_tape *t = parse_ok_n(text, len);

	cr_expect_eq(mg_json__tape_type(t, 0), MG_J_OBJECT);
	cr_expect_eq(mg_json__tape_count(t, 0), 0);
	cr_expect_eq(mg_json__tape_first(t, 0), MG_J_NONE);
	mg_json__tape_free(t);
	free(text);
	mg_json__tape_free(parse_ok("[{}, {\"a\": {}}, {}]"));
}

/* Build {"k0": 0, ..., "k<n-1>": n-1} with cJSON, plus `extra` key at the end. */
static char *many_keys(int n, const char *extra)
{
	cJSON *o = cJSON_CreateObject();
	char key[32], *text;
	int i;

	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		cJSON_AddNumberToObject(o, key, i);
	}
	if (extra)
		cJSON_AddNumberToObject(o, extra, -1);
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return text;
}

/* The cost of the check is make bench's (case h); here, its answers. */
Test(json, duplicate_check_answers_for_large_objects)
{
	char *unique = many_keys(50000, NULL), *dup = many_keys(50000, "k7");
	mg_json_tape *t = parse_ok(unique);
	mg_error err;

	cr_expect_eq(mg_json__tape_count(t, 0), 50000);
	mg_json__tape_free(t);
	err = parse_fail(dup, strlen(dup));
	cr_expect_str_eq(err.message, "duplicate key 'k7'");
	cr_expect_eq(err.column, (int)(strrchr(dup, ',') - dup) + 2);
	cJSON_free(unique);
	cJSON_free(dup);
}

/* {"\u006b0": 0, ...}: every key written with a \u escape, and `dup`
 * (raw) at the end when given. */
static char *escaped_keys(size_t n, const char *dup, size_t *len)
{
	mg_buf b = MG_BUF_INIT;
	size_t i;

	mg_buf_putc(&b, '{');
	for (i = 0; i < n; i++)
		mg_buf_printf(&b, "%s\"\\u006b%zu\":0", i ? "," : "", i);
	if (dup)
		mg_buf_printf(&b, ",\"%s\":1", dup);
	mg_buf_putc(&b, '}');
	return mg_buf_detach(&b, len);
}

/* Key comparisons the streaming reader makes on n escaped keys. */
static size_t stream_compares(size_t n, const char *dup, int want)
{
	mg_json_tape *t = NULL;
	size_t len, before = mg_json__key_compares;
	char *text = escaped_keys(n, dup, &len);

	cr_assert_eq(mg_json__stream(&t, NULL, text, len, NULL, NULL, NULL, NULL, NULL, NULL), want);
	mg_json__tape_free(t);
	free(text);
	return mg_json__key_compares - before;
}

/* Issue 19, finding 2: each escaped key was decoded and compared with every
 * key (4x the work per doubling).  Now the work grows as n log n: doubling
 * the keys at most 2.5x the comparisons. */
Test(json, escaped_keys_are_checked_in_n_log_n_comparisons)
{
	size_t c1 = stream_compares(20000, NULL, MG_OK), c2 = stream_compares(40000, NULL, MG_OK);

	cr_expect_lt(c1, 20000 * 20, "%zu comparisons for 20000 keys", c1);
	cr_expect_lt(c2, c1 * 5 / 2, "%zu comparisons for 40000 keys, %zu for 20000", c2, c1);
	stream_compares(40000, "k39999", MG_ERROR);
	stream_compares(10, "k9", MG_ERROR);
	stream_compares(10, "k10", MG_OK);
}

/* `head`, then n copies of "0," inside an array, then `tail`. */
static char *zeros(const char *head, size_t n, const char *tail, size_t *len)
{
	mg_buf b = MG_BUF_INIT;
	size_t i;

	mg_buf_puts(&b, head);
	for (i = 0; i < n; i++)
		mg_buf_puts(&b, "0,");
	mg_buf_puts(&b, tail);
	return mg_buf_detach(&b, len);
}

/* A text the reader refuses, of a few bytes and of more than 1 MiB (where,
 * before, cJSON's reading no longer explained it): the same message, at the
 * same column of the last line. */
static void expect_explained(const char *head, const char *tail, size_t from_end,
			     const char *msg)
{
	size_t len, i, sizes[2] = { 10, (size_t)1 << 20 };
	mg_json_tape *t = NULL;
	mg_error err;
	char *text;

	for (i = 0; i < 2; i++) {
		text = zeros(head, sizes[i], tail, &len);
		mg_error_clear(&err);
		cr_assert_eq(mg_json__stream(&t, "r.json", text, len, "candidates", NULL, NULL, NULL,
					     NULL, &err), MG_ERROR);
		cr_expect_str_eq(err.file, "r.json");
		cr_expect_str_eq(err.message, msg, "%zu zeros", sizes[i]);
		cr_expect_eq(err.line, 1);
		cr_expect_eq((size_t)err.column, len - from_end + 1, "%zu zeros", sizes[i]);
		free(text);
	}
}

/* Issue 19, finding 5: a long report whose fault lies at its very end was
 * explained by parsing it again as a cJSON tree (3.4 GB for 63 MiB).  The
 * reader names its own fault, keeping no tree, whatever the size. */
Test(json, a_long_text_is_explained_without_a_tree)
{
	expect_explained("{\"candidates\": [", "0], \"a\": 1, \"a\": 2}", 7, "duplicate key 'a'");
	expect_explained("{\"candidates\": [", "0], \"x\": {\"b\\u0061\": 1, \"ba\": 2}}", 9,
			 "duplicate key 'ba'");
	expect_explained("{\"candidates\": [", "]}", 2, "malformed JSON: unexpected character ']'");
	expect_explained("[", "0", 0, "malformed JSON: unexpected end of input");
	expect_explained("[", "0] x", 1, "trailing text after the JSON document");
}

/* Issue 31: the same faults in a text of a few bytes and of 1 MiB gave
 * different messages (cJSON's stop first, or the earliest duplicate key,
 * below 1 MiB; the reader's first fault above).  Now one reader says it. */
Test(json, the_same_faults_give_the_same_message_at_any_size)
{
	expect_explained("{\"candidates\": [", "0], \"a\": 01, \"b\": }", 10,
			 "malformed JSON: invalid number '01'");
	expect_explained("{\"candidates\": [", "0], \"x\": {\"a\": 1, \"a\": 2, \"z\": {\"q\": 1, \"q\": 2}}}",
			 9, "duplicate key 'q'");
	expect_explained("{\"candidates\": [", "0], \"x\": [\"\\u00zz\"]}", 9,
			 "malformed JSON: invalid unicode escape (want '\\u' and 4 hex digits)");
}

/* ---- bytes -------------------------------------------------------- */

Test(json, nul_byte_is_refused_at_its_position)
{
	expect_error_n("{\"a\": 1}\n\0", 10, 2, 1, "unexpected NUL byte");
	expect_error_n("{\"a\": \"x\0y\"}", 12, 1, 9, "unexpected NUL byte");
}

Test(json, invalid_utf8_is_refused_at_its_position)
{
	expect_error("{\"name\": \"caf\xe9\"}", 1, 14,
		     "invalid UTF-8: truncated sequence (byte 0xe9)");
	expect_error("[\"\xc3\xa9\", \"\xff\"]", 1, 8,
		     "invalid UTF-8: invalid lead byte (byte 0xff)");
	expect_error("[\"\x80\"]", 1, 3, "invalid UTF-8: unexpected continuation byte (byte 0x80)");
}

Test(json, overlong_utf8_is_refused)
{
	expect_error("[\"\xc0\xaf\"]", 1, 3, "invalid UTF-8: overlong encoding (byte 0xc0)");
	expect_error("[\"\xe0\x80\xaf\"]", 1, 3, "invalid UTF-8: overlong encoding (byte 0xe0)");
	expect_error("[\"\xf0\x80\x80\xaf\"]", 1, 3, "invalid UTF-8: overlong encoding (byte 0xf0)");
}

Test(json, utf8_encoded_surrogates_are_refused)
{
	expect_error("[\"\xed\xa0\x80\"]", 1, 3, "invalid UTF-8: encoded surrogate (byte 0xed)");
}

Test(json, code_points_above_u10ffff_are_refused)
{
	expect_error("[\"\xf4\x90\x80\x80\"]", 1, 3,
		     "invalid UTF-8: code point above U+10FFFF (byte 0xf4)");
	expect_error("[\"\xf5\x80\x80\x80\"]", 1, 3, "invalid UTF-8: invalid lead byte (byte 0xf5)");
}

Test(json, largest_code_point_is_accepted)
{
	mg_json__tape_free(parse_ok("[\"\xf4\x8f\xbf\xbf\"]"));
}

Test(json, utf16_text_is_refused_with_a_hint)
{
	expect_error_n("\xff\xfe{\0}\0", 6, 1, 1, "text is UTF-16 encoded: JSON must be UTF-8");
}

/* ---- nesting ------------------------------------------------------ */

static char *nested(int depth, char open, char close)
{
	char *s = mg_xmalloc((size_t)depth * 2 + 1);

	memset(s, open, (size_t)depth);
	memset(s + depth, close, (size_t)depth);
	s[depth * 2] = '\0';
	return s;
}

Test(json, nesting_up_to_64_levels_is_accepted)
{
	char *s = nested(64, '[', ']');

	mg_json__tape_free(parse_ok(s));
	free(s);
}

Test(json, nesting_deeper_than_64_levels_is_refused_at_the_65th_bracket)
{
	char *s = nested(65, '[', ']');

	expect_error(s, 1, 65, "nesting deeper than 64 levels");
	free(s);
}

/* Refused at the limit's column; the cost is make bench's (case h). */
Test(json, very_deep_nesting_is_refused_at_the_limit)
{
	char *s = nested(1000000, '[', ']');

	expect_error(s, 1, 65, "nesting deeper than 64 levels");
	free(s);
}

Test(json, brackets_inside_strings_do_not_nest)
{
	char *inner = nested(100, '[', ']');
	cJSON *arr = cJSON_CreateArray();
	char *text;

	cJSON_AddItemToArray(arr, cJSON_CreateString(inner));
	text = cJSON_PrintUnformatted(arr);
	mg_json__tape_free(parse_ok(text));
	cJSON_free(text);
	cJSON_Delete(arr);
	free(inner);
}

Test(json, top_level_scalar_is_valid_json)
{
	mg_json_tape *t = parse_ok("  42 ");

	cr_expect_eq(mg_json__tape_number(t, 0), 42);
	expect_pos(mg_json__tape_pos(t, 0), 1, 3);
	mg_json__tape_free(t);
}

Test(json, error_without_a_file_name_is_allowed)
{
	mg_json_tape *t = NULL;
	mg_error err;

	cr_expect_eq(mg_json__stream(&t, NULL, "[", 1, NULL, NULL, NULL, NULL, NULL, &err), MG_ERROR);
	cr_expect_str_eq(err.file, "");
	cr_expect_str_eq(err.message, "malformed JSON: unexpected end of input");
}
