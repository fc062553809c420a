/*
 * The monorepo benchmark's floor: what any tool that gates many committed
 * policies with these libraries pays before it decides anything.
 *
 *   floor-many DIR LIST [BASE HEAD]
 *                          libgit2 init, open DIR once, then for each line
 *                          "REV:PATH" of LIST read that blob and parse it:
 *                          YAML (libyaml, every event) for a .yml path,
 *                          else its SHA-256 (OpenSSL) and cJSON_Parse;
 *                          with BASE and HEAD, first the one tree diff of
 *                          the two commits, renames found (what check
 *                          --all --changed needs to know what changed)
 *
 * LIST names the blobs memgate reads for the same run (tests/bench/run
 * writes it).  Linked with every library memgate links.  Prints a count so
 * that no work is optimised away.
 */
#include <stdio.h>
#include <string.h>

#include <git2.h>

#include "floor-parse.h"

/* The tree diff of two commits with libgit2's rename detection; the number
 * of deltas, or -1. */
static long tree_diff(git_repository *repo, const char *base, const char *head)
{
	git_object *a = NULL, *b = NULL;
	git_tree *ta = NULL, *tb = NULL;
	git_diff *diff = NULL;
	git_diff_find_options find;
	long n = -1;

	git_diff_find_options_init(&find, GIT_DIFF_FIND_OPTIONS_VERSION);
	find.flags = GIT_DIFF_FIND_RENAMES;
	if (git_revparse_single(&a, repo, base) == 0 && git_revparse_single(&b, repo, head) == 0 &&
	    git_commit_tree(&ta, (git_commit *)a) == 0 && git_commit_tree(&tb, (git_commit *)b) == 0 &&
	    git_diff_tree_to_tree(&diff, repo, ta, tb, NULL) == 0 &&
	    git_diff_find_similar(diff, &find) == 0)
		n = (long)git_diff_num_deltas(diff);
	git_diff_free(diff);
	git_tree_free(ta);
	git_tree_free(tb);
	git_object_free(a);
	git_object_free(b);
	return n;
}

int main(int argc, char **argv)
{
	git_repository *repo = NULL;
	char spec[4096];
	long total = 0, n;
	FILE *list;

	if ((argc != 3 && argc != 5) || !(list = fopen(argv[2], "r"))) {
		fprintf(stderr, "usage: %s DIR LIST [BASE HEAD]\n", argv[0]);
		return 2;
	}
	git_libgit2_init();
	if (git_repository_open_ext(&repo, argv[1], 0, NULL) < 0) {
		fprintf(stderr, "%s: cannot open %s\n", argv[0], argv[1]);
		return 1;
	}
	if (argc == 5 && (total = tree_diff(repo, argv[3], argv[4])) < 0) {
		fprintf(stderr, "%s: cannot compare %s with %s\n", argv[0], argv[3], argv[4]);
		return 1;
	}
	while (fgets(spec, sizeof(spec), list)) {
		git_object *obj = NULL;
		const char *data;
		size_t len;

		spec[strcspn(spec, "\n")] = '\0';
		if (git_revparse_single(&obj, repo, spec) < 0 || git_object_type(obj) != GIT_OBJECT_BLOB) {
			fprintf(stderr, "%s: cannot read %s\n", argv[0], spec);
			return 1;
		}
		data = git_blob_rawcontent((git_blob *)obj);
		len = (size_t)git_blob_rawsize((git_blob *)obj);
		n = strstr(spec, ".yml") ? parse_yaml(data, len) : parse_json(data, len, 1);
		git_object_free(obj);
		if (n < 0) {
			fprintf(stderr, "%s: cannot parse %s\n", argv[0], spec);
			return 1;
		}
		total += n;
	}
	fclose(list);
	printf("%ld\n", total);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return 0;
}
