/*
 * atomic_file.c - see atomic_file.h.
 */
/* realpath() is an XSI function in glibc's headers. */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "atomic_file.h"

/* A signal handler may only touch lock-free atomics. */
#if ATOMIC_POINTER_LOCK_FREE != 2
#error "atomic_file.c needs lock-free atomic pointers"
#endif

#define SUFFIX_CHARS 6
#define NAME_ATTEMPTS 100

/* The temporary files being written; NULL entries are free. */
static _Atomic(char *) temp_table[ATOMIC_FILE_MAX_OPEN];

static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NR_CLEANUP_SIGNALS ((int)(sizeof cleanup_signals / sizeof cleanup_signals[0]))

static void cleanup_signal_set(sigset_t *set)
{
	sigemptyset(set);
	for (int i = 0; i < NR_CLEANUP_SIGNALS; i++)
		sigaddset(set, cleanup_signals[i]);
}

/*
 * Holds the cleanup signals back while a temporary file is created and
 * registered, or renamed and unregistered, so no handler runs in between.
 */
static void block_cleanup_signals(sigset_t *old)
{
	sigset_t set;
	cleanup_signal_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

static void restore_signals(const sigset_t *old)
{
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

static int register_temp(char *name)
{
	for (int i = 0; i < ATOMIC_FILE_MAX_OPEN; i++) {
		char *expected = NULL;
		if (atomic_compare_exchange_strong(&temp_table[i], &expected, name))
			return i;
	}
	return -1;
}

static void unregister_temp(int slot)
{
	if (slot >= 0)
		atomic_store(&temp_table[slot], NULL);
}

void atomic_file_remove_temps(void)
{
	for (int i = 0; i < ATOMIC_FILE_MAX_OPEN; i++) {
		char *name = atomic_load(&temp_table[i]);
		if (name != NULL)
			unlink(name);
	}
}

static void remove_temps_and_die(int sig)
{
	atomic_file_remove_temps();
	/* SA_RESETHAND restored the default action; the signal is blocked
	 * until this handler returns, and then it ends the process. */
	raise(sig);
}

void atomic_file_install_signal_cleanup(void)
{
	struct sigaction action;
	memset(&action, 0, sizeof action);
	action.sa_handler = remove_temps_and_die;
	action.sa_flags = SA_RESETHAND;
	cleanup_signal_set(&action.sa_mask);	/* a second signal waits for the cleanup */
	for (int i = 0; i < NR_CLEANUP_SIGNALS; i++) {
		struct sigaction old;
		if (sigaction(cleanup_signals[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
			continue;	/* e.g. nohup: whoever ignored it wants it ignored */
		sigaction(cleanup_signals[i], &action, NULL);
	}
}

/*
 * What path is now: 0 absent (*exists = 0) or a regular file; 1 a
 * device, FIFO or socket that the flags let us write through; -1 with
 * errno otherwise.
 */
static int classify_target(const char *path, unsigned flags, struct stat *st, int *exists)
{
	*exists = 0;
	/* /dev/stdout or /proc/self/fd/1 may lead to a regular file: the caller's
	 * open descriptor, which must be written, not replaced by a new file.
	 * /dev/shm/ is the exception: a tmpfs of ordinary files. */
	int special_tree = (strncmp(path, "/dev/", 5) == 0 && strncmp(path, "/dev/shm/", 9) != 0)
		|| strncmp(path, "/proc/", 6) == 0;
	if (stat(path, st) != 0) {
		if (errno != ENOENT)
			return -1;
		if (!special_tree)
			return 0;
		st->st_mode = S_IFCHR;	/* a name to come in /dev or /proc: never a file of ours */
	}
	*exists = 1;
	if (S_ISREG(st->st_mode) && !special_tree)
		return 0;
	errno = S_ISDIR(st->st_mode) ? EISDIR : EEXIST;
	if (!S_ISDIR(st->st_mode) && (flags & ATOMIC_FILE_WRITE_THROUGH))
		return 1;
	return -1;
}

int atomic_file_check_target(const char *path, unsigned flags)
{
	struct stat st;
	int exists;
	return classify_target(path, flags, &st, &exists) < 0 ? -1 : 0;
}

const char *atomic_file_strerror(int error)
{
	if (error == EEXIST)
		return "it exists and is not a regular file (a device, FIFO or socket is never replaced)";
	return strerror(error);
}

/* Six characters that make a fresh name likely; O_EXCL makes it certain. */
static void random_suffix(char *out)
{
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	static _Atomic uint64_t counter;
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	uint64_t x = (uint64_t)now.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (uint64_t)now.tv_sec
		^ (uint64_t)getpid() << 32 ^ atomic_fetch_add(&counter, 1) * 0xbf58476d1ce4e5b9ULL;
	for (int i = 0; i < SUFFIX_CHARS; i++) {
		x ^= x >> 31;
		x *= 0x94d049bb133111ebULL;
		x ^= x >> 29;
		out[i] = alphabet[x % (sizeof alphabet - 1)];
	}
}

/*
 * Creates and registers f->target.XXXXXX (mode: keep_mode when set,
 * else what the umask leaves of 0666, as fopen gives). 0, or -1 with errno.
 */
static int create_temp(struct atomic_file *f, int keep_mode, mode_t mode)
{
	size_t len = strlen(f->target);
	f->temp = malloc(len + 1 + SUFFIX_CHARS + 1);
	if (f->temp == NULL)
		return -1;
	memcpy(f->temp, f->target, len);
	f->temp[len] = '.';
	f->temp[len + 1 + SUFFIX_CHARS] = '\0';
	int fd = -1, error = EEXIST;
	for (int attempt = 0; attempt < NAME_ATTEMPTS && fd < 0 && error == EEXIST; attempt++) {
		random_suffix(f->temp + len + 1);
		sigset_t old;
		block_cleanup_signals(&old);
		/* with a mode to set, none wider than 0600 in between (a scratch file stays private) */
		fd = open(f->temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, keep_mode ? 0600 : 0666);
		error = errno;
		if (fd >= 0 && (f->slot = register_temp(f->temp)) < 0) {
			unlink(f->temp);
			close(fd);
			fd = -1;
			error = EMFILE;
		}
		restore_signals(&old);
	}
	if (fd >= 0 && keep_mode && fchmod(fd, mode) != 0)
		error = errno;
	else if (fd >= 0 && (f->fp = fdopen(fd, "w")) == NULL)
		error = errno;
	else if (fd >= 0)
		return 0;
	if (fd >= 0) {
		close(fd);
		atomic_file_abort(f);
	}
	errno = error;
	return -1;
}

static void release(struct atomic_file *f)
{
	free(f->target);
	free(f->temp);
	*f = (struct atomic_file){ .slot = -1 };
}

int atomic_file_open(struct atomic_file *f, const char *path, unsigned flags)
{
	*f = (struct atomic_file){ .slot = -1 };
	struct stat st;
	int exists;
	int kind = classify_target(path, flags, &st, &exists);
	if (kind < 0)
		return -1;
	if (kind == 1) {
		f->fp = fopen(path, "w");
		return f->fp != NULL ? 0 : -1;
	}
	/* An existing file is replaced where it really is, so a link stays a link. */
	f->target = exists ? realpath(path, NULL) : strdup(path);
	if (f->target == NULL)
		return -1;
	if (create_temp(f, exists, st.st_mode & 07777) != 0) {
		int error = errno;
		release(f);
		errno = error;
		return -1;
	}
	return 0;
}

int atomic_file_scratch(struct atomic_file *f, const char *prefix)
{
	*f = (struct atomic_file){ .slot = -1 };
	f->target = strdup(prefix);
	if (f->target == NULL)
		return -1;
	if (create_temp(f, 1, 0600) != 0) {
		int error = errno;
		release(f);
		errno = error;
		return -1;
	}
	return 0;
}

int atomic_file_commit(struct atomic_file *f)
{
	int error = 0;
	if (fflush(f->fp) != 0)
		error = errno;
	else if (ferror(f->fp))
		error = EIO;
	if (!error && f->temp != NULL && fsync(fileno(f->fp)) != 0)
		error = errno;
	if (fclose(f->fp) != 0 && !error)
		error = errno;
	f->fp = NULL;
	if (f->temp != NULL) {
		/* The target may have changed since open; never rename over a non-file. */
		struct stat st;
		int exists;
		if (!error && classify_target(f->target, 0, &st, &exists) < 0)
			error = errno;
		sigset_t old;
		block_cleanup_signals(&old);
		if (!error && rename(f->temp, f->target) != 0)
			error = errno;
		if (error)
			unlink(f->temp);
		unregister_temp(f->slot);
		restore_signals(&old);
	}
	release(f);
	errno = error;
	return error ? -1 : 0;
}

void atomic_file_abort(struct atomic_file *f)
{
	int error = errno;
	if (f->fp != NULL)
		fclose(f->fp);
	if (f->temp != NULL) {
		sigset_t old;
		block_cleanup_signals(&old);
		unlink(f->temp);
		unregister_temp(f->slot);
		restore_signals(&old);
	}
	release(f);
	errno = error;
}
