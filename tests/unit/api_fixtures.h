/*
 * api_fixtures.h - helpers shared by the API tests (test_model_io.c,
 * test_api.c, test_train.c).
 *
 * Contract: stderr_capture_start()/stderr_capture_end() catch what the
 * library writes to stderr between them (the text is returned in a static
 * buffer); hand_model() builds a heap model that free_and_destroy_model
 * releases; slurp() reads a whole file; scratch_dir() is a directory
 * removed when the test process ends. Each check test runs in its own
 * process, so the static buffers never leak between tests.
 */
#ifndef TESTS_API_FIXTURES_H
#define TESTS_API_FIXTURES_H

#include <check.h>
#include <dirent.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "linear.h"

static int stderr_saved_fd = -1;
static FILE *stderr_file;
static char stderr_text[1 << 14];

static inline void stderr_capture_start(void)
{
	fflush(stderr);
	stderr_file = tmpfile();
	ck_assert(stderr_file != NULL);
	stderr_saved_fd = dup(STDERR_FILENO);
	ck_assert_int_ge(stderr_saved_fd, 0);
	ck_assert_int_ge(dup2(fileno(stderr_file), STDERR_FILENO), 0);
}

static inline const char *stderr_capture_end(void)
{
	fflush(stderr);
	ck_assert_int_ge(dup2(stderr_saved_fd, STDERR_FILENO), 0);
	close(stderr_saved_fd);
	rewind(stderr_file);
	size_t n = fread(stderr_text, 1, sizeof stderr_text - 1, stderr_file);
	stderr_text[n] = '\0';
	fclose(stderr_file);
	return stderr_text;
}

/*
 * A model as train() would return it: w has w_size * nr_w entries copied
 * from w (feature-major); labels may be NULL (regression, one-class).
 */
static inline struct model *hand_model(int solver_type, int nr_class, const int *labels,
	int nr_feature, double bias, const double *w, size_t w_count)
{
	struct model *m = calloc(1, sizeof *m);
	ck_assert(m != NULL);
	m->param.solver_type = solver_type;
	m->nr_class = nr_class;
	m->nr_feature = nr_feature;
	m->bias = bias;
	if (labels != NULL) {
		m->label = malloc((size_t)(nr_class > 0 ? nr_class : 1) * sizeof *m->label);
		ck_assert(m->label != NULL);
		memcpy(m->label, labels, (size_t)nr_class * sizeof *m->label);
	}
	m->w = malloc((w_count > 0 ? w_count : 1) * sizeof *m->w);
	ck_assert(m->w != NULL);
	memcpy(m->w, w, w_count * sizeof *m->w);
	return m;
}

/* Removes path and, if it is a directory, everything under it. */
static inline void remove_tree(const char *path)
{
	DIR *d = opendir(path);
	if (d != NULL) {
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			char child[1024];
			int n = snprintf(child, sizeof child, "%s/%s", path, e->d_name);
			if (n > 0 && (size_t)n < sizeof child)
				remove_tree(child);
		}
		closedir(d);
		chmod(path, 0700);
		rmdir(path);
		return;
	}
	unlink(path);
}

static char test_dir[64];

static inline void remove_test_dir(void)
{
	remove_tree(test_dir);
}

/*
 * This test process's scratch directory, made on first use and removed
 * when the process exits (check runs each test in its own process).
 */
static inline const char *scratch_dir(void)
{
	if (test_dir[0] == '\0') {
		snprintf(test_dir, sizeof test_dir, "/tmp/liblinear-ik-test-XXXXXX");
		ck_assert(mkdtemp(test_dir) != NULL);
		atexit(remove_test_dir);
	}
	return test_dir;
}

/* The whole file as a malloc'd string, or NULL when it cannot be read. */
static inline char *slurp(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (fp == NULL)
		return NULL;
	size_t cap = 1024, n = 0;
	char *s = malloc(cap);
	ck_assert(s != NULL);
	size_t got;
	while ((got = fread(s + n, 1, cap - n - 1, fp)) > 0) {
		n += got;
		if (n + 1 == cap) {
			cap *= 2;
			s = realloc(s, cap);
			ck_assert(s != NULL);
		}
	}
	fclose(fp);
	s[n] = '\0';
	return s;
}

static inline void write_text(const char *path, const char *text)
{
	FILE *fp = fopen(path, "wb");
	ck_assert(fp != NULL);
	ck_assert_int_eq(fputs(text, fp) >= 0, 1);
	ck_assert_int_eq(fclose(fp), 0);
}

#endif /* TESTS_API_FIXTURES_H */
