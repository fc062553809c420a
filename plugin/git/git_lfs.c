/*
 * Git LFS (see plugin/git/git.h): recognising a pointer blob, and reading the
 * object it stands for from the repository's local LFS store.
 */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "git_repo.h"

/* Read the regular file `full` (opened without following a symlink) into
 * b, refusing more than limit bytes.  MG_ENOTFOUND when it does not exist. */
static int lfs_slurp(mg_buf *b, const char *full, const char *path, size_t limit,
		     mg_error *err)
{
	struct stat st;
	int fd, rc = 0;

	if ((fd = open(full, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		if (errno == ENOENT) {
			mg_error_set(err, NULL, 0, 0, "the Git LFS object of '%s' is not in "
				     "the local LFS store", path);
			return MG_ENOTFOUND;
		}
		return mg_error_set(err, NULL, 0, 0, "cannot read the Git LFS object of "
				    "'%s' ('%s'): %s", path, full, strerror(errno));
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		rc = mg_error_set(err, NULL, 0, 0, "the Git LFS object of '%s' ('%s') is "
				  "not a regular file", path, full);
		goto done;
	}
	switch (mg_git__read_fd(b, fd, limit)) {
	case MG_GIT__READ_FAILED:
		rc = mg_error_set(err, NULL, 0, 0, "cannot read the Git LFS object of '%s': %s",
				  path, strerror(errno));
		break;
	case MG_GIT__READ_TOO_BIG:
		rc = mg_error_set(err, NULL, 0, 0, "the Git LFS object of '%s' is more than the "
				  "limit of %zu bytes " LIMIT_HINT, path, limit);
		break;
	}
done:
	close(fd);
	return rc;
}

int mg_repo_read_lfs(mg_blob *blob, mg_repo *repo, const char *lfs_oid,
		     const char *path, size_t max_bytes, mg_error *err)
{
	const char *common;
	mg_buf full = MG_BUF_INIT, data = MG_BUF_INIT;
	int rc;

	assert(blob && repo && lfs_oid && path);
	memset(blob, 0, sizeof(*blob));
	if (strlen(lfs_oid) != 64 || strspn(lfs_oid, "0123456789abcdef") != 64) {
		rc = mg_error_set(err, NULL, 0, 0, "invalid Git LFS oid for '%s'", path);
		goto done;
	}
	common = git_repository_commondir(repo->git);
	if (!common || !*common) {
		rc = mg_error_set(err, NULL, 0, 0, "cannot find the git directory of the "
				  "repository (for the Git LFS object of '%s')", path);
		goto done;
	}
	mg_buf_printf(&full, "%s%slfs/objects/%.2s/%.2s/%s", common,
		      common[strlen(common) - 1] == '/' ? "" : "/", lfs_oid, lfs_oid + 2,
		      lfs_oid);
	if ((rc = lfs_slurp(&data, full.ptr, path, mg_git__effective_limit(max_bytes), err)) < 0)
		goto done;
	mg_git__take_buf(blob, &data);
done:
	mg_buf_free(&full);
	mg_buf_free(&data);
	return rc;
}

/* "oid sha256:<64 hex>" from p to end (the line without its newline). */
static bool lfs_oid_line(const char *p, const char *end, char oid[MG_GIT_LFS_OID_HEX])
{
	static const char key[] = "oid sha256:";
	size_t i, klen = sizeof(key) - 1;

	if ((size_t)(end - p) != klen + 64 || memcmp(p, key, klen))
		return false;
	for (i = 0; i < 64; i++) {
		if (!isxdigit((unsigned char)p[klen + i]))
			return false;
		oid[i] = (char)tolower((unsigned char)p[klen + i]);
	}
	oid[64] = '\0';
	return true;
}

/* "size <decimal>" from p to end. */
static bool lfs_size_line(const char *p, const char *end, unsigned long long *size)
{
	unsigned long long v = 0;

	if (end - p < 6 || memcmp(p, "size ", 5))
		return false;
	for (p += 5; p < end; p++) {
		if (!isdigit((unsigned char)*p) || v > (~0ULL - 9) / 10)
			return false;
		v = v * 10 + (unsigned long long)(*p - '0');
	}
	*size = v;
	return true;
}

/*
 * The git-lfs spec: "key value\n" lines, the first exactly the version line;
 * "oid sha256:<64 hex>" and "size <bytes>" required.  Real pointers are
 * about 130 bytes; anything from 1024 bytes up is taken as content.
 */
bool mg_blob_is_lfs_pointer(const char *data, size_t len, char lfs_oid[MG_GIT_LFS_OID_HEX],
			    unsigned long long *lfs_size)
{
	static const char version[] = "version https://git-lfs.github.com/spec/v1\n";
	const char *p, *nl, *end = data + len;
	bool have_oid = false, have_size = false;
	char oid[MG_GIT_LFS_OID_HEX];
	unsigned long long size = 0;

	if (!data || len >= MG_LFS_MAX_POINTER || len < sizeof(version) - 1 ||
	    memcmp(data, version, sizeof(version) - 1))
		return false;
	for (p = data + sizeof(version) - 1; p < end; p = nl + 1) {
		if (!(nl = memchr(p, '\n', (size_t)(end - p))))
			return false;
		have_oid = have_oid || lfs_oid_line(p, nl, oid);
		have_size = have_size || lfs_size_line(p, nl, &size);
	}
	if (!have_oid || !have_size)
		return false;
	if (lfs_oid)
		memcpy(lfs_oid, oid, sizeof(oid));
	if (lfs_size)
		*lfs_size = size;
	return true;
}
