/* test_reader.c - the LIBSVM reader accepts and rejects lines as upstream does. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "unit.h"
#include "reader.h"

static char tmpdir[] = "/tmp/test_reader_XXXXXX";
static int file_count;

static void make_tmpdir(void)
{
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

/* The tests run in child processes, so the files are found by listing. */
static void remove_tmpdir(void)
{
	DIR *dir = opendir(tmpdir);
	if (dir) {
		struct dirent *e;
		while ((e = readdir(dir)) != NULL) {
			char path[512];
			snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
			if (e->d_name[0] != '.')
				unlink(path);
		}
		closedir(dir);
	}
	rmdir(tmpdir);
}

/* Writes len bytes of text to a fresh file in tmpdir; returns its path (static). */
static const char *write_bytes(const char *text, size_t len)
{
	static char path[64];
	snprintf(path, sizeof path, "%s/f%d", tmpdir, file_count++);
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

static const char *write_text(const char *text)
{
	return write_bytes(text, strlen(text));
}

/* Loads text as a whole; NULL on error, with the message copied to err. */
static struct libsvm_data *load(const char *text, double bias, char *err, size_t err_size)
{
	struct libsvm_reader *r = libsvm_reader_open(write_text(text));
	ck_assert_ptr_nonnull(r);
	struct libsvm_data *d = libsvm_data_read(r, bias);
	if (err)
		snprintf(err, err_size, "%s", libsvm_reader_error(r));
	libsvm_reader_close(r);
	return d;
}

static void expect_error(const char *text, const char *message)
{
	char err[256];
	struct libsvm_data *d = load(text, -1, err, sizeof err);
	ck_assert_msg(d == NULL, "accepted: %s", text);
	ck_assert_str_eq(err, message);
}

static void expect_row(const struct feature_node *x, const int *index, const double *value,
	int count)
{
	for (int k = 0; k < count; k++) {
		ck_assert_int_eq(x[k].index, index[k]);
		ck_assert_double_eq(x[k].value, value[k]);
	}
	ck_assert_int_eq(x[count].index, -1);
}

START_TEST(reads_rows_labels_and_features)
{
	struct libsvm_data *d = load("+1 1:0.5 3:-2\n-1 2:1e1\n2.5 1:1\n", -1, NULL, 0);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d->prob.l, 3);
	ck_assert_int_eq(d->prob.n, 3);
	ck_assert_int_eq(d->max_index, 3);
	ck_assert_double_eq(d->prob.bias, -1);
	ck_assert_double_eq(d->prob.y[0], 1);
	ck_assert_double_eq(d->prob.y[1], -1);
	ck_assert_double_eq(d->prob.y[2], 2.5);
	expect_row(d->prob.x[0], (int[]){1, 3}, (double[]){0.5, -2}, 2);
	expect_row(d->prob.x[1], (int[]){2}, (double[]){10}, 1);
	expect_row(d->prob.x[2], (int[]){1}, (double[]){1}, 1);
	ck_assert_uint_eq(d->nr_nodes, 7);
	libsvm_data_free(d);
}
END_TEST

/*
 * Numbers the fast path takes (decimal.h) and numbers it leaves to strtod
 * side by side: every label and value is strtod's double bit for bit, and an
 * error after fast-parsed lines still names its own line.
 */
