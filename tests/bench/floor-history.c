/*
 * The history benchmark's floor: what any tool that compares a change with
 * the last N measurements in git pays with these libraries, before it
 * decides anything.
 *
 *   floor-history DIR BASE HEAD PATH N POLICY
 *
 * libgit2 init, open DIR; walk the first-parent line from BASE (revwalk,
 * first parents only) reading PATH's blob id in each commit's tree until N
 * commits that changed it are found; read and parse each of those N blobs
 * (cJSON_Parse); then what every check reads besides: POLICY (libyaml, every
 * event) at BASE and HEAD, and PATH at BASE and HEAD (SHA-256 with OpenSSL,
 * cJSON_Parse).  Linked with every library memgate links.  Prints a count
 * so that no work is optimised away.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "floor-parse.h"

/* Read blob id and parse it; -1 on an error. */
static long read_parse(git_repository *repo, const git_oid *id, int yaml, int digest)
{
	git_blob *blob = NULL;
	long n;

	if (git_blob_lookup(&blob, repo, id) < 0)
		return -1;
	n = yaml ? parse_yaml(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob))
		 : parse_json(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob), digest);
	git_blob_free(blob);
	return n;
}

/* The blob id of path at commit id; 0, or -1 when it has none. */
static int path_at(git_oid *out, git_repository *repo, const git_oid *id, const char *path)
{
	git_commit *c = NULL;
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	int rc = -1;

	if (git_commit_lookup(&c, repo, id) == 0 && git_commit_tree(&t, c) == 0 &&
	    git_tree_entry_bypath(&e, t, path) == 0) {
		git_oid_cpy(out, git_tree_entry_id(e));
		rc = 0;
	}
	git_tree_entry_free(e);
	git_tree_free(t);
	git_commit_free(c);
	return rc;
}

static int resolve(git_oid *out, git_repository *repo, const char *rev)
{
	git_object *obj = NULL;

	if (git_revparse_single(&obj, repo, rev) < 0)
		return -1;
	git_oid_cpy(out, git_object_id(obj));
	git_object_free(obj);
	return 0;
}

int main(int argc, char **argv)
{
	git_repository *repo = NULL;
	git_revwalk *walk = NULL;
	git_oid base, head, id, blob, pending, *versions;
	const char *path;
	long total = 0, n, want;
	size_t found = 0, i;
	int have_pending = 0, has;

	if (argc != 7 || (want = atol(argv[5])) < 1) {
		fprintf(stderr, "usage: %s DIR BASE HEAD PATH N POLICY\n", argv[0]);
		return 2;
	}
	path = argv[4];
	versions = calloc((size_t)want, sizeof(*versions));
	git_libgit2_init();
	if (git_repository_open_ext(&repo, argv[1], 0, NULL) < 0 ||
	    resolve(&base, repo, argv[2]) < 0 || resolve(&head, repo, argv[3]) < 0) {
		fprintf(stderr, "%s: cannot open %s or resolve its revisions\n", argv[0], argv[1]);
		return 1;
	}
	git_revwalk_new(&walk, repo);
	git_revwalk_simplify_first_parent(walk);
	git_revwalk_push(walk, &base);
	while (found < (size_t)want && git_revwalk_next(&id, walk) == 0) {
		has = path_at(&blob, repo, &id, path) == 0;
		if (have_pending && (!has || !git_oid_equal(&blob, &pending)))
			versions[found++] = pending;
		have_pending = has;
		pending = blob;
	}
	if (found < (size_t)want && have_pending)
		versions[found++] = pending;
	for (i = 0; i < found; i++) {
		if ((n = read_parse(repo, &versions[i], 0, 0)) < 0)
			return fprintf(stderr, "%s: cannot parse a version\n", argv[0]), 1;
		total += n;
	}
	/* the policy and the report at both ends, as every check reads them */
	for (i = 0; i < 2; i++) {
		const git_oid *at = i ? &head : &base;

		if (path_at(&blob, repo, at, argv[6]) < 0 || (n = read_parse(repo, &blob, 1, 0)) < 0 ||
		    path_at(&blob, repo, at, path) < 0 || (total += n, n = read_parse(repo, &blob, 0, 1)) < 0)
			return fprintf(stderr, "%s: cannot read the policy or the report\n", argv[0]), 1;
		total += n;
	}
	printf("%zu versions, %ld\n", found, total);
	free(versions);
	git_revwalk_free(walk);
	git_repository_free(repo);
	git_libgit2_shutdown();
	return 0;
}
