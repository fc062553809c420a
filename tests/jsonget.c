/*
 * jsonget FILE PATH: print the JSON value at PATH ("a.b.0.c") in FILE,
 * unformatted, for the end-to-end tests (which must not need python or jq
 * on a bare Debian).  Exit 1 when the file is not JSON.
 *
 * Values are printed by this program, not by cJSON's printer, whose output
 * differs between cJSON versions (-0 is "-0" in 1.7.15 and "0" later): a
 * number is the shortest of %.15g..%.17g that reads back as the same double,
 * so that an expected value in a test means the same on every distribution.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	char chunk[8192];

	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		/* Doubling: growing by a chunk copied a 20 MB record thousands
		 * of times under ASan, whose realloc always moves. */
		if (len + n + 1 > cap) {
			cap = cap ? cap * 2 : 65536;
			if (cap < len + n + 1)
				cap = len + n + 1;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		memcpy(buf + len, chunk, n);
		len += n;
	}
	fclose(f);
	if (!buf)
		buf = calloc(1, 1);
	else
		buf[len] = '\0';
	return buf;
}

static void print_number(double v)
{
	char buf[40];
	int digits;

	if (!isfinite(v)) {
		fputs("null", stdout);
		return;
	}
	for (digits = 15; digits < 17; digits++) {
		snprintf(buf, sizeof(buf), "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	printf("%.*g", digits, v);
}

static void print_string(const char *s)
{
	const unsigned char *p;

	putchar('"');
	for (p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p && strchr("\b\f\n\r\t", *p))
			printf("\\%c", "bfnrt"[strchr("\b\f\n\r\t", *p) - "\b\f\n\r\t"]);
		else if (*p < 0x20)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

/* Print node as compact JSON. */
static void print_value(const cJSON *node)
{
	const cJSON *child;

	if (cJSON_IsNumber(node)) {
		print_number(node->valuedouble);
	} else if (cJSON_IsString(node)) {
		print_string(node->valuestring);
	} else if (cJSON_IsBool(node)) {
		fputs(cJSON_IsTrue(node) ? "true" : "false", stdout);
	} else if (cJSON_IsArray(node) || cJSON_IsObject(node)) {
		putchar(cJSON_IsArray(node) ? '[' : '{');
		for (child = node->child; child; child = child->next) {
			if (child != node->child)
				putchar(',');
			if (cJSON_IsObject(node)) {
				print_string(child->string);
				putchar(':');
			}
			print_value(child);
		}
		putchar(cJSON_IsArray(node) ? ']' : '}');
	} else {
		fputs("null", stdout);
	}
}

int main(int argc, char **argv)
{
	char *text, *path, *key, *save = NULL;
	cJSON *root, *node;

	if (argc != 3) {
		fprintf(stderr, "usage: jsonget FILE PATH\n");
		return 2;
	}
	if (!(text = slurp(argv[1])) || !(root = cJSON_Parse(text))) {
		printf("<not json>\n");
		free(text);
		return 1;
	}
	node = root;
	path = strdup(argv[2]);
	for (key = strtok_r(path, ".", &save); key && node; key = strtok_r(NULL, ".", &save))
		node = cJSON_IsArray(node) ? cJSON_GetArrayItem(node, atoi(key))
					   : cJSON_GetObjectItemCaseSensitive(node, key);
	if (node)
		print_value(node);
	else
		fputs("<missing>", stdout);
	putchar('\n');
	free(path);
	cJSON_Delete(root);
	free(text);
	return 0;
}