START_TEST(fast_and_strtod_numbers_agree_with_strtod)
{
	static const char *const nums[] = { "0.1", "-0", "1e23", "0.30000000000000004",
		"123456789012345678901234567890", "0x1.8p1", ".5", "5.", "-2.5E-3", "1e-22",
		"9007199254740993", "-1e-23" };
	const int n = (int)(sizeof nums / sizeof *nums);
	char text[1024];
	size_t len = 0;
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, sizeof text - len, "%s 1:%s 000000002:%s\n",
			nums[i], nums[(i + 1) % n], nums[(i + 2) % n]);
	struct libsvm_data *d = load(text, -1, NULL, 0);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d->prob.l, n);
	for (int i = 0; i < n; i++) {
		double want[3] = { strtod(nums[i], NULL), strtod(nums[(i + 1) % n], NULL),
			strtod(nums[(i + 2) % n], NULL) };
		double got[3] = { d->prob.y[i], d->prob.x[i][0].value, d->prob.x[i][1].value };
		ck_assert_int_eq(d->prob.x[i][1].index, 2);
		ck_assert_msg(memcmp(want, got, sizeof want) == 0, "row %d differs from strtod", i);
	}
	libsvm_data_free(d);
	expect_error("1 1:0.5\n-1 2:0.25\n1 1:1e400\n", "Wrong input format at line 3: value is not finite");
	expect_error("1 1:0.5\n1 1:1e-400\n", "Wrong input format at line 2: value is out of range");
	/* a subnormal value is flagged by strtod (ERANGE), a subnormal label is not */
	expect_error("1 1:0.5\n1 1:4.9e-324\n", "Wrong input format at line 2: value is out of range");
	d = load("4.9e-324 1:0.5\n", -1, NULL, 0);
	ck_assert_ptr_nonnull(d);
	ck_assert(d->prob.y[0] == strtod("4.9e-324", NULL));
	libsvm_data_free(d);
	expect_error("1 1:0.5\n1 1:1e\n", "Wrong input format at line 2: value is not a number");
	expect_error("1 1:0.5\n1e 1:1\n", "Wrong input format at line 2: label is not a number");
	expect_error("1 1:0.5\n1 0000000000:1\n",
		"Wrong input format at line 2: feature index 0 (indices start at 1)");
}
END_TEST

START_TEST(blanks_tabs_and_signs_as_strtol_strtod_take_them)
{
	struct libsvm_data *d = load("  1e0\t1:2  \t +3:4 \n", -1, NULL, 0);
	ck_assert_ptr_nonnull(d);
	ck_assert_double_eq(d->prob.y[0], 1);
	expect_row(d->prob.x[0], (int[]){1, 3}, (double[]){2, 4}, 2);
	libsvm_data_free(d);
}
END_TEST

START_TEST(crlf_line_endings)
{
	struct libsvm_data *d = load("1 1:2\r\n-1 2:3\r\n4\r\n", -1, NULL, 0);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d->prob.l, 3);
	expect_row(d->prob.x[0], (int[]){1}, (double[]){2}, 1);
	expect_row(d->prob.x[1], (int[]){2}, (double[]){3}, 1);
	expect_row(d->prob.x[2], NULL, NULL, 0);
	ck_assert_double_eq(d->prob.y[2], 4);
	libsvm_data_free(d);
}
END_TEST

START_TEST(trailing_text_without_colon_is_ignored)
{
	struct libsvm_data *d = load("1 1:2 #comment\n2 2:3 # a longer comment\n3 foo\n", -1, NULL, 0);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d->prob.l, 3);
	expect_row(d->prob.x[0], (int[]){1}, (double[]){2}, 1);
	expect_row(d->prob.x[1], (int[]){2}, (double[]){3}, 1);
	expect_row(d->prob.x[2], NULL, NULL, 0);
	ck_assert_int_eq(d->prob.n, 2);
	libsvm_data_free(d);
}
END_TEST

START_TEST(token_without_colon_before_more_features)
{
	expect_error("1 1:1\n1 foo 2:3\n", "Wrong input format at line 2: expected index:value");
	expect_error("1 1 : 2\n", "Wrong input format at line 1: expected index:value");
	expect_error("1 1: 2\n", "Wrong input format at line 1: value is not a number");
	expect_error("1 1 :2\n", "Wrong input format at line 1: expected index:value");
	expect_error("1 :2\n", "Wrong input format at line 1: feature index is not an integer");
}
END_TEST

START_TEST(empty_and_blank_lines)
{
	expect_error("\n", "Wrong input format at line 1: empty line");
	expect_error("1 1:2\n\n2 1:3\n", "Wrong input format at line 2: empty line");
	expect_error("1 1:2\n \t \n", "Wrong input format at line 2: empty line");
	expect_error("1 1:2\n\r\n", "Wrong input format at line 2: empty line");
	/* blank line at the end of the file, with and without its newline */
	expect_error("1 1:2\n2 1:3\n\n", "Wrong input format at line 3: empty line");
	expect_error("1 1:2\n2 1:3\n  ", "Wrong input format at line 3: empty line");
}
END_TEST

