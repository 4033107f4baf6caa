/*
 * regular_file.h - opening an input file that must be a regular file,
 * without blocking on what is not one.
 *
 * Contract. regular_file_open_read(path) opens path for reading with
 * O_NONBLOCK (so a FIFO nobody writes to, or a device that waits, cannot
 * hang the open), then checks the opened descriptor with fstat: anything
 * but a regular file is closed again and refused with errno EINVAL (there
 * is no window between the check and the use: both are on one open
 * file). On success it returns a blocking descriptor (O_NONBLOCK
 * cleared), else -1 with errno set. regular_file_fopen_read does the same
 * and returns a FILE * ("rb"), or NULL. Nothing is printed.
 */
#ifndef REGULAR_FILE_H
#define REGULAR_FILE_H

#include <stdio.h>

int regular_file_open_read(const char *path);
FILE *regular_file_fopen_read(const char *path);

#endif /* REGULAR_FILE_H */
