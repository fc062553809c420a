/*
 * Replay a fuzz target's corpus without libFuzzer: a main() that calls the
 * target's LLVMFuzzerTestOneInput once on each file named on the command
 * line, or on each file of each directory named, in byte order.  No
 * mutation and no randomness, so `make test` runs the same inputs every
 * time; built with the project's own compiler and flags (and sanitizers
 * under `make asan`).  Random fuzzing is `make fuzz-random`.
 *
 *   build/fuzz/replay_policy fixtures/fuzz-corpus/policy
 *
 * A target reports a broken invariant by trapping, so a bad input ends
 * this program with a signal; the name of the input is printed first.
 * Prints "replay_<target>: N inputs" and exits 0 when all ran; exits 2 on
 * an argument it cannot read.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Run the target on the file at `path`; 0 on success, -1 when it cannot be read. */
static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	long len;
	int error = -1;

	if (!f)
		goto done;
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
		goto done;
	/* One byte more, so that an empty input is still a valid pointer. */
	if (!(data = malloc((size_t)len + 1)))
		goto done;
	if (fread(data, 1, (size_t)len, f) != (size_t)len)
		goto done;
	fprintf(stderr, "replay: %s\n", path);
	LLVMFuzzerTestOneInput(data, (size_t)len);
	error = 0;
done:
	if (error < 0)
		fprintf(stderr, "replay: cannot read '%s'\n", path);
	free(data);
	if (f)
		fclose(f);
	return error;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Run the target on each regular file of directory `dir`, in byte order of
 * their names; adds their number to *count.  0 on success, -1 on failure. */
static int replay_dir(const char *dir, size_t *count)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL, path[4096];
	size_t n = 0, cap = 0, i;
	int error = -1;

	if (!d) {
		fprintf(stderr, "replay: cannot open '%s'\n", dir);
		goto done;
	}
	while ((de = readdir(d)) != NULL) {
		char **grown;

		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			if (!(grown = realloc(names, cap * sizeof(*names))))
				goto done;
			names = grown;
		}
		if (!(names[n] = strdup(de->d_name)))
			goto done;
		n++;
	}
	qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (replay_file(path) < 0)
			goto done;
		(*count)++;
	}
	error = 0;
done:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (d)
		closedir(d);
	return error;
}

int main(int argc, char **argv)
{
	const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	size_t count = 0;
	struct stat st;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", name);
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			if (replay_dir(argv[i], &count) < 0)
				return 2;
		} else {
			if (replay_file(argv[i]) < 0)
				return 2;
			count++;
		}
	}
	printf("%s: %zu inputs\n", name, count);
	return 0;
}
