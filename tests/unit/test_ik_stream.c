/*
 * test_ik_stream.c - train -k's streaming read (tools/ik_stream.h) against
 * the in-memory path (the whole file read by libsvm_data_read, then
 * lik_train): the same .ik bytes and the same model file, for every
 * kernel, -S 0..4, -a w, a bias, and inputs from a file and from a FIFO;
 * the scratch file of a FIFO removed; a file that changes between the
 * passes refused with its line named. And train -C -k's search over the
 * file in passes (tools/ik_search_stream.h) against lik_search on the rows
 * read whole: the same table (every row's psi, C, p, score and folds, the
 * choice and the note), the same -W 1 model pair, the same -E 1 sweep.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "unit.h"
#include "scratch_dir.h"
#include "ik_search_stream.h"
#include "ik_stream.h"
#include "lik_fixtures.h"
#include "lik_internal.h"
#include "reader.h"

/* A deterministic generator (splitmix64), so that every run writes the same files. */
static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * rows LIBSVM rows of up to d features, about half of them set, some
 * explicit zeros, negative values unless nonnegative, 3 classes; a few
 * rows with no feature at all.
 */
static void write_data(const char *path, int rows, int d, int nonnegative, uint64_t seed)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	uint64_t s = seed;
	for (int i = 0; i < rows; i++) {
		fprintf(f, "%d", (int)(mix(&s) % 3));
		if (mix(&s) % 50 != 0)
			for (int j = 1; j <= d; j++) {
				uint64_t r = mix(&s);
				if (r % 2)
					continue;
				double v = (double)(r >> 11) / 9007199254740992.0 * 10;
				if (r % 7 == 0)
					v = 0;
				else if (!nonnegative && r % 3 == 0)
					v = -v;
				fprintf(f, " %d:%.17g", j, v);
			}
		fputc('\n', f);
	}
	ck_assert_int_eq(fclose(f), 0);
}

/* The in-memory path: the file read whole, lik_train, saved as dir/m.model. */
static void train_in_memory(const char *data, const struct lik_map_params *k, double bias,
	const struct parameter *param, const char *model)
{
	struct libsvm_reader *r = libsvm_reader_open(data);
	ck_assert_ptr_nonnull(r);
	struct libsvm_data *d = libsvm_data_read(r, -1);
	ck_assert_ptr_nonnull(d);
	libsvm_reader_close(r);
	struct problem prob = d->prob;
	prob.bias = bias;
	prob.n = d->max_index + (bias >= 0 ? 1 : 0);
	struct lik_error err;
	struct lik_model *m = lik_train(&prob, param, k, &err);
	ck_assert_msg(m != NULL, "%s", err.message);
	ck_assert_int_eq(lik_model_save(model, m, &err), 0);
	lik_model_free(&m);
	libsvm_data_free(d);
}

/* The streaming path, as train -k runs it. */
static void train_streamed(const char *data, const struct lik_map_params *k, double bias,
	const struct parameter *param, const char *model)
{
	struct ik_stream s;
	ck_assert_int_eq(ik_stream_begin(data, k, NULL, &s), 0);
	ck_assert_int_eq(ik_stream_finish(&s, bias), 0);
	struct lik_error err;
	struct lik_model *m = lik_train_cells(&s.X, s.y, bias, param, lik_map_share(s.map), &err);
	ck_assert_msg(m != NULL, "%s", err.message);
	ck_assert_int_eq(lik_model_save(model, m, &err), 0);
	lik_model_free(&m);
	ik_stream_free(&s);
}

/* The bytes of path; *size set. */
static char *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);
	ck_assert_int_ge(n, 0);
	rewind(f);
	char *b = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*size = (size_t)n;
	return b;
}

static void assert_same_file(const char *a, const char *b)
{
	size_t na, nb;
	char *x = slurp(a, &na), *y = slurp(b, &nb);
	ck_assert_msg(na == nb && memcmp(x, y, na) == 0, "%s and %s differ", a, b);
	free(x);
	free(y);
}

struct config {
	int kernel, t, psi, scale, solver;
	double raw, bias;
};

