/*
 * regular_file.c - see regular_file.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "regular_file.h"

int regular_file_open_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	struct stat st;
	int error = 0;
	if (fstat(fd, &st) != 0)
		error = errno;
	else if (!S_ISREG(st.st_mode))
		error = EINVAL;
	else {
		/* later reads may block as usual (they do not, on a regular file) */
		int fl = fcntl(fd, F_GETFL);
		if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0)
			error = errno;
	}
	if (error) {
		close(fd);
		errno = error;
		return -1;
	}
	return fd;
}

FILE *regular_file_fopen_read(const char *path)
{
	int fd = regular_file_open_read(path);
	if (fd < 0)
		return NULL;
	FILE *fp = fdopen(fd, "rb");
	if (fp == NULL) {
		int error = errno;
		close(fd);
		errno = error;
	}
	return fp;
}