START_TEST(bad_indices)
{
	expect_error("1 0:1\n", "Wrong input format at line 1: feature index 0 (indices start at 1)");
	expect_error("1 -2:1\n", "Wrong input format at line 1: negative feature index (indices start at 1)");
	expect_error("1 2:1 2:3\n", "Wrong input format at line 1: feature indices must be ascending");
	expect_error("1 3:1 2:1\n", "Wrong input format at line 1: feature indices must be ascending");
	expect_error("1 2147483647:1\n", "Wrong input format at line 1: feature index out of range");
	expect_error("1 99999999999:1\n", "Wrong input format at line 1: feature index out of range");
	expect_error("1 99999999999999999999999:1\n", "Wrong input format at line 1: feature index out of range");
	expect_error("1 1.5:1\n", "Wrong input format at line 1: feature index is not an integer");
	expect_error("1 x:1\n", "Wrong input format at line 1: feature index is not an integer");
}
END_TEST

START_TEST(largest_index_still_leaves_room_for_bias)
{
	struct libsvm_data *d = load("1 2147483646:1\n", 1, NULL, 0);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d->prob.n, INT_MAX);
	expect_row(d->prob.x[0], (int[]){INT_MAX - 1, INT_MAX}, (double[]){1, 1}, 2);
	libsvm_data_free(d);
}
END_TEST

START_TEST(bad_values)
{
	expect_error("1 1:2x\n", "Wrong input format at line 1: value is not a number");
	expect_error("1 1:\n", "Wrong input format at line 1: value is not a number");
	expect_error("1 1:2:3\n", "Wrong input format at line 1: value is not a number");
	expect_error("1 1::3\n", "Wrong input format at line 1: value is not a number");
	expect_error("1 1:nan\n", "Wrong input format at line 1: value is not finite");
	expect_error("1 1:inf\n", "Wrong input format at line 1: value is not finite");
	expect_error("1 1:-Infinity\n", "Wrong input format at line 1: value is not finite");
	expect_error("1 1:1e999\n", "Wrong input format at line 1: value is not finite");
	/* strtod flags a denormal result with ERANGE; upstream rejects it too */
	expect_error("1 1:1e-310\n", "Wrong input format at line 1: value is out of range");
}
END_TEST

START_TEST(bad_labels)
{
	expect_error("a 1:2\n", "Wrong input format at line 1: label is not a number");
	expect_error("1x 1:2\n", "Wrong input format at line 1: label is not a number");
	expect_error("1:2\n", "Wrong input format at line 1: label is not a number");
	expect_error("nan 1:2\n", "Wrong input format at line 1: value is not finite");
	expect_error("-inf 1:2\n", "Wrong input format at line 1: value is not finite");
	expect_error("1e999 1:2\n", "Wrong input format at line 1: value is not finite");
}
END_TEST

START_TEST(line_numbers_count_from_one)
{
	expect_error("1 1:1\n2 2:2\n3 0:1\n4 1:1\n",
		"Wrong input format at line 3: feature index 0 (indices start at 1)");
}
END_TEST

START_TEST(last_line_without_newline)
{
	struct libsvm_data *d = load("1 1:2\n-1 2:3", -1, NULL, 0);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d->prob.l, 2);
	expect_row(d->prob.x[1], (int[]){2}, (double[]){3}, 1);
	libsvm_data_free(d);
}
END_TEST

START_TEST(very_long_line)
{
	enum { N = 100000 };
	size_t cap = (size_t)N * 24 + 16, len = 0;
	char *text = malloc(cap);
	ck_assert_ptr_nonnull(text);
	len += (size_t)snprintf(text, cap, "-1");
	for (int j = 1; j <= N; j++)
		len += (size_t)snprintf(text + len, cap - len, " %d:%d.25", 2 * j, j);
	len += (size_t)snprintf(text + len, cap - len, "\n1 5:1\n");
	struct libsvm_data *d = load(text, -1, NULL, 0);
	free(text);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d->prob.l, 2);
	ck_assert_int_eq(d->prob.n, 2 * N);
	const struct feature_node *x = d->prob.x[0];
	for (int j = 1; j <= N; j++) {
		ck_assert_int_eq(x[j - 1].index, 2 * j);
		ck_assert_double_eq(x[j - 1].value, j + 0.25);
	}
	ck_assert_int_eq(x[N].index, -1);
	expect_row(d->prob.x[1], (int[]){5}, (double[]){1}, 1);
	libsvm_data_free(d);
}
END_TEST

