/*
 * maxrss FILE COMMAND [ARGS...]: run COMMAND, write its peak resident set
 * size in KiB to FILE, and exit with its exit status (128 + N when killed
 * by signal N), for the end-to-end tests that check what an input costs in
 * memory (without needing GNU time or python on a bare Debian).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	pid_t pid;
	int status;
	FILE *out;

	if (argc < 3) {
		fputs("usage: maxrss FILE COMMAND [ARGS...]\n", stderr);
		return 2;
	}
	if ((pid = fork()) < 0) {
		perror("maxrss: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror("maxrss: exec");
		_exit(127);
	}
	/* waitpid + RUSAGE_CHILDREN (POSIX) rather than wait4: the only child
	 * waited for is COMMAND. */
	if (waitpid(pid, &status, 0) < 0 || getrusage(RUSAGE_CHILDREN, &ru) < 0) {
		perror("maxrss: waitpid");
		return 2;
	}
	if (!(out = fopen(argv[1], "w"))) {
		perror("maxrss: output");
		return 2;
	}
	fprintf(out, "%ld\n", ru.ru_maxrss);
	fclose(out);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
