/*
 * A tape the strict reader recorded (json_stream.c), written again by the
 * one JSON writer (json_write.c): see plugin/util/json.h.  (Reading is
 * json_stream.c's.)
 */
#include <stdlib.h>

#include "json.h"
#include "json_write.h"

/* The members (with their keys) or elements of a container node. */
static void write_children(mg_jw *w, const mg_json_tape *t, size_t node, bool object)
{
	size_t c;

	for (c = mg_json__tape_first(t, node); c != MG_J_NONE; c = mg_json__tape_next(t, node, c)) {
		if (object) {
			char *key = mg_json__tape_key(t, c);

			mg_jw_key(w, key);
			free(key);
		}
		mg_json__write_tape(w, t, c);
	}
}

void mg_json__write_tape(mg_jw *w, const mg_json_tape *t, size_t node)
{
	char *s;

	switch (mg_json__tape_type(t, node)) {
	case MG_J_OBJECT:
	case MG_J_ARRAY: {
		bool object = mg_json__tape_type(t, node) == MG_J_OBJECT;

		if (object)
			mg_jw_object(w);
		else
			mg_jw_array(w);
		write_children(w, t, node, object);
		mg_jw_end(w);
		break;
	}
	case MG_J_STRING:
		s = mg_json__tape_strdup(t, node);
		mg_jw_string(w, s);
		free(s);
		break;
	case MG_J_NUMBER:
		mg_jw_number(w, mg_json__tape_number(t, node));
		break;
	case MG_J_TRUE:
	case MG_J_FALSE:
		mg_jw_bool(w, mg_json__tape_type(t, node) == MG_J_TRUE);
		break;
	default:
		mg_jw_null(w);
	}
}