static const struct config configs[] = {
	{ LIK_KERNEL_ANNE, 20, 16, 1, 1, 0, -1 },
	{ LIK_KERNEL_ANNE, 20, 16, 0, 2, 0, 1 },
	{ LIK_KERNEL_ANNE, 20, 16, 2, 1, 0, -1 },
	{ LIK_KERNEL_ANNE, 20, 16, 3, 1, 0.5, 1 },
	{ LIK_KERNEL_ANNE, 13, 7, 4, 0, 0, -1 },
	{ LIK_KERNEL_IFOREST, 20, 16, 1, 1, 0, -1 },
	{ LIK_KERNEL_IFOREST, 20, 16, 2, 4, 0.3, 1 },
	{ LIK_KERNEL_IFOREST, 20, 8, 4, 1, 0, -1 },
	{ LIK_KERNEL_MINMAX, 30, 16, 2, 1, 0, -1 },
	{ LIK_KERNEL_MINMAX, 30, 16, 3, 2, 1, 1 },
	{ LIK_KERNEL_ACOS, 30, 0, 0, 1, 0, -1 },
	{ LIK_KERNEL_ACOS, 30, 0, 2, 1, 0.7, -1 },
	{ LIK_KERNEL_ACOS, 30, 0, 3, 21, 0, -1 },
};

/* Whether a config refuses negative values (-S 4, minmax but under -S 2). */
static int wants_nonnegative(const struct config *c)
{
	return c->scale == 4 || (c->kernel == LIK_KERNEL_MINMAX && c->scale != 2);
}

static struct lik_map_params params_of(const struct config *c)
{
	struct lik_map_params k;
	lik_map_params_default(&k, c->kernel);
	k.t = c->t;
	k.psi = c->psi;
	k.scale = c->scale;
	k.raw_weight = c->raw;
	k.seed = 7;
	k.device = LIK_DEVICE_CPU;
	return k;
}

/* mem/m.model and stream/m.model: one name in both folders (the model's trailer names its .ik). */
static void two_model_paths(char *a, char *b, size_t size)
{
	/* not scratch_path: its rotating buffers hold the caller's data path */
	snprintf(a, size, "%s/mem", scratch_dir);
	snprintf(b, size, "%s/stream", scratch_dir);
	ck_assert_int_eq(mkdir(a, 0700), 0);
	ck_assert_int_eq(mkdir(b, 0700), 0);
	strcat(a, "/m.model");
	strcat(b, "/m.model");
}

/* Two model pairs (MODEL and MODEL.ik) byte for byte; a and b get ".ik" appended. */
static void assert_same_pair(char *a, char *b)
{
	assert_same_file(a, b);
	strcat(a, ".ik");
	strcat(b, ".ik");
	assert_same_file(a, b);
}

static void check_config(const struct config *c, const char *data)
{
	struct lik_map_params k = params_of(c);
	struct parameter p = default_param(c->solver);
	char a[200], b[200];
	two_model_paths(a, b, sizeof a);
	train_in_memory(data, &k, c->bias, &p, a);
	train_streamed(data, &k, c->bias, &p, b);
	assert_same_pair(a, b);
}

static void quiet(const char *s)
{
	(void)s;
}

START_TEST(stream_gives_the_in_memory_files)
{
	const struct config *c = &configs[_i];
	lik_set_print_string_function(quiet);
	scratch_dir_make("ik_stream");
	const char *data = scratch_path("data");
	/* more rows than a batch of the last pass (1024), so that batches join */
	write_data(data, 2500, 12, wants_nonnegative(c), 100 + (uint64_t)_i);
	check_config(c, data);
	scratch_dir_remove();
}
END_TEST

/* The files in folder dir (not . and ..). */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