START_TEST(empty_file)
{
	struct libsvm_data *d = load("", 1, NULL, 0);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d->prob.l, 0);
	ck_assert_int_eq(d->prob.n, 1);
	ck_assert_ptr_null(d->prob.x);
	ck_assert_ptr_null(d->prob.y);
	libsvm_data_free(d);

	struct libsvm_reader *r = libsvm_reader_open(write_text(""));
	ck_assert_ptr_nonnull(r);
	double label;
	struct feature_node *x;
	ck_assert_int_eq(libsvm_reader_next(r, &label, &x, NULL), LIBSVM_EOF);
	ck_assert_int_eq(libsvm_reader_line(r), 0);
	ck_assert_str_eq(libsvm_reader_error(r), "");
	libsvm_reader_close(r);
}
END_TEST

START_TEST(label_only_rows)
{
	struct libsvm_data *d = load("3\n-1 \n", -1, NULL, 0);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d->prob.l, 2);
	ck_assert_int_eq(d->prob.n, 0);
	expect_row(d->prob.x[0], NULL, NULL, 0);
	expect_row(d->prob.x[1], NULL, NULL, 0);
	libsvm_data_free(d);
}
END_TEST

START_TEST(bias_slot_before_terminator)
{
	/* README's layout: features, then (n, bias), then -1; n = max index + 1 */
	struct libsvm_data *d = load("1 1:1 3:2\n2 2:1\n3\n", 0.5, NULL, 0);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d->prob.n, 4);
	ck_assert_int_eq(d->max_index, 3);
	ck_assert_double_eq(d->prob.bias, 0.5);
	expect_row(d->prob.x[0], (int[]){1, 3, 4}, (double[]){1, 2, 0.5}, 3);
	expect_row(d->prob.x[1], (int[]){2, 4}, (double[]){1, 0.5}, 2);
	expect_row(d->prob.x[2], (int[]){4}, (double[]){0.5}, 1);
	ck_assert_uint_eq(d->nr_nodes, 4 + 3 + 2);
	libsvm_data_free(d);

	/* bias 0 still gets its slot (bias >= 0); bias -1 none */
	d = load("1 2:1\n", 0, NULL, 0);
	ck_assert_int_eq(d->prob.n, 3);
	expect_row(d->prob.x[0], (int[]){2, 3}, (double[]){1, 0}, 2);
	libsvm_data_free(d);
}
END_TEST

START_TEST(streaming_rows_and_line_numbers)
{
	struct libsvm_reader *r = libsvm_reader_open(write_text("1 1:2 4:1\n-1\n2 0:1\n"));
	ck_assert_ptr_nonnull(r);
	double label;
	struct feature_node *x;
	size_t nnz;
	ck_assert_int_eq(libsvm_reader_next(r, &label, &x, &nnz), LIBSVM_ROW);
	ck_assert_int_eq(libsvm_reader_line(r), 1);
	ck_assert_double_eq(label, 1);
	ck_assert_uint_eq(nnz, 2);
	expect_row(x, (int[]){1, 4}, (double[]){2, 1}, 2);
	/* the caller may append a bias node in place */
	x[nnz].index = 5;
	x[nnz].value = 1;
	x[nnz + 1].index = -1;
	ck_assert_int_eq(libsvm_reader_next(r, &label, &x, &nnz), LIBSVM_ROW);
	ck_assert_int_eq(libsvm_reader_line(r), 2);
	ck_assert_double_eq(label, -1);
	ck_assert_uint_eq(nnz, 0);
	ck_assert_int_eq(x[0].index, -1);
	ck_assert_int_eq(libsvm_reader_next(r, &label, &x, &nnz), LIBSVM_ERROR);
	ck_assert_int_eq(libsvm_reader_line(r), 3);
	ck_assert_str_eq(libsvm_reader_error(r),
		"Wrong input format at line 3: feature index 0 (indices start at 1)");
	/* errors stick */
	ck_assert_int_eq(libsvm_reader_next(r, &label, &x, &nnz), LIBSVM_ERROR);
	libsvm_reader_close(r);
}
END_TEST

