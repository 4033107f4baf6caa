/*
 * test_model_size.c - load_model never allocates more than its input can
 * fill (issue 18): a model file of a few hundred bytes whose header claims
 * nr_feature 2000000000 (or nr_class 2000000000) is refused with a clear
 * message, from a regular file before anything is allocated, from a pipe
 * after reading what the pipe delivered.
 *
 * Proof that no big allocation happens: each check runs in a child process
 * whose address space is limited (RLIMIT_AS) to what it already uses plus
 * 256 MB. An allocation of the claimed size (16 GB and more) fails there,
 * so code that tried it would report "out of memory" instead of the
 * expected message, and the test fails. Valid models load under the same
 * limit, so the limit itself does not decide the result.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "unit.h"
#include "api_fixtures.h"
#include "linear.h"

#define HEADROOM_BYTES (256L << 20)

/* The child's verdict: 0, or the line number of the first failed check. */
static FILE *diag;

#define EXPECT(cond, ...) do { \
	if (!(cond)) { \
		fprintf(diag, "line %d: ", __LINE__); \
		fprintf(diag, __VA_ARGS__); \
		fputc('\n', diag); \
		return __LINE__; \
	} \
} while (0)

/* Caps the address space at what the process maps now plus HEADROOM_BYTES. */
static int limit_address_space(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0;
	if (f == NULL)
		return -1;
	int got = fscanf(f, "%ld", &pages);
	fclose(f);
	if (got != 1 || pages <= 0)
		return -1;
	rlim_t cap = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + HEADROOM_BYTES;
	struct rlimit r = { cap, cap };
	return setrlimit(RLIMIT_AS, &r);
}

/* stderr of the child goes to a file, read back after each load. */
static int err_fd = -1;
static char err_text[4096];

static void err_reset(void)
{
	fflush(stderr);
	if (ftruncate(err_fd, 0) != 0 || lseek(err_fd, 0, SEEK_SET) != 0)
		err_text[0] = '\0';
}

static const char *err_read(void)
{
	fflush(stderr);
	ssize_t n = pread(err_fd, err_text, sizeof err_text - 1, 0);
	err_text[n > 0 ? n : 0] = '\0';
	return err_text;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
}

/* Runs body in a child under the address-space cap; fails the test with the child's note. */
static void run_limited(int (*body)(const char *dir), const char *dir)
{
	char diag_path[512], err_path[512];
	snprintf(diag_path, sizeof diag_path, "%s/diag", dir);
	snprintf(err_path, sizeof err_path, "%s/stderr", dir);
	fflush(NULL);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		diag = fopen(diag_path, "w");
		err_fd = open(err_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (diag == NULL || err_fd < 0 || dup2(err_fd, STDERR_FILENO) < 0)
			_exit(200);
		if (limit_address_space() != 0) {
			fprintf(diag, "cannot limit the address space\n");
			fclose(diag);
			_exit(201);
		}
		int status = body(dir);
		fclose(diag);
		_exit(status == 0 ? 0 : 1);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	char *note = slurp(diag_path);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		"child status %d: %s", status, note ? note : "(no note)");
	free(note);
}

#define LR_HEADER "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\n"

/* 100 lines of "0.5 \n": a few hundred bytes of weights. */
static char *with_weights(const char *header, int lines)
{
	size_t len = strlen(header);
	char *text = malloc(len + (size_t)lines * 5 + 1);
	if (text == NULL)
		return NULL;
	memcpy(text, header, len);
	for (int i = 0; i < lines; i++)
		memcpy(text + len + (size_t)i * 5, "0.5 \n", 5);
	text[len + (size_t)lines * 5] = '\0';
	return text;
}

static int refused_with(const char *path, const char *expected)
{
	err_reset();
	struct model *m = load_model(path);
	const char *err = err_read();
	EXPECT(m == NULL, "%s loaded", path);
	EXPECT(strstr(err, expected) != NULL, "want \"%s\", got \"%s\"", expected, err);
	return 0;
}

