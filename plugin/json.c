/*
 * JSON writing for the SARIF and Code Quality renderers: see plugin/json.h.
 * (Reading is json_stream.c's, explaining a refusal json_explain.c's.)
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "memgate/buf.h"
#include "memgate/escape.h"

/* ---- writing ---- */

cJSON *mg_json__new_string(const char *s)
{
	mg_buf b = MG_BUF_INIT;
	cJSON *item;

	if (!s)
		return cJSON_CreateNull();
	mg_escape_utf8(&b, s, strlen(s));
	item = cJSON_CreateString(b.ptr);
	mg_buf_free(&b);
	return item;
}

cJSON *mg_json__add(cJSON *parent, const char *key, cJSON *item)
{
	cJSON_bool ok;

	if (!item)
		abort();
	ok = key ? cJSON_AddItemToObject(parent, key, item) : cJSON_AddItemToArray(parent, item);
	if (!ok)
		abort();
	return item;
}

/* The tree printed (pretty or not) and a newline, safe for a log
 * (mg_escape_json_log: these files end up in logs); deletes the tree. */
static char *print_tree(cJSON *root, bool pretty)
{
	mg_buf out = MG_BUF_INIT;
	char *text = pretty ? cJSON_Print(root) : cJSON_PrintUnformatted(root);

	if (!text)
		abort();
	mg_escape_json_log(&out, text);
	mg_buf_putc(&out, '\n');
	cJSON_free(text);
	cJSON_Delete(root);
	return mg_buf_detach(&out, NULL);
}

char *mg_json__print(cJSON *root)
{
	return print_tree(root, true);
}

char *mg_json__print_line(cJSON *root)
{
	return print_tree(root, false);
}

