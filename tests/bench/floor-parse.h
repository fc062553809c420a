/*
 * What the monorepo and history floors (floor-many.c, floor-history.c) do
 * to each blob: libyaml to the end of the stream, or SHA-256 (OpenSSL) and
 * cJSON_Parse.  Static: each floor is one translation unit.
 */
#ifndef MEMGATE_BENCH_FLOOR_PARSE_H
#define MEMGATE_BENCH_FLOOR_PARSE_H
#include <stddef.h>

#include <cjson/cJSON.h>
#include <openssl/evp.h>
#include <yaml.h>

/* Parse YAML to its end; the number of events, -1 on an error. */
static long parse_yaml(const char *data, size_t len)
{
	yaml_parser_t parser;
	yaml_event_t event;
	long events = 0;
	int done = 0;

	if (!yaml_parser_initialize(&parser))
		return -1;
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	while (!done) {
		if (!yaml_parser_parse(&parser, &event)) {
			events = -1;
			break;
		}
		done = event.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&event);
		events++;
	}
	yaml_parser_delete(&parser);
	return events;
}

/* SHA-256 of the text when digest is set, then cJSON_Parse; a count, -1
 * on an error. */
static long parse_json(const char *data, size_t len, int digest)
{
	unsigned char md[EVP_MAX_MD_SIZE] = { 0 };
	unsigned int md_len = 0;
	cJSON *root;
	long n;

	if (digest && !EVP_Digest(data, len, md, &md_len, EVP_sha256(), NULL))
		return -1;
	if (!(root = cJSON_ParseWithLength(data, len)))
		return -1;
	n = cJSON_GetArraySize(root) + md[0];
	cJSON_Delete(root);
	return n;
}

#endif
