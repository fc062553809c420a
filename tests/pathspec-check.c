/*
 * pathspec-check: what memgate makes of one evidence.inputs entry, for the
 * differential test against `git diff --name-only`
 * (tests/e2e/t_pathspec_differential.sh, tests/diff/pathspec.py).
 *
 *     pathspec-check REPO FROM TO <ENTRIES
 *
 * reads one entry a line, hex-encoded (so that any byte can be tried), and
 * for each parses a policy that lists it in evidence.inputs.  A refused
 * entry prints `refused FILE:LINE:COL: MESSAGE`; an accepted one prints
 * `match N`, followed by ` matches-nothing` when mg_repo_unmatched_inputs
 * finds that the entry matches no path at FROM nor at TO, then the N paths
 * that changed between the commits FROM and TO (mg_repo_changed_paths, as
 * memgate check calls it), one a line.  Built from libmemgate, so the
 * answers are the library's, not a copy.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memgate/buf.h"
#include "memgate/policy.h"
#include "git.h"

#define POLICY_HEAD \
	"version: 1\n" \
	"report: r.json\n" \
	"identity:\n" \
	"  workload_id: w\n" \
	"  hardware_id: h\n" \
	"budget:\n" \
	"  memory_cap_mb: 1\n" \
	"evidence:\n" \
	"  inputs:\n" \
	"    - \""

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The entry as a YAML double-quoted scalar: control bytes, '"' and '\'
 * escaped, the rest (UTF-8 included) as it is. */
static void put_quoted(mg_buf *b, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f || c == '"' || c == '\\')
			mg_buf_printf(b, "\\x%02x", c);
		else
			mg_buf_putc(b, (char)c);
	}
}

static void one(mg_repo *repo, const char *from, const char *to, const char *spec, size_t n)
{
	mg_buf text = MG_BUF_INIT;
	mg_policy *p = NULL;
	mg_error err;
	char buf[2048], **paths = NULL;
	size_t count = 0, total = 0, i, *unmatched = NULL, nun = 0;

	mg_error_clear(&err);
	mg_buf_puts(&text, POLICY_HEAD);
	put_quoted(&text, spec, n);
	mg_buf_puts(&text, "\"\n");
	if (mg_policy_parse(&p, ".memgate.yml", text.ptr, text.len, &err) < 0) {
		printf("refused %s\n", mg_error_format(&err, buf, sizeof(buf)));
		goto done;
	}
	if (mg_repo_changed_paths(&paths, &count, &total, repo, from, to, p->inputs,
				  p->input_count, SIZE_MAX, &err) < 0 ||
	    mg_repo_unmatched_inputs(&unmatched, &nun, repo, from, to, p->inputs,
				     p->input_count, &err) < 0) {
		fprintf(stderr, "pathspec-check: %s\n", mg_error_format(&err, buf, sizeof(buf)));
		exit(2);
	}
	printf("match %zu%s\n", count, nun ? " matches-nothing" : "");
	for (i = 0; i < count; i++)
		printf("%s\n", paths[i]);
done:
	for (i = 0; i < count; i++)
		free(paths[i]);
	free(paths);
	free(unmatched);
	mg_policy_free(p);
	mg_buf_free(&text);
}

int main(int argc, char **argv)
{
	mg_repo *repo = NULL;
	mg_error err;
	char line[16384], spec[8192], buf[2048];
	size_t n, i;

	if (argc != 4) {
		fprintf(stderr, "usage: pathspec-check REPO FROM TO <HEX-ENTRIES\n");
		return 2;
	}
	mg_error_clear(&err);
	if (mg_repo_open(&repo, argv[1], &err) < 0) {
		fprintf(stderr, "pathspec-check: %s\n", mg_error_format(&err, buf, sizeof(buf)));
		return 2;
	}
	while (fgets(line, sizeof(line), stdin)) {
		n = strcspn(line, "\r\n");
		if (n % 2 || n / 2 >= sizeof(spec)) {
			fprintf(stderr, "pathspec-check: bad line '%.*s'\n", (int)n, line);
			return 2;
		}
		for (i = 0; i < n / 2; i++) {
			int hi = hexval(line[2 * i]), lo = hexval(line[2 * i + 1]);

			if (hi < 0 || lo < 0) {
				fprintf(stderr, "pathspec-check: bad hex '%.*s'\n", (int)n, line);
				return 2;
			}
			spec[i] = (char)(hi * 16 + lo);
		}
		one(repo, argv[2], argv[3], spec, n / 2);
		fflush(stdout);
	}
	mg_repo_free(repo);
	return 0;
}
