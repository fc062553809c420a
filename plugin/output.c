/* Atomic output files: see include/memgate/output.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "memgate/buf.h"
#include "memgate/output.h"

struct file {
	char *path;
	char *tmp;      /* the temporary file, once created */
	mg_buf data;
	bool append;
};

struct mg_outputs {
	struct file *files;
	size_t count;
};

mg_outputs *mg_outputs_new(void)
{
	return mg_xcalloc(1, sizeof(mg_outputs));
}

void mg_outputs_add(mg_outputs *o, const char *path, const char *data, size_t len,
		    bool append)
{
	struct file *f;

	o->files = mg_xrealloc(o->files, (o->count + 1) * sizeof(*o->files));
	f = &o->files[o->count++];
	f->path = mg_xstrdup(path);
	f->tmp = NULL;
	f->append = append;
	mg_buf_init(&f->data);
	mg_buf_put(&f->data, data, len);
}

/* Append the current content of an existing file in front of the new data. */
static int prepend_existing(struct file *f, mg_error *err)
{
	mg_buf old = MG_BUF_INIT;
	char chunk[8192];
	size_t n;
	FILE *in = fopen(f->path, "rb");

	if (!in)
		return errno == ENOENT ? MG_OK :
			mg_error_set(err, f->path, 0, 0, "cannot read: %s", strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), in)) > 0)
		mg_buf_put(&old, chunk, n);
	fclose(in);
	mg_buf_put(&old, f->data.ptr, f->data.len);
	mg_buf_free(&f->data);
	f->data = old;
	return MG_OK;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* mkstemp makes 0600 files: give the new file the mode the target has, or
 * the one a plain fopen would give it (0666 less the umask). */
static void set_mode(const struct file *f, int fd)
{
	struct stat st;
	mode_t mask;

	if (stat(f->path, &st) == 0) {
		fchmod(fd, st.st_mode & 07777);
		return;
	}
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
}

/* Write f's data to a new temporary file beside f->path. */
static int write_temp(struct file *f, mg_error *err)
{
	mg_buf tmp = MG_BUF_INIT;
	int fd, error = MG_OK;

	if (f->append && prepend_existing(f, err) < 0)
		return MG_ERROR;
	mg_buf_printf(&tmp, "%s.tmp.XXXXXX", f->path);
	f->tmp = mg_buf_detach(&tmp, NULL);
	if ((fd = mkstemp(f->tmp)) < 0) {
		error = mg_error_set(err, f->path, 0, 0, "cannot write: %s", strerror(errno));
		free(f->tmp);
		f->tmp = NULL;
		return error;
	}
	set_mode(f, fd);
	if (write_all(fd, f->data.ptr, f->data.len) < 0 || fsync(fd) < 0)
		error = mg_error_set(err, f->path, 0, 0, "cannot write: %s", strerror(errno));
	if (close(fd) < 0 && !error)
		error = mg_error_set(err, f->path, 0, 0, "cannot write: %s", strerror(errno));
	return error;
}

static void remove_temps(mg_outputs *o)
{
	size_t i;

	for (i = 0; i < o->count; i++) {
		if (o->files[i].tmp)
			unlink(o->files[i].tmp);
		free(o->files[i].tmp);
		o->files[i].tmp = NULL;
	}
}

int mg_outputs_commit(mg_outputs *o, mg_error *err)
{
	size_t i;

	for (i = 0; i < o->count; i++) {
		if (write_temp(&o->files[i], err) < 0) {
			remove_temps(o);
			return MG_ERROR;
		}
	}
	for (i = 0; i < o->count; i++) {
		struct file *f = &o->files[i];

		if (rename(f->tmp, f->path) < 0) {
			mg_error_set(err, f->path, 0, 0, "cannot write: %s", strerror(errno));
			remove_temps(o);
			return MG_ERROR;
		}
		free(f->tmp);
		f->tmp = NULL;
	}
	return MG_OK;
}

void mg_outputs_free(mg_outputs *o)
{
	size_t i;

	if (!o)
		return;
	remove_temps(o);
	for (i = 0; i < o->count; i++) {
		free(o->files[i].path);
		mg_buf_free(&o->files[i].data);
	}
	free(o->files);
	free(o);
}
