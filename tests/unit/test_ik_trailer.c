/* test_ik_trailer.c - the model trailer: its line, finding it, its names. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "ik_trailer.h"

#define LINE "ik_partitioning 0123456789abcdef m.model.ik"

static int parse(const char *line, struct ik_trailer *out)
{
	return ik_trailer_parse(line, strlen(line), out);
}

START_TEST(parses_a_written_line)
{
	char *text = NULL;
	size_t size = 0;
	FILE *fp = open_memstream(&text, &size);
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(ik_trailer_write(fp, 0xfedcba9876543210ULL, "a b.ik"), 0);
	fclose(fp);
	ck_assert_str_eq(text, "ik_partitioning fedcba9876543210 a b.ik\n");
	struct ik_trailer t;
	ck_assert_int_eq(ik_trailer_parse(text, size - 1, &t), 0);
	ck_assert_uint_eq(t.checksum, 0xfedcba9876543210ULL);
	ck_assert_str_eq(t.name, "a b.ik");	/* spaces belong to the name */
	ik_trailer_free(&t);
	free(text);
}
END_TEST

START_TEST(checksum_keeps_leading_zeros_and_reads_upper_case)
{
	struct ik_trailer t;
	ck_assert_int_eq(parse("ik_partitioning 00000000000000FF x", &t), 0);
	ck_assert_uint_eq(t.checksum, 0xff);
	ck_assert_str_eq(t.name, "x");
	ik_trailer_free(&t);
	ck_assert_int_eq(parse(LINE "\r", &t), 0);	/* a CRLF copy still works */
	ck_assert_str_eq(t.name, "m.model.ik");
	ik_trailer_free(&t);
}
END_TEST

START_TEST(rejects_malformed_lines)
{
	static const char *const bad[] = {
		"ik_partitioning 0123456789abcdef",		/* no name */
		"ik_partitioning 0123456789abcdef ",		/* empty name */
		"ik_partitioning 0123456789abcde m.ik",		/* 15 digits */
		"ik_partitioning 0123456789abcdeg m.ik",	/* not hex */
		"ik_partitioning  0123456789abcdef m.ik",	/* two spaces */
		"ik_partitioning 0123456789abcdef0 m.ik",	/* 17 digits */
		"ik_partitioningX0123456789abcdef m.ik",
		"ik_partition 0123456789abcdef m.ik",
		"0.25 ",
		"",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct ik_trailer t = { 0, NULL };
		ck_assert_msg(parse(bad[i], &t) == -1, "accepted: %s", bad[i]);
		ck_assert_ptr_null(t.name);
	}
}
END_TEST

START_TEST(refuses_to_write_line_breaks)
{
	FILE *fp = tmpfile();
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(ik_trailer_write(fp, 1, "a\nb"), -1);
	ck_assert_int_eq(ik_trailer_write(fp, 1, "a\rb"), -1);
	ck_assert_int_eq(ik_trailer_write(fp, 1, ""), -1);
	ck_assert_int_eq(ftell(fp), 0);
	fclose(fp);
}
END_TEST

/* Writes text to a new temporary file; returns its name (static buffer). */
static const char *file_with(const char *text, size_t len)
{
	static char name[] = "/tmp/test_ik_trailer.XXXXXX";
	strcpy(name, "/tmp/test_ik_trailer.XXXXXX");
	int fd = mkstemp(name);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	return name;
}

/* ik_trailer_read of a file holding text, whose w has nr_weights entries. */
static int read_text(const char *text, uint64_t nr_weights, struct ik_trailer *t)
{
	const char *path = file_with(text, strlen(text));
	int rc = ik_trailer_read(path, nr_weights, t, NULL);
	unlink(path);
	return rc;
}

START_TEST(finds_the_trailer_after_the_weights)
{
	struct ik_trailer t;
	const char *model = "solver_type L2R_LR\nnr_feature 2\nw\n0.5 \n-0.25 \n";
	char text[512];
	snprintf(text, sizeof text, "%s%s\n", model, LINE);
	ck_assert_int_eq(read_text(text, 2, &t), 1);
	ck_assert_uint_eq(t.checksum, 0x0123456789abcdefULL);
	ck_assert_str_eq(t.name, "m.model.ik");
	ik_trailer_free(&t);
	snprintf(text, sizeof text, "%s%s", model, LINE);	/* no final newline */
	ck_assert_int_eq(read_text(text, 2, &t), 1);
	ck_assert_str_eq(t.name, "m.model.ik");
	ik_trailer_free(&t);
	snprintf(text, sizeof text, "%s\r\n \t\n%s\r\n\r\n", model, LINE);	/* blank lines, CRLF */
	ck_assert_int_eq(read_text(text, 2, &t), 1);
	ck_assert_str_eq(t.name, "m.model.ik");
	ik_trailer_free(&t);
	ck_assert_int_eq(read_text("w\n" LINE "\n", 0, &t), 1);	/* no weights at all */
	ik_trailer_free(&t);
}
END_TEST

