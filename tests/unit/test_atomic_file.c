/*
 * test_atomic_file.c - common/atomic_file.h and common/regular_file.h:
 * complete-or-untouched outputs, permissions, paths that are not regular
 * files, the signal table and the programs' cleanup handler.
 */
/* mknod() and S_IFCHR are XSI. */
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include "unit.h"
#include "scratch_dir.h"
#include "atomic_file.h"
#include "regular_file.h"

static void setup(void)
{
	scratch_dir_make("test_atomic_file");
}

/* How many entries the scratch folder holds. */
static int entries(void)
{
	DIR *d = opendir(scratch_dir);
	ck_assert_ptr_nonnull(d);
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

static void write_text(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fputs(text, fp);
	ck_assert_int_eq(fclose(fp), 0);
}

static char *read_text(const char *path)
{
	static char buf[256];
	FILE *fp = fopen(path, "r");
	ck_assert_ptr_nonnull(fp);
	size_t n = fread(buf, 1, sizeof buf - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

START_TEST(new_file_gets_what_fopen_gives_and_appears_only_at_commit)
{
	mode_t old_mask = umask(027);
	struct atomic_file f;
	const char *path = scratch_path("out");
	ck_assert_int_eq(atomic_file_open(&f, path, 0), 0);
	fputs("hello\n", f.fp);
	ck_assert_int_eq(access(path, F_OK), -1);	/* not there before commit */
	ck_assert_int_eq(entries(), 1);			/* the temporary file */
	ck_assert_int_eq(atomic_file_commit(&f), 0);
	umask(old_mask);
	ck_assert_str_eq(read_text(path), "hello\n");
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0640);
	ck_assert_int_eq(entries(), 1);
}
END_TEST

START_TEST(replacing_keeps_mode_and_abort_keeps_the_old_file)
{
	const char *path = scratch_path("out");
	write_text(path, "old\n");
	ck_assert_int_eq(chmod(path, 0604), 0);
	struct atomic_file f;
	ck_assert_int_eq(atomic_file_open(&f, path, 0), 0);
	fputs("half", f.fp);
	atomic_file_abort(&f);
	ck_assert_str_eq(read_text(path), "old\n");
	ck_assert_int_eq(entries(), 1);
	ck_assert_int_eq(atomic_file_open(&f, path, 0), 0);
	fputs("new\n", f.fp);
	ck_assert_int_eq(atomic_file_commit(&f), 0);
	ck_assert_str_eq(read_text(path), "new\n");
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0604);
	ck_assert_int_eq(entries(), 1);
}
END_TEST

START_TEST(directories_fifos_and_devices_are_never_replaced)
{
	ck_assert_int_eq(mkdir(scratch_path("folder"), 0700), 0);
	ck_assert_int_eq(mkfifo(scratch_path("fifo"), 0600), 0);
	int device = geteuid() == 0 && mknod(scratch_path("null"), S_IFCHR | 0666, makedev(1, 3)) == 0;
	struct atomic_file f;
	errno = 0;
	ck_assert_int_eq(atomic_file_open(&f, scratch_path("folder"), ATOMIC_FILE_WRITE_THROUGH), -1);
	ck_assert_int_eq(errno, EISDIR);
	ck_assert_int_eq(atomic_file_open(&f, scratch_path("fifo"), 0), -1);
	ck_assert_int_eq(errno, EEXIST);
	ck_assert_ptr_nonnull(strstr(atomic_file_strerror(errno), "not a regular file"));
	ck_assert_int_eq(atomic_file_check_target(scratch_path("fifo"), 0), -1);
	ck_assert_int_eq(atomic_file_check_target(scratch_path("fifo"), ATOMIC_FILE_WRITE_THROUGH), 0);
	ck_assert_int_eq(atomic_file_check_target(scratch_path("absent"), 0), 0);
	/* /dev/stdout may lead to a regular file: it is written through, never replaced */
	ck_assert_int_eq(atomic_file_check_target("/dev/stdout", 0), -1);
	ck_assert_int_eq(errno, EEXIST);
	ck_assert_int_eq(atomic_file_check_target("/dev/stdout", ATOMIC_FILE_WRITE_THROUGH), 0);
	ck_assert_int_eq(atomic_file_check_target("/proc/self/fd/1", 0), -1);
	if (device) {
		ck_assert_int_eq(atomic_file_open(&f, scratch_path("null"), 0), -1);
		/* written through: the device stays a device */
		ck_assert_int_eq(atomic_file_open(&f, scratch_path("null"), ATOMIC_FILE_WRITE_THROUGH), 0);
		ck_assert_ptr_null(f.temp);
		fputs("into the void\n", f.fp);
		ck_assert_int_eq(atomic_file_commit(&f), 0);
		struct stat st;
		ck_assert_int_eq(stat(scratch_path("null"), &st), 0);
		ck_assert(S_ISCHR(st.st_mode));
	}
	ck_assert_int_eq(entries(), 2 + device);
}
END_TEST

/* Reads a FIFO to its end, for a writer in this process. */
static void *drain(void *path)
{
	static char got[64];
	FILE *fp = fopen(path, "r");
	if (fp == NULL)
		return NULL;
	size_t n = fread(got, 1, sizeof got - 1, fp);
	got[n] = '\0';
	fclose(fp);
	return got;
}

START_TEST(write_through_fills_a_fifo)
{
	const char *path = scratch_path("fifo");
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	pthread_t reader;
	ck_assert_int_eq(pthread_create(&reader, NULL, drain, (void *)path), 0);
	struct atomic_file f;
	ck_assert_int_eq(atomic_file_open(&f, path, ATOMIC_FILE_WRITE_THROUGH), 0);
	fputs("streamed\n", f.fp);
	ck_assert_int_eq(atomic_file_commit(&f), 0);
	void *got;
	ck_assert_int_eq(pthread_join(reader, &got), 0);
	ck_assert_str_eq(got, "streamed\n");
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
}
END_TEST

START_TEST(a_target_that_became_a_fifo_is_not_renamed_over)
{
	const char *path = scratch_path("out");
	struct atomic_file f;
	ck_assert_int_eq(atomic_file_open(&f, path, 0), 0);
	fputs("data\n", f.fp);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(atomic_file_commit(&f), -1);
	ck_assert_int_eq(errno, EEXIST);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	ck_assert_int_eq(entries(), 1);
}
END_TEST

/* /dev/shm is a tmpfs of ordinary files: written atomically like any folder, not refused. */
START_TEST(dev_shm_holds_ordinary_files)
{
	char dir[] = "/dev/shm/test_atomic_file.XXXXXX";
	ck_assert_msg(mkdtemp(dir) != NULL, "/dev/shm is needed by this test (Linux): %s",
		strerror(errno));
	char path[sizeof dir + 8];
	snprintf(path, sizeof path, "%s/out", dir);
	struct atomic_file f;
	ck_assert_int_eq(atomic_file_check_target(path, 0), 0);
	ck_assert_int_eq(atomic_file_open(&f, path, 0), 0);
	ck_assert_ptr_nonnull(f.temp);
	fputs("new", f.fp);
	ck_assert_int_eq(atomic_file_commit(&f), 0);
	ck_assert_str_eq(read_text(path), "new");
	ck_assert_int_eq(atomic_file_open(&f, path, 0), 0);	/* an existing file: replaced */
	fputs("newer", f.fp);
	ck_assert_int_eq(atomic_file_commit(&f), 0);
	ck_assert_str_eq(read_text(path), "newer");
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(the_signal_table_is_bounded_and_emptied)
{
	struct atomic_file f[ATOMIC_FILE_MAX_OPEN + 1];
	for (int i = 0; i < ATOMIC_FILE_MAX_OPEN; i++)
		ck_assert_int_eq(atomic_file_open(&f[i], scratch_path("out"), 0), 0);
	ck_assert_int_eq(atomic_file_open(&f[ATOMIC_FILE_MAX_OPEN], scratch_path("out"), 0), -1);
	ck_assert_int_eq(errno, EMFILE);
	ck_assert_int_eq(entries(), ATOMIC_FILE_MAX_OPEN);
	atomic_file_remove_temps();
	ck_assert_int_eq(entries(), 0);
	for (int i = 0; i < ATOMIC_FILE_MAX_OPEN; i++)
		atomic_file_abort(&f[i]);
}
END_TEST

/* A child that installs the handler, starts writing path, then gets sig. */
static void die_while_writing(const char *path, int sig)
{
	fflush(NULL);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* as a fresh program would start: the test may run under nohup (SIGHUP ignored) */
		signal(sig, SIG_DFL);
		atomic_file_install_signal_cleanup();
		struct atomic_file f;
		if (atomic_file_open(&f, path, 0) != 0)
			_exit(2);
		fputs("half of it", f.fp);
		fflush(f.fp);
		raise(sig);
		_exit(3);	/* not reached: the handler re-raises the signal */
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == sig,
		"status %#x: not killed by signal %d", status, sig);
}

START_TEST(the_handler_removes_temporaries_and_dies_of_the_signal)
{
	const char *path = scratch_path("out");
	write_text(path, "old\n");
	die_while_writing(path, SIGTERM);
	die_while_writing(path, SIGINT);
	die_while_writing(scratch_path("new"), SIGHUP);
	ck_assert_str_eq(read_text(path), "old\n");
	ck_assert_int_eq(entries(), 1);
}
END_TEST

/* A signal the caller ignores (nohup's SIGHUP) stays ignored: the program goes on. */
START_TEST(an_ignored_signal_stays_ignored)
{
	fflush(NULL);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		signal(SIGHUP, SIG_IGN);
		atomic_file_install_signal_cleanup();
		struct atomic_file f;
		if (atomic_file_open(&f, scratch_path("ignored"), 0) != 0)
			_exit(2);
		fputs("all of it", f.fp);
		raise(SIGHUP);
		_exit(atomic_file_commit(&f) == 0 ? 0 : 4);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		"status %#x: an ignored SIGHUP stopped the program", status);
	ck_assert_str_eq(read_text(scratch_path("ignored")), "all of it");
}
END_TEST

