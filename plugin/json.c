/*
 * A tree cJSON parsed, written again by the one JSON writer (json_write.c):
 * see plugin/json.h.  (Reading is json_stream.c's, explaining a refusal
 * json_explain.c's.)
 */
#include <assert.h>
#include <string.h>

#include "json.h"
#include "json_write.h"

void mg_json__write(mg_jw *w, const cJSON *v)
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
			mg_json__write(w, c);
		}
		mg_jw_end(w);
	} else if (cJSON_IsString(v)) {
		mg_jw_string(w, v->valuestring ? v->valuestring : "");
	} else if (cJSON_IsNumber(v)) {
		mg_jw_number(w, v->valuedouble);
	} else if (cJSON_IsBool(v)) {
		mg_jw_bool(w, cJSON_IsTrue(v));
	} else if (cJSON_IsRaw(v)) {
		mg_jw_raw(w, v->valuestring, strlen(v->valuestring));
	} else {
		assert(cJSON_IsNull(v));
		mg_jw_null(w);
	}
}
