/*
 * Run a command N times and print its median wall time and peak RSS, as a
 * whole process: what a CI job pays for it.
 *
 *   measure N OUT COMMAND [ARGS...]
 *
 * Each run is a fork and exec with stdout sent to OUT (use /dev/null, or a
 * file to look at), stderr to /dev/null.  Wall time is CLOCK_MONOTONIC
 * from before the fork to after the wait; peak RSS is the child's
 * ru_maxrss from wait4, the figure GNU time prints for %M.  Prints one line:
 *
 *   median_us min_us max_us peak_rss_kib exit_code median_cpu_us
 *
 * (the RSS and exit code of the median run; the median of the runs' CPU
 * time, user plus system, which a loaded machine disturbs less).  Exits 1 when a run was
 * killed by a signal or could not be started.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct sample {
	long long us;
	long long cpu_us;
	long rss_kib;
	int code;
};

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int cmp(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	return (x->us > y->us) - (x->us < y->us);
}

/* One run; 0, or -1 when it could not run or died of a signal. */
static int run_once(struct sample *s, const char *out, char **argv)
{
	struct rusage ru;
	long long t0 = now_us();
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open("/dev/null", O_WRONLY);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) != pid)
		return -1;
	s->us = now_us() - t0;
	s->rss_kib = ru.ru_maxrss;
	s->cpu_us = (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
		    ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
	if (!WIFEXITED(status))
		return -1;
	s->code = WEXITSTATUS(status);
	return s->code == 127 ? -1 : 0;
}

static int cmp_cpu(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;

	return (x->cpu_us > y->cpu_us) - (x->cpu_us < y->cpu_us);
}

int main(int argc, char **argv)
{
	struct sample *s;
	long long cpu;
	int n, i;

	if (argc < 4 || (n = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: measure N OUT COMMAND [ARGS...]\n");
		return 2;
	}
	s = calloc((size_t)n, sizeof(*s));
	if (!s)
		return 1;
	for (i = 0; i < n; i++)
		if (run_once(&s[i], argv[2], argv + 3) < 0) {
			fprintf(stderr, "measure: '%s' did not run to completion\n", argv[3]);
			return 1;
		}
	qsort(s, (size_t)n, sizeof(*s), cmp_cpu);
	cpu = s[(n - 1) / 2].cpu_us;
	qsort(s, (size_t)n, sizeof(*s), cmp);
	printf("%lld %lld %lld %ld %d %lld\n", s[(n - 1) / 2].us, s[0].us, s[n - 1].us,
	       s[(n - 1) / 2].rss_kib, s[(n - 1) / 2].code, cpu);
	free(s);
	return 0;
}
