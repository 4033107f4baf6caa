/*
 * slow_fsync.c - an LD_PRELOAD shim for tests/oracle/test_hostile_files.py:
 * fsync waits SLOW_FSYNC_S seconds (default 5) before syncing, so a test
 * can send a signal while a program holds a complete temporary file that
 * it has not yet renamed. The programs themselves have no test hook.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

int fsync(int fd)
{
	static int (*real_fsync)(int);
	if (real_fsync == NULL)
		real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	const char *wait = getenv("SLOW_FSYNC_S");
	sleep(wait != NULL ? (unsigned)atoi(wait) : 5);
	return real_fsync(fd);
}