START_TEST(fifo_is_spooled_and_the_scratch_file_removed)
{
	lik_set_print_string_function(quiet);
	scratch_dir_make("ik_stream_fifo");
	char data[200], fifo[200], tmp[200], a[200], b[200];
	snprintf(data, sizeof data, "%s", scratch_path("data"));
	snprintf(fifo, sizeof fifo, "%s", scratch_path("fifo"));
	snprintf(tmp, sizeof tmp, "%s", scratch_path("tmp"));
	snprintf(a, sizeof a, "%s", scratch_path("a.model"));
	write_data(data, 700, 9, 0, 5);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(mkdir(tmp, 0700), 0);
	ck_assert_int_eq(setenv("TMPDIR", tmp, 1), 0);
	pid_t writer = fork();
	ck_assert_int_ge(writer, 0);
	if (writer == 0) {
		/* the other end of the FIFO: the file's bytes, once */
		size_t n;
		char *bytes = slurp(data, &n);
		int fd = open(fifo, O_WRONLY);
		_exit(fd >= 0 && write(fd, bytes, n) == (ssize_t)n && close(fd) == 0 ? 0 : 1);
	}
	const struct config c = { LIK_KERNEL_ANNE, 10, 8, 3, 1, 0, 1 };
	struct lik_map_params k = params_of(&c);
	struct parameter p = default_param(1);
	struct ik_stream s;
	ck_assert_int_eq(ik_stream_begin(fifo, &k, NULL, &s), 0);
	ck_assert_int_eq(entries(tmp), 1);	/* the spool, while the passes need it */
	ck_assert_int_eq(ik_stream_finish(&s, 1), 0);
	ck_assert_int_eq(entries(tmp), 0);	/* removed after the last pass */
	int status;
	ck_assert_int_eq(waitpid(writer, &status, 0), writer);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	struct lik_error err;
	struct lik_model *m = lik_train_cells(&s.X, s.y, 1, &p, lik_map_share(s.map), &err);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(lik_model_save(a, m, &err), 0);
	lik_model_free(&m);
	ik_stream_free(&s);
	unsetenv("TMPDIR");
	/* the same as the file read in place (the trailer names the .ik: compare those) */
	snprintf(b, sizeof b, "%s", scratch_path("b.model"));
	train_streamed(data, &k, 1, &p, b);
	strcat(a, ".ik");
	strcat(b, ".ik");
	assert_same_file(a, b);
	scratch_dir_remove();
}
END_TEST

START_TEST(file_changed_between_passes_names_the_line)
{
	scratch_dir_make("ik_stream_changed");
	char data[200], log[200];
	snprintf(data, sizeof data, "%s", scratch_path("data"));
	snprintf(log, sizeof log, "%s", scratch_path("stderr"));
	write_data(data, 1500, 6, 0, 11);
	/* acos draws no rows, so the last pass is the first to read the file again */
	const struct config c = { LIK_KERNEL_ACOS, 10, 0, 1, 1, 0, -1 };
	struct lik_map_params k = params_of(&c);
	struct ik_stream s;
	ck_assert_int_eq(ik_stream_begin(data, &k, NULL, &s), 0);
	/* the first pass counted 1500 rows; now line 1301 is cut off with the rest */
	FILE *f = fopen(data, "r+");
	ck_assert_ptr_nonnull(f);
	char line[4096];
	long end = 0;
	for (int i = 0; i < 1300; i++) {
		ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
		end = ftell(f);
	}
	fclose(f);
	ck_assert_int_eq(truncate(data, end), 0);
	/* stderr to a file for the message, then back */
	fflush(stderr);
	int saved = dup(2);
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	dup2(fd, 2);
	int status = ik_stream_finish(&s, -1);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	ck_assert_int_eq(status, -1);
	size_t n;
	char *text = slurp(log, &n);
	text[n] = '\0';
	ck_assert_msg(strstr(text, "line 1301") != NULL && strstr(text, "changed") != NULL,
		"message: %s", text);
	free(text);
	scratch_dir_remove();
}
END_TEST

/* The same double, or both NaN (a score that a tiny fold cannot give). */
static void assert_same_double(double a, double b, const char *what, size_t row)
{
	ck_assert_msg((isnan(a) && isnan(b)) || a == b, "row %zu: %s %.17g against %.17g", row, what,
		a, b);
}

/* Every field of two search tables but the seconds. */
static void assert_same_table(const struct lik_search_table *a, const struct lik_search_table *b)
{
	ck_assert_uint_eq(a->count, b->count);
	for (size_t i = 0; i < a->count; i++) {
		const struct lik_search_row *x = &a->rows[i], *y = &b->rows[i];
		ck_assert_int_eq(x->psi, y->psi);
		ck_assert_int_eq(x->rows, y->rows);
		assert_same_double(x->C, y->C, "C", i);
		assert_same_double(x->p, y->p, "p", i);
		assert_same_double(x->score, y->score, "score", i);
		for (int k = 0; k < a->nr_fold; k++)
			assert_same_double(a->fold_scores[i * (size_t)a->nr_fold + (size_t)k],
				b->fold_scores[i * (size_t)b->nr_fold + (size_t)k], "fold score", i);
	}
	ck_assert_uint_eq(a->best, b->best);
	ck_assert_uint_eq(a->plain, b->plain);
	ck_assert_uint_eq(a->plain_versus, b->plain_versus);
	ck_assert_int_eq(a->at_edge, b->at_edge);
	ck_assert_int_eq(a->kernel_wins, b->kernel_wins);
	ck_assert_str_eq(a->note, b->note);
}