/* A file of len bytes (NUL bytes inside), read as a model with nr_weights weights. */
static int read_bytes(const char *bytes, size_t len, uint64_t nr_weights, struct ik_trailer *t)
{
	const char *path = file_with(bytes, len);
	int rc = ik_trailer_read(path, nr_weights, t, NULL);
	unlink(path);
	return rc;
}

/*
 * Found by fuzzing (tests/fuzz/found/fuzz_predict_ik/model-w-nul-trailer-scan):
 * a NUL byte inside the "w" keyword made the scan compare past the end of
 * "w". load_model reads "w\0x" as "w" (a C string), so the scan must too;
 * tokens that only start like "w" ("wx", "ww") are not it.
 */
START_TEST(a_nul_byte_ends_the_keyword_as_in_load_model)
{
	struct ik_trailer t;
	static const char with_nul[] = "nr_feature 1\nw\0x\n0.5\n" LINE "\n";
	ck_assert_int_eq(read_bytes(with_nul, sizeof with_nul - 1, 1, &t), 1);
	ck_assert_str_eq(t.name, "m.model.ik");
	ik_trailer_free(&t);
	static const char nul_only[] = "nr_feature 1\nw\0\n0.5\n" LINE "\n";
	ck_assert_int_eq(read_bytes(nul_only, sizeof nul_only - 1, 1, &t), 1);
	ik_trailer_free(&t);
	/* "wx" and "\0" are not the keyword: the real "w" comes later */
	static const char not_w[] = "wx \0 ww\nw\n0.5\n" LINE "\n";
	ck_assert_int_eq(read_bytes(not_w, sizeof not_w - 1, 1, &t), 1);
	ik_trailer_free(&t);
	/* the weight token after "w\0" is skipped whole: the trailer is not mistaken */
	static const char weight_nul[] = "w\0\n0.5\0" "ik_partitioning\n";
	ck_assert_int_eq(read_bytes(weight_nul, sizeof weight_nul - 1, 1, &t), 0);
}
END_TEST

START_TEST(plain_models_have_none)
{
	struct ik_trailer t = { 0, NULL };
	ck_assert_int_eq(read_text("solver_type L2R_LR\nw\n0.5 \n", 1, &t), 0);
	ck_assert_int_eq(read_text("w\n0.5 ", 1, &t), 0);
	ck_assert_int_eq(read_text("w\r\n0.5 \r\n \t\r\n", 1, &t), 0);
	ck_assert_ptr_null(t.name);
}
END_TEST

START_TEST(a_malformed_last_trailer_is_an_error)
{
	struct ik_trailer t = { 0, NULL };
	ck_assert_int_eq(read_text("w\n0.5 \nik_partitioning 12 m.ik\n", 1, &t), -1);
	ck_assert_ptr_null(t.name);
	ck_assert_int_eq(ik_trailer_read("/nonexistent/model", 0, &t, NULL), -1);
	/* fewer weights than the model has, or no "w": not a model load_model took */
	ck_assert_int_eq(read_text("w\n0.5 \n", 2, &t), -1);
	ck_assert_int_eq(read_text("", 0, &t), -1);
}
END_TEST

START_TEST(long_lines_across_read_chunks)
{
	/* A name of 10000 characters puts the line start chunks back from the end;
	 * a 20000-character weight line before it must not confuse the search. */
	size_t name_len = 10000, weights_len = 20000;
	size_t cap = weights_len + name_len + 64;
	char *text = malloc(cap);
	ck_assert_ptr_nonnull(text);
	memcpy(text, "w\n", 2);
	memset(text + 2, '7', weights_len - 2);
	size_t n = weights_len;
	n += (size_t)sprintf(text + n, "\nik_partitioning 00000000000000aa ");
	memset(text + n, 'n', name_len);
	n += name_len;
	text[n++] = '\n';
	const char *path = file_with(text, n);
	struct ik_trailer t;
	ck_assert_int_eq(ik_trailer_read(path, 1, &t, NULL), 1);
	ck_assert_uint_eq(t.checksum, 0xaa);
	ck_assert_uint_eq(strlen(t.name), name_len);
	ik_trailer_free(&t);
	unlink(path);
	/* the same long weight line alone: no trailer, and only its head is read */
	path = file_with(text, weights_len);
	ck_assert_int_eq(ik_trailer_read(path, 1, &t, NULL), 0);
	unlink(path);
	free(text);
}
END_TEST


/*
 * Every cut of a trailer after the weights: a cut before the name's first
 * character is refused; from there on the line parses (with a shorter
 * name, which then names no file: ik_model refuses that when loading).
 */
