/*
 * jsonget FILE PATH: print the JSON value at PATH ("a.b.0.c") in FILE,
 * unformatted, for the end-to-end tests (which must not need python or jq
 * on a bare Debian).  Exit 1 when the file is not JSON.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, n;
	char chunk[8192];

	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		buf = realloc(buf, len + n + 1);
		if (!buf)
			abort();
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

int main(int argc, char **argv)
{
	char *text, *path, *key, *save = NULL, *out;
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
	out = node ? cJSON_PrintUnformatted(node) : NULL;
	printf("%s\n", out ? out : "<missing>");
	free(out);
	free(path);
	cJSON_Delete(root);
	free(text);
	return 0;
}
