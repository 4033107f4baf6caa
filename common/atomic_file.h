/*
 * atomic_file.h - writing an output file so that it ends up either
 * complete or untouched, and never replacing what is not a regular file.
 *
 * Contract.
 * atomic_file_open(f, path, flags) prepares to write path:
 *  - path does not exist, or is a regular file (through symbolic links:
 *    the file a link names is replaced and the link kept): a new file
 *    NAME.XXXXXX (six random characters) is created beside the target,
 *    with the permissions the target would get from fopen(path, "w") (an
 *    existing file's mode; else 0666 less the umask), and registered for
 *    removal on a signal (below). f->fp writes into it.
 *    atomic_file_commit flushes, fsyncs and closes it, checks that the
 *    target is still absent or a regular file, and renames it over the
 *    target; on any failure the temporary file is removed.
 *  - path exists and is neither a regular file nor a directory (a
 *    device, a FIFO, a socket): with ATOMIC_FILE_WRITE_THROUGH it is
 *    opened with fopen(path, "w") and written directly, as upstream
 *    LIBLINEAR writes every file (opening a FIFO waits for a reader);
 *    without the flag it is refused with errno EEXIST. Such a path is
 *    never renamed over and never deleted.
 *    Every path under /dev/ (but /dev/shm/, a tmpfs of ordinary files)
 *    or /proc/ counts as such a path, whatever it leads to: /dev/stdout
 *    redirected to a file is written through its descriptor, never
 *    replaced by a new file.
 *  - a directory is refused with errno EISDIR.
 * When open fails, nothing has been created. atomic_file_abort closes
 * and removes the temporary file (a write-through path is just closed).
 * After commit or abort, f holds nothing; each must be called once for
 * every successful open. Functions return 0, or -1 with errno set, and
 * print nothing; atomic_file_strerror(errno) says why in words.
 *
 * Signals. The names of all temporary files being written are kept in a
 * fixed table (ATOMIC_FILE_MAX_OPEN entries; one more open fails with
 * EMFILE) that a signal handler can read. atomic_file_remove_temps()
 * unlinks them all and is async-signal-safe.
 * atomic_file_install_signal_cleanup() is for programs (the library
 * never installs a handler): on SIGINT, SIGTERM or SIGHUP it removes the
 * temporary files, then dies of the same signal (default action), so the
 * exit status still says which. A signal ignored when it is called stays
 * ignored. SIGKILL cannot be caught: kill -9 can leave NAME.XXXXXX.
 * Opening and committing block those signals for a moment, so a
 * temporary file is either registered or does not exist.
 */
#ifndef ATOMIC_FILE_H
#define ATOMIC_FILE_H

#include <stdio.h>

#define ATOMIC_FILE_MAX_OPEN 16

/* Write into an existing device, FIFO or socket instead of refusing it. */
#define ATOMIC_FILE_WRITE_THROUGH 1u

struct atomic_file {
	FILE *fp;		/* where to write */
	char *target;		/* the path renamed over (symbolic links resolved) */
	char *temp;		/* the temporary file; NULL when writing through */
	int slot;		/* its entry in the signal table, or -1 */
};

int atomic_file_open(struct atomic_file *f, const char *path, unsigned flags);

/*
 * A scratch file of the process's own (train -k spools a pipe there):
 * PREFIX.XXXXXX created with mode 0600, written through f->fp, registered
 * for removal on a signal as above; atomic_file_abort removes it (it is
 * never committed). 0, or -1 with errno set.
 */
int atomic_file_scratch(struct atomic_file *f, const char *prefix);
int atomic_file_commit(struct atomic_file *f);
void atomic_file_abort(struct atomic_file *f);

/*
 * Whether atomic_file_open(path, flags) would accept path as it is now:
 * 0, or -1 with errno EISDIR, EEXIST (not a regular file) or stat's.
 * For checking every output path before long work starts.
 */
int atomic_file_check_target(const char *path, unsigned flags);

/* strerror, with EEXIST read as this module's "exists and is not a regular file". */
const char *atomic_file_strerror(int error);

void atomic_file_remove_temps(void);
void atomic_file_install_signal_cleanup(void);

#endif /* ATOMIC_FILE_H */