START_TEST(a_cut_short_trailer_is_refused)
{
	const char *model = "solver_type L2R_LR\nnr_feature 2\nw\n0.5 \n-0.25 \n";
	const char *line = LINE;
	size_t name_at = strlen("ik_partitioning 0123456789abcdef ");
	char text[512];
	for (size_t cut = 1; cut <= strlen(line); cut++) {
		snprintf(text, sizeof text, "%s%.*s", model, (int)cut, line);
		struct ik_trailer t = { 0, NULL };
		int rc = read_text(text, 2, &t);
		ck_assert_msg(rc == (cut > name_at ? 1 : -1), "cut %zu: %d", cut, rc);
		if (rc == 1)
			ck_assert_int_eq(strlen(t.name), cut - name_at);
		else
			ck_assert_ptr_null(t.name);
		ik_trailer_free(&t);
	}
	/* a prefix of the key as the first word of a line, with more after it */
	struct ik_trailer t = { 0, NULL };
	ck_assert_int_eq(read_text("w\n0.5 \nik_part 0123456789abcdef m.ik\n", 1, &t), -1);
	ck_assert_int_eq(read_text("w\n0.5 \ni\r\n", 1, &t), -1);
	ck_assert_int_eq(read_text("w\n0.5 \nik_partitioningX 0123456789abcdef m.ik\n", 1, &t), -1);
	/* a trailer must be the last thing in the file */
	ck_assert_int_eq(read_text("w\n0.5 \n" LINE "\n0.5 \n", 1, &t), -1);
	ck_assert_ptr_null(t.name);
}
END_TEST

START_TEST(other_text_after_the_weights_is_ignored)
{
	static const char *const tails[] = {
		"info\n", "ikea 1\n", "# ik_partitioning 0123456789abcdef m.ik\n",
		"0.75 \n" LINE "\n",	/* a 3rd number: the model has 2 weights */
		"some trailing text\r\nik_partitioning\r\n",
	};
	char text[512];
	for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
		snprintf(text, sizeof text, "w\n0.5 \n-0.25 \n%s", tails[i]);
		struct ik_trailer t = { 0, NULL };
		ck_assert_msg(read_text(text, 2, &t) == 0, "refused: %s", tails[i]);
		ck_assert_ptr_null(t.name);
	}
}
END_TEST

START_TEST(a_fifo_as_model_file_is_refused_at_once)
{
	char dir[] = "/tmp/test_ik_trailer_fifo.XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char path[64];
	snprintf(path, sizeof path, "%s/m", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	alarm(10);	/* the old fopen waited for a writer forever */
	struct ik_trailer t = { 0, NULL };
	ck_assert_int_eq(ik_trailer_read(path, 1, &t, NULL), -1);
	alarm(0);
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(names_and_paths)
{
	char *s = ik_trailer_default_name("dir/sub/heart.model");
	ck_assert_str_eq(s, "heart.model.ik");
	free(s);
	s = ik_trailer_default_name("heart.model");
	ck_assert_str_eq(s, "heart.model.ik");
	free(s);
	s = ik_trailer_resolve("dir/sub/heart.model", "heart.model.ik");
	ck_assert_str_eq(s, "dir/sub/heart.model.ik");
	free(s);
	s = ik_trailer_resolve("heart.model", "x.ik");
	ck_assert_str_eq(s, "x.ik");
	free(s);
	s = ik_trailer_resolve("/a/m", "../b/x.ik");
	ck_assert_str_eq(s, "/a/../b/x.ik");
	free(s);
	s = ik_trailer_resolve("dir/m", "/abs/x.ik");
	ck_assert_str_eq(s, "/abs/x.ik");
	free(s);
}
END_TEST

static Suite *ik_trailer_suite(void)
{
	Suite *s = suite_create("ik_trailer");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, parses_a_written_line);
	tcase_add_test(tc, checksum_keeps_leading_zeros_and_reads_upper_case);
	tcase_add_test(tc, rejects_malformed_lines);
	tcase_add_test(tc, refuses_to_write_line_breaks);
	tcase_add_test(tc, finds_the_trailer_after_the_weights);
	tcase_add_test(tc, a_nul_byte_ends_the_keyword_as_in_load_model);
	tcase_add_test(tc, plain_models_have_none);
	tcase_add_test(tc, a_malformed_last_trailer_is_an_error);
	tcase_add_test(tc, long_lines_across_read_chunks);
	tcase_add_test(tc, a_cut_short_trailer_is_refused);
	tcase_add_test(tc, other_text_after_the_weights_is_ignored);
	tcase_add_test(tc, a_fifo_as_model_file_is_refused_at_once);
	tcase_add_test(tc, names_and_paths);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(ik_trailer_suite)
