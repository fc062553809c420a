/* memgate list: the repository's policies.  See include/memgate/check.h. */
#include <stdlib.h>

#include "memgate/check.h"
#include "git.h"
#include "check_run.h"

int mg_check_list(char ***paths, size_t *count, const char *dir, const char *rev,
		  mg_error *err)
{
	mg_repo *repo = NULL;
	char commit[MG_GIT_OID_HEX];
	int error;

	*paths = NULL;
	*count = 0;
	if ((error = mg_repo_open(&repo, dir, err)) < 0)
		goto done;
	if ((error = mg_repo_resolve(commit, repo, rev ? rev : "HEAD", err)) < 0)
		goto done;
	error = mg_repo_list(paths, count, repo, commit, mg_check_is_policy_name, err);
done:
	mg_repo_free(repo);
	return error;
}

void mg_check_list_free(char **paths, size_t count)
{
	mg_check__free_strings(paths, count);
}
