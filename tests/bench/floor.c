/*
 * The benchmark's floors: what any tool that gates a committed report with
 * these libraries pays before it decides anything.
 *
 *   floor read  DIR PATH   libgit2 init, open DIR, read the blob at HEAD:PATH
 *   floor parse DIR PATH   the same, then its SHA-256 (OpenSSL) and cJSON_Parse
 *
 * Built from one file into two programs (FLOOR_PARSE=0 or 1), each linked
 * with every library memgate links, so that both pay the same dynamic
 * loading as memgate.  Prints the blob's size (and, for parse, the SHA-256
 * and the number of top-level members) so that no work is optimised away.
 */
#include <stdio.h>
#include <string.h>

#include <git2.h>
#if FLOOR_PARSE
#include <cjson/cJSON.h>
#include <openssl/evp.h>
#endif

int main(int argc, char **argv)
{
	git_repository *repo = NULL;
	git_object *obj = NULL;
	char spec[4096];
	const char *data;
	size_t len;

	if (argc != 3) {
		fprintf(stderr, "usage: %s DIR PATH\n", argv[0]);
		return 2;
	}
	snprintf(spec, sizeof(spec), "HEAD:%s", argv[2]);
	git_libgit2_init();
	if (git_repository_open_ext(&repo, argv[1], 0, NULL) < 0 ||
	    git_revparse_single(&obj, repo, spec) < 0 ||
	    git_object_type(obj) != GIT_OBJECT_BLOB) {
		fprintf(stderr, "%s: cannot read %s\n", argv[0], spec);
		return 1;
	}
	data = git_blob_rawcontent((git_blob *)obj);
	len = (size_t)git_blob_rawsize((git_blob *)obj);
	printf("%zu bytes\n", len);
	(void)data;
#if FLOOR_PARSE
	{
		unsigned char md[EVP_MAX_MD_SIZE];
		unsigned int md_len = 0, i;
		cJSON *root;

		if (!EVP_Digest(data, len, md, &md_len, EVP_sha256(), NULL))
			return 1;
		for (i = 0; i < md_len; i++)
			printf("%02x", md[i]);
		root = cJSON_ParseWithLength(data, len);
		if (!root)
			return 1;
		printf(" %d members\n", cJSON_GetArraySize(root));
	}
#endif
	return 0;
}