START_TEST(reading_refuses_what_is_not_a_regular_file_without_blocking)
{
	ck_assert_int_eq(mkfifo(scratch_path("fifo"), 0600), 0);
	alarm(10);
	errno = 0;
	ck_assert_int_eq(regular_file_open_read(scratch_path("fifo")), -1);
	ck_assert_int_eq(errno, EINVAL);
	alarm(0);
	ck_assert_ptr_null(regular_file_fopen_read(scratch_dir));
	ck_assert_ptr_null(regular_file_fopen_read(scratch_path("absent")));
	ck_assert_int_eq(errno, ENOENT);
	write_text(scratch_path("plain"), "text\n");
	FILE *fp = regular_file_fopen_read(scratch_path("plain"));
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fcntl(fileno(fp), F_GETFL) & O_NONBLOCK, 0);
	char line[16];
	ck_assert_ptr_nonnull(fgets(line, sizeof line, fp));
	ck_assert_str_eq(line, "text\n");
	fclose(fp);
}
END_TEST

static Suite *atomic_file_suite(void)
{
	Suite *s = suite_create("atomic_file");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, scratch_dir_remove);
	tcase_add_test(tc, new_file_gets_what_fopen_gives_and_appears_only_at_commit);
	tcase_add_test(tc, replacing_keeps_mode_and_abort_keeps_the_old_file);
	tcase_add_test(tc, directories_fifos_and_devices_are_never_replaced);
	tcase_add_test(tc, write_through_fills_a_fifo);
	tcase_add_test(tc, a_target_that_became_a_fifo_is_not_renamed_over);
	tcase_add_test(tc, dev_shm_holds_ordinary_files);
	tcase_add_test(tc, the_signal_table_is_bounded_and_emptied);
	tcase_add_test(tc, the_handler_removes_temporaries_and_dies_of_the_signal);
	tcase_add_test(tc, an_ignored_signal_stays_ignored);
	tcase_add_test(tc, reading_refuses_what_is_not_a_regular_file_without_blocking);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(atomic_file_suite)
