/* Output files, one transaction per run: see include/memgate/output.h. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "memgate/buf.h"
#include "memgate/output.h"

struct file {
	char *path;
	mg_buf data;
	mg_output_source source;  /* writes the content instead of data, when set */
	void *source_ctx;
	enum mg_output_mode mode;
	/* replaced files */
	bool existed;       /* a regular file was there when checked */
	mode_t perm;        /* the mode the new file gets */
	char *tmp;          /* the temporary file, once created */
	char *backup;       /* a hard link to the replaced file, once made */
	bool renamed;
	/* appended files */
	int fd;             /* -1 when not open */
	off_t old_size;     /* -1 when it cannot be truncated back */
	bool created;
	bool appended;      /* written to (perhaps partly) */
};

struct mg_outputs {
	struct file *files;
	size_t count;
};

mg_outputs *mg_outputs_new(void)
{
	return mg_xcalloc(1, sizeof(mg_outputs));
}

static struct file *add_file(mg_outputs *o, const char *path, enum mg_output_mode mode)
{
	struct file *f;

	o->files = mg_xrealloc(o->files, (o->count + 1) * sizeof(*o->files));
	f = &o->files[o->count++];
	memset(f, 0, sizeof(*f));
	f->path = mg_xstrdup(path);
	f->mode = mode;
	f->fd = -1;
	f->old_size = -1;
	mg_buf_init(&f->data);
	return f;
}

void mg_outputs_add(mg_outputs *o, const char *path, const char *data, size_t len,
		    enum mg_output_mode mode)
{
	mg_buf_put(&add_file(o, path, mode)->data, data, len);
}

void mg_outputs_add_source(mg_outputs *o, const char *path, mg_output_source source,
			   void *ctx)
{
	struct file *f = add_file(o, path, MG_OUTPUT_REPLACE);

	assert(source);
	f->source = source;
	f->source_ctx = ctx;
}

/* What a non-regular file is, for messages. */
static const char *kind_of(mode_t m)
{
	if (S_ISLNK(m))
		return "a symlink";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

static int not_regular(const struct file *f, mode_t m, mg_error *err)
{
	return mg_error_set(err, f->path, 0, 0, "cannot write: it is %s (memgate writes "
			    "regular files only, and never through a symlink)", kind_of(m));
}

static int io_error(const struct file *f, const char *what, mg_error *err)
{
	return mg_error_set(err, f->path, 0, 0, "cannot %s: %s", what, strerror(errno));
}

static mode_t new_file_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0644 & ~mask;
}

/* Check a destination that will be replaced: absent or a regular file. */
static int check_replace(struct file *f, mg_error *err)
{
	struct stat st;

	if (lstat(f->path, &st) < 0) {
		if (errno != ENOENT)
			return io_error(f, "write", err);
		f->perm = new_file_mode();
		return MG_OK;
	}
	if (!S_ISREG(st.st_mode))
		return not_regular(f, st.st_mode, err);
	f->existed = true;
	f->perm = st.st_mode & 0666;
	return MG_OK;
}

/* Open a destination to append to in place, creating it when absent.  A
 * repository's file must be a regular file reached without a symlink; the
 * runner's own may be anything. */