START_TEST(open_missing_file_fails)
{
	char path[96];
	snprintf(path, sizeof path, "%s/no-such-file", tmpdir);
	ck_assert_ptr_null(libsvm_reader_open(path));
}
END_TEST

START_TEST(reads_a_pipe_in_one_pass)
{
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	const char text[] = "1 1:1\n2 3:1\n3 2:1 5:2\n";
	ck_assert_int_eq(write(fds[1], text, sizeof text - 1), (ssize_t)(sizeof text - 1));
	close(fds[1]);
	FILE *in = fdopen(fds[0], "r");
	ck_assert_ptr_nonnull(in);
	struct libsvm_reader *r = libsvm_reader_from_stream(in, "pipe");
	ck_assert_ptr_nonnull(r);
	struct libsvm_data *d = libsvm_data_read(r, 1);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d->prob.l, 3);
	ck_assert_int_eq(d->prob.n, 6);
	expect_row(d->prob.x[2], (int[]){2, 5, 6}, (double[]){1, 2, 1}, 3);
	libsvm_data_free(d);
	libsvm_reader_close(r);
	/* the reader did not close a stream it did not open */
	ck_assert_int_eq(fclose(in), 0);
}
END_TEST

START_TEST(many_rows_grow_the_arrays)
{
	enum { L = 20000 };
	char *text = malloc((size_t)L * 32);
	ck_assert_ptr_nonnull(text);
	size_t len = 0;
	for (int i = 0; i < L; i++)
		len += (size_t)sprintf(text + len, "%d %d:%d\n", i % 3, i % 50 + 1, i);
	struct libsvm_data *d = load(text, 1, NULL, 0);
	free(text);
	ck_assert_ptr_nonnull(d);
	ck_assert_int_eq(d->prob.l, L);
	ck_assert_int_eq(d->prob.n, 51);
	for (int i = 0; i < L; i++) {
		ck_assert_double_eq(d->prob.y[i], i % 3);
		expect_row(d->prob.x[i], (int[]){i % 50 + 1, 51}, (double[]){i, 1}, 2);
	}
	libsvm_data_free(d);
}
END_TEST

static Suite *reader_suite(void)
{
	Suite *s = suite_create("reader");
	TCase *tc = tcase_create("core");
	tcase_add_unchecked_fixture(tc, make_tmpdir, remove_tmpdir);
	tcase_add_test(tc, reads_rows_labels_and_features);
	tcase_add_test(tc, blanks_tabs_and_signs_as_strtol_strtod_take_them);
	tcase_add_test(tc, crlf_line_endings);
	tcase_add_test(tc, trailing_text_without_colon_is_ignored);
	tcase_add_test(tc, token_without_colon_before_more_features);
	tcase_add_test(tc, empty_and_blank_lines);
	tcase_add_test(tc, bad_indices);
	tcase_add_test(tc, largest_index_still_leaves_room_for_bias);
	tcase_add_test(tc, bad_values);
	tcase_add_test(tc, fast_and_strtod_numbers_agree_with_strtod);
	tcase_add_test(tc, bad_labels);
	tcase_add_test(tc, line_numbers_count_from_one);
	tcase_add_test(tc, last_line_without_newline);
	tcase_add_test(tc, very_long_line);
	tcase_add_test(tc, empty_file);
	tcase_add_test(tc, label_only_rows);
	tcase_add_test(tc, bias_slot_before_terminator);
	tcase_add_test(tc, streaming_rows_and_line_numbers);
	tcase_add_test(tc, open_missing_file_fails);
	tcase_add_test(tc, reads_a_pipe_in_one_pass);
	tcase_add_test(tc, many_rows_grow_the_arrays);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(reader_suite)
