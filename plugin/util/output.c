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
	int dirfd;          /* the directory holding it (-1 until opened; not for the runner's) */
	const char *base;   /* its last component, in path */
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

/* A directory the gated repository controls (mg_outputs_guard). */
struct guard {
	dev_t dev;
	ino_t ino;
};

struct mg_outputs {
	struct file *files;
	size_t count;
	struct guard *guards;
	size_t guard_count;
};

mg_outputs *mg_outputs_new(void)
{
	return mg_xcalloc(1, sizeof(mg_outputs));
}

void mg_outputs_guard(mg_outputs *o, const char *dir)
{
	struct stat st;

	assert(o);
	if (!dir || stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return;  /* nothing there: no path leads into it */
	o->guards = mg_xrealloc(o->guards, (o->guard_count + 1) * sizeof(*o->guards));
	o->guards[o->guard_count].dev = st.st_dev;
	o->guards[o->guard_count++].ino = st.st_ino;
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
	f->dirfd = -1;
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

/* "cannot write: 'reports' in its path is a symlink ..." */
static int bad_component(const struct file *f, const char *what, const char *name, size_t n,
			 mode_t m, mg_error *err)
{
	if (!S_ISLNK(m))
		return mg_error_set(err, f->path, 0, 0, "cannot %s: '%.*s' in its path is not a "
				    "directory", what, (int)n, name);
	return mg_error_set(err, f->path, 0, 0, "cannot %s: '%.*s' in its path is a symlink "
			    "(memgate writes regular files only, and never through a symlink)",
			    what, (int)n, name);
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Is st the current directory or a guarded one? */
static bool is_guarded(const mg_outputs *o, const struct stat *st)
{
	struct stat cwd;
	size_t i;

	if (stat(".", &cwd) == 0 && same_file(st, &cwd))
		return true;
	for (i = 0; i < o->guard_count; i++)
		if (st->st_dev == o->guards[i].dev && st->st_ino == o->guards[i].ino)
			return true;
	return false;
}

/* Is the directory open at fd the current directory or a guarded one? */
static bool fd_guarded(const mg_outputs *o, int fd)
{
	struct stat st;

	return fstat(fd, &st) < 0 || is_guarded(o, &st);  /* cannot tell: strict */
}

/*
 * Find the root from the current directory with stat() of "..", "../..",
 * ... (which needs no read permission on the directories, only search):
 * returns 0 with *up its relative path, -1 when one cannot be looked at.
 */
static int climb(mg_buf *up)
{
	struct stat st, below;
	size_t depth;

	for (depth = 0; depth < PATH_MAX / 3; depth++) {
		if (stat(depth ? up->ptr : ".", &st) < 0)
			return -1;
		if (depth && same_file(&st, &below))
			return 0;
		below = st;
		mg_buf_puts(up, depth ? "/.." : "..");
	}
	return -1;
}

/*
 * The root directory, open: reached by climbing ".." from the current
 * directory rather than by opening "/", so that a path translator in the
 * way (qemu-user's QEMU_LD_PREFIX sends "/" to the emulated root) does not
 * change which root an absolute path starts from; "/" itself when the
 * climb fails.  -1 on failure.
 */
static int open_root(void)
{
	mg_buf up = MG_BUF_INIT;
	int fd = climb(&up) == 0 ? open(up.ptr, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;

	if (fd < 0)
		fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	mg_buf_free(&up);
	return fd;
}

/* Symlinks followed on one path at most, as Linux's MAXSYMLINKS. */
#define MAX_LINKS 40

static int walk(const mg_outputs *o, struct file *f, const char *what, int *fd, bool *strict,
		const char *p, const char *end, int links, mg_error *err);

/*
 * Follow the caller's symlink `name` in the directory *fd: walk its target
 * by the same rules (from the root when absolute, else from *fd), so that a
 * symlink it leads through inside a guarded directory is still refused.
 * Sets *next and *strict for the directory it leads to.
 */
static int follow(const mg_outputs *o, struct file *f, const char *what, int fd,
		  const char *name, int *next, bool *strict, int links, mg_error *err)
{
	char target[PATH_MAX];
	ssize_t len = readlinkat(fd, name, target, sizeof(target));
	int error;

	*next = -1;
	if (len <= 0 || (size_t)len >= sizeof(target) || links >= MAX_LINKS) {
		errno = links >= MAX_LINKS ? ELOOP : len == 0 ? ENOENT : len > 0 ? ENAMETOOLONG
			: errno;
		return io_error(f, what, err);
	}
	target[len] = '\0';
	*next = target[0] == '/' ? open_root() : dup(fd);
	if (*next < 0)
		return io_error(f, what, err);
	*strict = target[0] == '/' && fd_guarded(o, *next);
	if ((error = walk(o, f, what, next, strict, target, target + len, links + 1, err)) < 0) {
		close(*next);
		*next = -1;
	}
	return error;
}

/*
 * Walk the components of [p, end) from the directory *fd (replaced by each
 * one opened): with O_NOFOLLOW | O_DIRECTORY while *strict, else following
 * a symlink (the caller's) and becoming strict on entering a guarded
 * directory.  MG_ERROR names the component refused.
 */
static int walk(const mg_outputs *o, struct file *f, const char *what, int *fd, bool *strict,
		const char *p, const char *end, int links, mg_error *err)
{
	const char *slash;
	char *name = NULL;
	size_t n;
	int next, error = MG_OK;
	struct stat st;

	while (p < end) {
		while (p < end && *p == '/')
			p++;
		if (p >= end)
			break;
		slash = memchr(p, '/', (size_t)(end - p));
		n = (size_t)((slash ? slash : end) - p);
		free(name);
		name = mg_xstrndup(p, n);
		next = openat(*fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && !*strict && (errno == ELOOP || errno == ENOTDIR) &&
		    fstatat(*fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
			if ((error = follow(o, f, what, *fd, name, &next, strict, links, err)) < 0)
				goto done;
		} else if (next >= 0 && !*strict) {
			*strict = fd_guarded(o, next);
		} else if (next < 0) {
			if ((errno == ELOOP || errno == ENOTDIR) &&
			    fstatat(*fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
				error = bad_component(f, what, p, n, st.st_mode, err);
			else
				error = io_error(f, what, err);
			goto done;
		}
		close(*fd);
		*fd = next;
		p += n;
	}
done:
	free(name);
	return error;
}

/*
 * Open the directory that holds f->path one component at a time, from the
 * current directory for a relative path (or an absolute one inside it),
 * else from the root.  Inside the current directory or a guarded one
 * (mg_outputs_guard: the repository's work tree), which the repository
 * controls, a component is opened with O_NOFOLLOW | O_DIRECTORY, so that no
 * symlink there leads a write out of where the path says.  Outside them a
 * symlink is the caller's (macOS's /tmp -> private/tmp) and is followed,
 * its target walked by the same rules.  Sets f->dirfd and f->base; MG_ERROR
 * names the component refused.
 */
static int open_parent(const mg_outputs *o, struct file *f, const char *what, mg_error *err)
{
	const char *p = f->path, *last = strrchr(f->path, '/');
	char cwd[4096];
	size_t n;
	int fd, error;
	bool strict = true;

	f->base = last ? last + 1 : f->path;
	if (!*f->base || !strcmp(f->base, ".") || !strcmp(f->base, ".."))
		return mg_error_set(err, f->path, 0, 0, "cannot %s: not a file name", what);
	if (*p == '/' && getcwd(cwd, sizeof(cwd)) && strcmp(cwd, "/") &&
	    !strncmp(p, cwd, (n = strlen(cwd))) && p[n] == '/')
		p += n + 1;
	fd = *p == '/' ? open_root() : open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return io_error(f, what, err);
	if (*p == '/')
		strict = fd_guarded(o, fd);
	if ((error = walk(o, f, what, &fd, &strict, p, f->base, 0, err)) < 0) {
		close(fd);
		return error;
	}
	f->dirfd = fd;
	return MG_OK;
}

/* Check a destination that will be replaced: absent or a regular file. */
static int check_replace(const mg_outputs *o, struct file *f, mg_error *err)
{
	struct stat st;

	if (open_parent(o, f, "write", err) < 0)
		return MG_ERROR;
	if (fstatat(f->dirfd, f->base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
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

/* open() the destination: in its directory handle, or (the runner's
 * files) by its path. */
static int at_open(const struct file *f, int flags, mode_t mode)
{
	return f->dirfd >= 0 ? openat(f->dirfd, f->base, flags, mode) : open(f->path, flags, mode);
}

/* Open a destination to append to in place, creating it when absent.  A
 * repository's file must be a regular file reached without a symlink; the
 * runner's own may be anything. */
static int open_append(const mg_outputs *o, struct file *f, mg_error *err)
{
	int flags = O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY;
	struct stat st;

	if (f->mode == MG_OUTPUT_APPEND) {
		if (open_parent(o, f, "write", err) < 0)
			return MG_ERROR;
		if (fstatat(f->dirfd, f->base, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
			return not_regular(f, st.st_mode, err);
		flags |= O_NOFOLLOW | O_NONBLOCK;
	}
	if ((f->fd = at_open(f, flags, 0)) < 0 && errno == ENOENT) {
		f->fd = at_open(f, flags | O_CREAT | O_EXCL, 0644);
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

/* Create a new temporary file "<base>.tmp.<random>" in f's directory;
 * sets f->tmp (its name there) and returns its descriptor, or -1. */
static int create_temp(struct file *f)
{
	char token[MG_OUTPUT_TOKEN_SIZE];
	mg_buf tmp = MG_BUF_INIT;
	int fd = -1, tries;

	for (tries = 0; tries < 16 && fd < 0; tries++) {
		if (mg_output_token(token) < 0)
			break;
		tmp.len = 0;
		mg_buf_printf(&tmp, "%s.tmp.%.12s", f->base, token);
		fd = openat(f->dirfd, tmp.ptr, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd >= 0)
		f->tmp = mg_buf_detach(&tmp, NULL);
	mg_buf_free(&tmp);
	return fd;
}

/* Write f's data to a new temporary file beside f->path. */
static int write_temp(struct file *f, mg_error *err)
{
	int fd, error = MG_OK;

	if ((fd = create_temp(f)) < 0)
		return io_error(f, "write", err);
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

	if (fstatat(f->dirfd, f->base, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
		return not_regular(f, st.st_mode, err);  /* changed since checked */
	if (f->existed) {
		mg_buf_printf(&backup, "%s.old", f->tmp);
		if (linkat(f->dirfd, f->base, f->dirfd, backup.ptr, 0) == 0)
			f->backup = mg_buf_detach(&backup, NULL);
		mg_buf_free(&backup);
	}
	if (renameat(f->dirfd, f->tmp, f->dirfd, f->base) < 0)
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
		if (f->backup && renameat(f->dirfd, f->backup, f->dirfd, f->base) < 0) {
			/* the old content survives only in the backup: keep it */
			free(f->backup);
			f->backup = NULL;
		} else if (!f->backup && !f->existed)
			unlinkat(f->dirfd, f->base, 0);
		f->renamed = false;
	}
	if (f->fd >= 0 && f->appended && f->old_size >= 0)
		(void)!ftruncate(f->fd, f->old_size);
	if (f->created)
		f->dirfd >= 0 ? unlinkat(f->dirfd, f->base, 0) : unlink(f->path);
	f->created = f->appended = false;
}

/* Drop temporary files, backups and descriptors (after success or undo). */
static void release(struct file *f)
{
	if (f->tmp)
		unlinkat(f->dirfd, f->tmp, 0);
	if (f->backup)
		unlinkat(f->dirfd, f->backup, 0);
	if (f->fd >= 0)
		close(f->fd);
	if (f->dirfd >= 0)
		close(f->dirfd);
	free(f->tmp);
	free(f->backup);
	f->tmp = f->backup = NULL;
	f->fd = f->dirfd = -1;
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
		if ((replaces(&o->files[i]) ? check_replace(o, &o->files[i], err)
		     : open_append(o, &o->files[i], err)) < 0)
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
	free(o->guards);
	free(o);
}

int mg_outputs_read_existing(char **data, size_t *len, const mg_outputs *o, const char *path,
			     mg_error *err)
{
	struct file probe = { .path = (char *)path, .dirfd = -1 };
	mg_buf b = MG_BUF_INIT;
	char chunk[8192];
	struct stat st;
	ssize_t n;
	int fd = -1, error = MG_OK;

	*data = NULL;
	*len = 0;
	if ((error = open_parent(o, &probe, "read", err)) < 0)
		goto done;
	if (fstatat(probe.dirfd, probe.base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		error = errno == ENOENT ? MG_OK : io_error(&probe, "read", err);
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		error = not_regular(&probe, st.st_mode, err);
		goto done;
	}
	if ((fd = openat(probe.dirfd, probe.base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0) {
		error = errno == ELOOP ? not_regular(&probe, S_IFLNK, err)
			: io_error(&probe, "read", err);
		goto done;
	}
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
	if (fd >= 0)
		close(fd);
	if (probe.dirfd >= 0)
		close(probe.dirfd);
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