static int open_append(struct file *f, mg_error *err)
{
	int flags = O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY;
	struct stat st;

	if (f->mode == MG_OUTPUT_APPEND) {
		if (lstat(f->path, &st) == 0 && !S_ISREG(st.st_mode))
			return not_regular(f, st.st_mode, err);
		flags |= O_NOFOLLOW | O_NONBLOCK;
	}
	if ((f->fd = open(f->path, flags)) < 0 && errno == ENOENT) {
		f->fd = open(f->path, flags | O_CREAT | O_EXCL, 0644);
		f->created = f->fd >= 0;
	}
	if (f->fd < 0)
		return errno == ELOOP ? not_regular(f, S_IFLNK, err) : io_error(f, "write", err);
	if (fstat(f->fd, &st) < 0)
		return io_error(f, "write", err);
	if (f->mode == MG_OUTPUT_APPEND && !S_ISREG(st.st_mode))
		return not_regular(f, st.st_mode, err);
	if (S_ISREG(st.st_mode))
		f->old_size = st.st_size;
	return MG_OK;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The sink of a source: ctx is the file descriptor. */
static int to_fd(void *ctx, const char *data, size_t len)
{
	return write_all(*(int *)ctx, data, len);
}

/* Write f's data to a new temporary file beside f->path. */
static int write_temp(struct file *f, mg_error *err)
{
	mg_buf tmp = MG_BUF_INIT;
	int fd, error = MG_OK;

	mg_buf_printf(&tmp, "%s.tmp.XXXXXX", f->path);
	f->tmp = mg_buf_detach(&tmp, NULL);
	if ((fd = mkstemp(f->tmp)) < 0) {
		error = io_error(f, "write", err);
		free(f->tmp);
		f->tmp = NULL;
		return error;
	}
	if (fchmod(fd, f->perm) < 0 ||
	    (f->source ? f->source(f->source_ctx, to_fd, &fd)
	     : write_all(fd, f->data.ptr, f->data.len)) < 0 ||
	    fsync(fd) < 0)
		error = io_error(f, "write", err);
	if (close(fd) < 0 && !error)
		error = io_error(f, "write", err);
	return error;
}

/* Rename f's temporary file into place, keeping a hard link to the file it
 * replaces (when the file system has them) so that it can be put back. */
static int rename_into_place(struct file *f, mg_error *err)
{
	mg_buf backup = MG_BUF_INIT;
	struct stat st;

	if (lstat(f->path, &st) == 0 && !S_ISREG(st.st_mode))
		return not_regular(f, st.st_mode, err);  /* changed since checked */
	if (f->existed) {
		mg_buf_printf(&backup, "%s.old", f->tmp);
		if (link(f->path, backup.ptr) == 0)
			f->backup = mg_buf_detach(&backup, NULL);
		mg_buf_free(&backup);
	}
	if (rename(f->tmp, f->path) < 0)
		return io_error(f, "write", err);
	free(f->tmp);
	f->tmp = NULL;
	f->renamed = true;
	return MG_OK;
}

/* Undo f: put a replaced file back, remove a created one, truncate an
 * appended one to its old length. */
static void undo(struct file *f)
{
	if (f->renamed) {
		if (f->backup && rename(f->backup, f->path) < 0) {
			/* the old content survives only in the backup: keep it */
			free(f->backup);
			f->backup = NULL;
		} else if (!f->backup && !f->existed)
			unlink(f->path);
		f->renamed = false;
	}
	if (f->fd >= 0 && f->appended && f->old_size >= 0)
		(void)!ftruncate(f->fd, f->old_size);
	if (f->created)
		unlink(f->path);
	f->created = f->appended = false;
}

/* Drop temporary files, backups and descriptors (after success or undo). */
static void release(struct file *f)
{
	if (f->tmp)
		unlink(f->tmp);
	if (f->backup)
		unlink(f->backup);
	if (f->fd >= 0)
		close(f->fd);
	free(f->tmp);
	free(f->backup);
	f->tmp = f->backup = NULL;
	f->fd = -1;
}

static bool replaces(const struct file *f)
{
	return f->mode == MG_OUTPUT_REPLACE;
}

/* Steps 1-4 of the header; stops at the first failure. */
static int run(mg_outputs *o, mg_error *err)
{
	size_t i;

	for (i = 0; i < o->count; i++)
		if ((replaces(&o->files[i]) ? check_replace(&o->files[i], err)
		     : open_append(&o->files[i], err)) < 0)
			return MG_ERROR;
	for (i = 0; i < o->count; i++)
		if (replaces(&o->files[i]) && write_temp(&o->files[i], err) < 0)
			return MG_ERROR;
	for (i = 0; i < o->count; i++)
		if (replaces(&o->files[i]) && rename_into_place(&o->files[i], err) < 0)
			return MG_ERROR;
	for (i = 0; i < o->count; i++) {
		struct file *f = &o->files[i];

		if (replaces(f))
			continue;
		f->appended = true;
		if (write_all(f->fd, f->data.ptr, f->data.len) < 0)
			return io_error(f, "write", err);
	}
	return MG_OK;
}

int mg_outputs_commit(mg_outputs *o, mg_error *err)
{
	int error = run(o, err);
	size_t i;

	if (error < 0)
		for (i = o->count; i-- > 0;)
			undo(&o->files[i]);
	for (i = 0; i < o->count; i++)
		release(&o->files[i]);
	return error;
}

void mg_outputs_free(mg_outputs *o)
{
	size_t i;

	if (!o)
		return;
	for (i = 0; i < o->count; i++) {
		release(&o->files[i]);
		free(o->files[i].path);
		mg_buf_free(&o->files[i].data);
	}
	free(o->files);
	free(o);
}

int mg_outputs_read_existing(char **data, size_t *len, const char *path, mg_error *err)
{
	struct file probe = { .path = (char *)path };
	mg_buf b = MG_BUF_INIT;
	char chunk[8192];
	struct stat st;
	ssize_t n;
	int fd, error = MG_OK;

	*data = NULL;
	*len = 0;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? MG_OK : io_error(&probe, "read", err);
	if (!S_ISREG(st.st_mode))
		return not_regular(&probe, st.st_mode, err);
	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
		return errno == ELOOP ? not_regular(&probe, S_IFLNK, err)
			: io_error(&probe, "read", err);
	if (fstat(fd, &st) < 0) {
		error = io_error(&probe, "read", err);
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		error = not_regular(&probe, st.st_mode, err);
		goto done;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error = io_error(&probe, "read", err);
			goto done;
		}
		mg_buf_put(&b, chunk, (size_t)n);
	}
	*data = mg_buf_detach(&b, len);
done:
	close(fd);
	mg_buf_free(&b);
	return error;
}

/* ---- the delimiter token ---- */

/*
 * n bytes from OpenSSL's CSPRNG, which the operating system seeds
 * (getrandom on Linux, getentropy on macOS and the BSDs): no Linux-only call
 * here, and no /dev needed.
 */
static int random_bytes(unsigned char *buf, size_t n)
{
	assert(n <= INT_MAX);
	return RAND_bytes(buf, (int)n) == 1 ? MG_OK : MG_ERROR;
}

int mg_output_token(char out[MG_OUTPUT_TOKEN_SIZE])
{
	unsigned char bytes[(MG_OUTPUT_TOKEN_SIZE - 1) / 2];
	size_t i;

	out[0] = '\0';
	if (random_bytes(bytes, sizeof(bytes)) < 0)
		return MG_ERROR;
	for (i = 0; i < sizeof(bytes); i++)
		snprintf(out + 2 * i, 3, "%02x", bytes[i]);
	return MG_OK;
}