/* kernel, t, scale, solver, raw w, bias of the searches below (psi searched; -E at 16) */
static const struct config search_configs[] = {
	{ LIK_KERNEL_ANNE, 10, 0, 1, 2, 0, -1 },
	{ LIK_KERNEL_ANNE, 10, 0, 3, 0, 0.5, 1 },
	{ LIK_KERNEL_IFOREST, 10, 0, 2, 2, 0, 1 },
	{ LIK_KERNEL_MINMAX, 10, 0, 2, 0, 0, -1 },
	{ LIK_KERNEL_ANNE, 10, 0, 1, 11, 0, -1 },
};

START_TEST(search_over_the_file_is_the_held_rows_search)
{
	const struct config *c = &search_configs[_i];
	lik_set_print_string_function(quiet);
	scratch_dir_make("ik_search_stream");
	const char *data = scratch_path("data");
	write_data(data, 500, 12, wants_nonnegative(c), 300 + (uint64_t)_i);
	struct lik_map_params k = params_of(c);
	struct parameter param = default_param(c->solver);
	/* a subsample of 120 of the 500 rows: stage 1 on it, the all-row walks streamed; no time
	 * budget, so stage 3 goes as far as the rows allow whatever the machine's speed */
	struct lik_search_options so;
	lik_search_options_default(&so);
	so.subsample_rows = 120;
	so.time_budget = 1e9;
	struct libsvm_reader *r = libsvm_reader_open(data);
	ck_assert_ptr_nonnull(r);
	struct libsvm_data *d = libsvm_data_read(r, c->bias);	/* as train reads -C -k's rows */
	ck_assert_ptr_nonnull(d);
	libsvm_reader_close(r);
	struct lik_error err;
	struct lik_search_table *held = lik_search(&d->prob, &param, &k, 3, -1, -1, &so, &err);
	ck_assert_msg(held != NULL, "%s", err.message);
	struct ik_stream s;
	ck_assert_int_eq(ik_stream_begin(data, &k, NULL, &s), 0);
	ck_assert_int_eq(ik_stream_scan_rest(&s), 0);
	struct lik_search_table *streamed = ik_search_stream(&s, &param, &k, 3, -1, -1, &so, c->bias);
	ck_assert_ptr_nonnull(streamed);
	assert_same_table(held, streamed);
	ck_assert_int_eq(held->rows[held->best].rows, 500);
	/* -W 1: the best map's model, both ways */
	char a[200], b[200];
	two_model_paths(a, b, sizeof a);
	param.C = held->rows[held->best].C;
	if (c->solver == 11)
		param.p = held->rows[held->best].p;
	struct lik_model *m = lik_train_with_map(&d->prob, &param, held->best_map, &err);
	ck_assert_msg(m != NULL && lik_model_save(a, m, &err) == 0, "%s", err.message);
	lik_model_free(&m);
	m = ik_search_stream_train(&s, &param, streamed->best_map, c->bias);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(lik_model_save(b, m, &err), 0);
	lik_model_free(&m);
	assert_same_pair(a, b);
	/* -E 1 at one psi: upstream's sweep on the mapped rows, both ways */
	param = default_param(c->solver);
	struct lik_map_params at = k;
	at.psi = 16;
	int psi;
	double C1, p1, s1, C2, p2, s2;
	ck_assert_int_eq(lik_find_parameters(&d->prob, &param, &at, 3, -1, -1, &psi, &C1, &p1, &s1,
		&err), 0);
	ck_assert_int_eq(ik_search_stream_at(&s, &param, &at, 3, -1, -1, c->bias, &C2, &p2, &s2), 0);
	assert_same_double(C1, C2, "-E C", 0);
	assert_same_double(p1, p2, "-E p", 0);
	assert_same_double(s1, s2, "-E score", 0);
	lik_search_table_free(&held);
	lik_search_table_free(&streamed);
	ik_stream_free(&s);
	libsvm_data_free(d);
	scratch_dir_remove();
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("ik_stream");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, stream_gives_the_in_memory_files, 0,
		(int)(sizeof configs / sizeof configs[0]));
	tcase_add_test(tc, fifo_is_spooled_and_the_scratch_file_removed);
	tcase_add_test(tc, file_changed_between_passes_names_the_line);
	tcase_add_loop_test(tc, search_over_the_file_is_the_held_rows_search, 0,
		(int)(sizeof search_configs / sizeof search_configs[0]));
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(suite)