static int regular_files(const char *dir)
{
	char path[512];
	snprintf(path, sizeof path, "%s/m.model", dir);
	int failed;

	/* a valid model loads under the cap */
	write_file(path, LR_HEADER "nr_feature 3\nbias -1\nw\n0.5 \n-1 \n2 \n");
	struct model *m = load_model(path);
	EXPECT(m != NULL && m->w[0] == 0.5 && m->w[1] == -1 && m->w[2] == 2, "valid model refused");
	free_and_destroy_model(&m);

	/* n values in exactly 2n - 1 bytes load; one more claimed is refused */
	write_file(path, LR_HEADER "nr_feature 3\nbias -1\nw\n1 2 3");
	m = load_model(path);
	EXPECT(m != NULL && m->w[2] == 3, "3 weights in 5 bytes refused");
	free_and_destroy_model(&m);
	write_file(path, LR_HEADER "nr_feature 4\nbias -1\nw\n1 2 3 ");
	if ((failed = refused_with(path, "ERROR: model file too short: its header claims 4 weights, "
		"but the 6 bytes left can hold at most 3\n")) != 0)
		return failed;

	/* nr_feature 2000000000: 16 GB of weights claimed by a few hundred bytes */
	char *text = with_weights(LR_HEADER "nr_feature 2000000000\nbias -1\nw\n", 100);
	EXPECT(text != NULL, "out of memory in the test");
	write_file(path, text);
	free(text);
	if ((failed = refused_with(path, "its header claims 2000000000 weights, but the 500 bytes "
		"left can hold at most 250\n")) != 0)
		return failed;

	/* with a bias row and many classes: (nr_feature + 1) * nr_class weights */
	text = with_weights("solver_type MCSVM_CS\nnr_class 3\nlabel 1 2 3\n"
		"nr_feature 2147483647\nbias 1\nw\n", 100);
	EXPECT(text != NULL, "out of memory in the test");
	write_file(path, text);
	free(text);
	if ((failed = refused_with(path, "its header claims 6442450944 weights")) != 0)
		return failed;

	/* nr_class 2000000000: 8 GB of labels claimed before any weight */
	write_file(path, "solver_type MCSVM_CS\nnr_class 2000000000\nlabel 1 2 3\n"
		"nr_feature 2000000000\nbias -1\nw\n1 2 3\n");
	return refused_with(path, "its header claims 2000000000 labels");
}

/* A writer process feeds text into the FIFO at path; returns its pid. */
static pid_t feed_fifo(const char *path, const char *text)
{
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGPIPE, SIG_IGN);	/* the reader may stop early */
		int fd = open(path, O_WRONLY);
		if (fd < 0)
			_exit(1);
		size_t len = strlen(text), done = 0;
		while (done < len) {
			ssize_t n = write(fd, text + done, len - done);
			if (n <= 0)
				break;
			done += (size_t)n;
		}
		close(fd);
		_exit(0);
	}
	return pid;
}

static struct model *load_through_fifo(const char *path, const char *text)
{
	unlink(path);
	if (mkfifo(path, 0600) != 0)
		return NULL;
	pid_t writer = feed_fifo(path, text);
	err_reset();
	struct model *m = writer > 0 ? load_model(path) : NULL;
	if (writer > 0)
		waitpid(writer, NULL, 0);
	err_read();
	return m;
}

static int pipes(const char *dir)
{
	char path[512];
	snprintf(path, sizeof path, "%s/fifo.model", dir);

	struct model *m = load_through_fifo(path, LR_HEADER "nr_feature 3\nbias -1\nw\n0.5 \n-1 \n2 \n");
	EXPECT(m != NULL && m->w[0] == 0.5 && m->w[1] == -1 && m->w[2] == 2,
		"valid model refused from a pipe: %s", err_text);
	free_and_destroy_model(&m);

	/* the claim cannot be checked in advance; memory follows what arrives */
	char *text = with_weights(LR_HEADER "nr_feature 2000000000\nbias -1\nw\n", 20000);
	EXPECT(text != NULL, "out of memory in the test");
	m = load_through_fifo(path, text);
	free(text);
	EXPECT(m == NULL, "a short model loaded from a pipe");
	EXPECT(strcmp(err_text, "ERROR: fscanf failed to read the model\n") == 0,
		"pipe, 2000000000 weights: got \"%s\"", err_text);

	m = load_through_fifo(path, "solver_type MCSVM_CS\nnr_class 2000000000\nlabel 1 2 3\n");
	EXPECT(m == NULL, "a short label line loaded from a pipe");
	EXPECT(strcmp(err_text, "ERROR: fscanf failed to read the model\n") == 0,
		"pipe, 2000000000 labels: got \"%s\"", err_text);
	return 0;
}

START_TEST(regular_file_claims_beyond_its_size_are_refused_before_allocating)
{
	run_limited(regular_files, scratch_dir());
}
END_TEST

START_TEST(pipe_claims_allocate_only_what_arrives)
{
	run_limited(pipes, scratch_dir());
}
END_TEST

static Suite *model_size_suite(void)
{
	Suite *s = suite_create("model_size");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, regular_file_claims_beyond_its_size_are_refused_before_allocating);
	tcase_add_test(tc, pipe_claims_allocate_only_what_arrives);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(model_size_suite)
