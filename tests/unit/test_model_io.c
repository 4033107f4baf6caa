/*
 * test_model_io.c - save_model writes upstream's exact text, atomically;
 * load_model reads it back bit for bit and refuses damaged files with
 * upstream's messages (or a clear one where upstream had none).
 * The expected texts were written by hand from the format and checked
 * against upstream 2.50's save_model on the same hand-made models.
 */
#include <dirent.h>
#include <locale.h>
#include <math.h>
#include <sys/stat.h>
#include "unit.h"
#include "api_fixtures.h"
#include "linear.h"

static char dir_buf[128];
static char path_buf[256];

/* A new empty directory under the scratch directory; files go there. */
static const char *fresh_dir(void)
{
	static int made;
	snprintf(dir_buf, sizeof dir_buf, "%s/d%d", scratch_dir(), made++);
	ck_assert_int_eq(mkdir(dir_buf, 0755), 0);
	return dir_buf;
}

/* A file name in the current fresh directory (made on first use). */
static const char *model_path(const char *name)
{
	if (dir_buf[0] == '\0')
		fresh_dir();
	snprintf(path_buf, sizeof path_buf, "%s/%s", dir_buf, name);
	return path_buf;
}

static void assert_saved_text(const struct model *m, const char *expected)
{
	const char *path = model_path("m.model");
	ck_assert_int_eq(save_model(path, m), 0);
	char *text = slurp(path);
	ck_assert_ptr_nonnull(text);
	ck_assert_str_eq(text, expected);
	free(text);
}

START_TEST(saves_binary_text)
{
	const int labels[] = { 1, -1 };
	const double w[] = { 0.5, -1.25, 0.1 };
	struct model *m = hand_model(L2R_LR, 2, labels, 3, -1, w, 3);
	assert_saved_text(m,
		"solver_type L2R_LR\n"
		"nr_class 2\n"
		"label 1 -1\n"
		"nr_feature 3\n"
		"bias -1\n"
		"w\n"
		"0.5 \n"
		"-1.25 \n"
		"0.10000000000000001 \n");
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(saves_multiclass_text_with_bias_row)
{
	const int labels[] = { 3, 1, 2 };
	const double w[] = { 1, 2, 3, 4, 5, 6, -7, 8e-300, 1e+300 };
	struct model *m = hand_model(L2R_L2LOSS_SVC, 3, labels, 2, 1, w, 9);
	assert_saved_text(m,
		"solver_type L2R_L2LOSS_SVC\n"
		"nr_class 3\n"
		"label 3 1 2\n"
		"nr_feature 2\n"
		"bias 1\n"
		"w\n"
		"1 2 3 \n"
		"4 5 6 \n"
		"-7 8.0000000000000002e-300 1.0000000000000001e+300 \n");
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(saves_regression_without_label_line)
{
	const double w[] = { 0.25, -3, 2 };
	struct model *m = hand_model(L2R_L2LOSS_SVR, 2, NULL, 2, 0.5, w, 3);
	assert_saved_text(m,
		"solver_type L2R_L2LOSS_SVR\n"
		"nr_class 2\n"
		"nr_feature 2\n"
		"bias 0.5\n"
		"w\n"
		"0.25 \n"
		"-3 \n"
		"2 \n");
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(saves_oneclass_with_rho)
{
	const double w[] = { 21.684394167512028, -3.031864408741046 };
	struct model *m = hand_model(ONECLASS_SVM, 2, NULL, 2, -1, w, 2);
	m->rho = 201.25976386818593;
	assert_saved_text(m,
		"solver_type ONECLASS_SVM\n"
		"nr_class 2\n"
		"nr_feature 2\n"
		"bias -1\n"
		"rho 201.25976386818593\n"
		"w\n"
		"21.684394167512028 \n"
		"-3.031864408741046 \n");
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(saves_two_class_crammer_singer_with_two_columns)
{
	const int labels[] = { 1, -1 };
	const double w[] = { -0.5, 0.5, 2, -2 };
	struct model *m = hand_model(MCSVM_CS, 2, labels, 2, -1, w, 4);
	assert_saved_text(m,
		"solver_type MCSVM_CS\n"
		"nr_class 2\n"
		"label 1 -1\n"
		"nr_feature 2\n"
		"bias -1\n"
		"w\n"
		"-0.5 0.5 \n"
		"2 -2 \n");
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(saves_empty_and_single_class_models)
{
	/* nr_class 0 (trained on no rows): an empty label line, empty w rows. */
	const int none[] = { 0 };
	const double nothing[] = { 0 };
	struct model *m = hand_model(L2R_LR, 0, none, 2, -1, nothing, 0);
	assert_saved_text(m,
		"solver_type L2R_LR\nnr_class 0\nlabel\nnr_feature 2\nbias -1\nw\n\n\n");
	free_and_destroy_model(&m);

	const int three[] = { 3 };
	const double w[] = { 0.75, -0.125 };
	m = hand_model(L2R_L2LOSS_SVC_DUAL, 1, three, 2, -1, w, 2);
	assert_saved_text(m,
		"solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 1\nlabel 3\nnr_feature 2\nbias -1\n"
		"w\n0.75 \n-0.125 \n");
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(refuses_unknown_solver_type_and_writes_nothing)
{
	fresh_dir();
	const double w[] = { 1 };
	struct model *m = hand_model(9, 2, NULL, 1, -1, w, 1);
	const char *path = model_path("m.model");
	stderr_capture_start();
	ck_assert_int_eq(save_model(path, m), -1);
	stderr_capture_end();
	ck_assert_int_eq(access(path, F_OK), -1);
	free_and_destroy_model(&m);
}
END_TEST

/* ---- round trips ---- */

static void assert_same_model(const struct model *a, const struct model *b, size_t w_count)
{
	ck_assert_int_eq(a->param.solver_type, b->param.solver_type);
	ck_assert_int_eq(a->nr_class, b->nr_class);
	ck_assert_int_eq(a->nr_feature, b->nr_feature);
	ck_assert(memcmp(&a->bias, &b->bias, sizeof a->bias) == 0);
	ck_assert_int_eq(a->label == NULL, b->label == NULL);
	if (a->label != NULL)
		for (int k = 0; k < a->nr_class; k++)
			ck_assert_int_eq(a->label[k], b->label[k]);
	for (size_t i = 0; i < w_count; i++)
		ck_assert_msg(memcmp(&a->w[i], &b->w[i], sizeof(double)) == 0,
			"w[%zu]: %.17g became %.17g", i, a->w[i], b->w[i]);
}

START_TEST(round_trip_keeps_every_bit)
{
	const int labels[] = { 4, -2, 9 };
	const double w[] = { 0.1, 1.0 / 3, -0.0, 5e-324, 1.7976931348623157e308, -1e-300,
		123456789.123456789, INFINITY, -INFINITY, 2.5e-308, 7, -8 };
	struct model *m = hand_model(L2R_LR, 3, labels, 3, 2.5, w, 12);
	const char *path = model_path("m.model");
	ck_assert_int_eq(save_model(path, m), 0);
	struct model *back = load_model(path);
	ck_assert_ptr_nonnull(back);
	assert_same_model(m, back, 12);
	free_and_destroy_model(&back);
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(round_trip_of_oneclass_and_regression)
{
	const double w[] = { 1.5, -2.25, 3 };
	struct model *m = hand_model(ONECLASS_SVM, 2, NULL, 3, -1, w, 3);
	m->rho = -0.30000000000000004;
	const char *path = model_path("m.model");
	ck_assert_int_eq(save_model(path, m), 0);
	struct model *back = load_model(path);
	ck_assert_ptr_nonnull(back);
	assert_same_model(m, back, 3);
	ck_assert(back->rho == m->rho);
	free_and_destroy_model(&back);
	free_and_destroy_model(&m);

	m = hand_model(L2R_L1LOSS_SVR_DUAL, 2, NULL, 2, 1, w, 3);
	ck_assert_int_eq(save_model(path, m), 0);
	back = load_model(path);
	ck_assert_ptr_nonnull(back);
	assert_same_model(m, back, 3);
	free_and_destroy_model(&back);
	free_and_destroy_model(&m);
}
END_TEST

/* ---- what load_model accepts ---- */

static struct model *load_text(const char *text)
{
	const char *path = model_path("in.model");
	write_text(path, text);
	return load_model(path);
}

START_TEST(loads_keywords_in_any_order_and_ignores_trailing_text)
{
	struct model *m = load_text(
		"nr_feature 2\nbias -1\nnr_class 2\nlabel 1 -1\nsolver_type L2R_LR\n"
		"w\n0.5   -2\n"
		"a line added by a later version\n");
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(m->param.solver_type, L2R_LR);
	ck_assert_int_eq(m->nr_class, 2);
	ck_assert_int_eq(m->label[0], 1);
	ck_assert_int_eq(m->label[1], -1);
	ck_assert_int_eq(m->nr_feature, 2);
	ck_assert(m->w[0] == 0.5 && m->w[1] == -2);
	ck_assert_ptr_null(m->param.weight);
	ck_assert_ptr_null(m->param.init_sol);
	free_and_destroy_model(&m);
}
END_TEST

/*
 * load_model remembers weight texts with their values (model_io.c): every
 * weight must still be what strtod makes of its own text, whatever came
 * before it. 6,000 weights drawn from 700 texts (more than the 256 slots,
 * so texts share slots and replace each other), among them texts of one
 * length that differ in one digit, spellings of one value ("0.5", "5e-1",
 * "0x1p-1"), texts too long to remember, and a bad text after its good
 * prefix was remembered.
 */
START_TEST(loads_repeated_weight_texts_as_strtod_does)
{
	enum { TEXTS = 700, WEIGHTS = 6000 };
	static char texts[TEXTS][64];
	for (int i = 0; i < TEXTS; i++) {
		switch (i % 5) {
		case 0: snprintf(texts[i], sizeof texts[i], "%.17g", (i - 350) * 0.05 / 10); break;
		case 1: snprintf(texts[i], sizeof texts[i], "0.1000000000000000%d", i % 10); break;
		case 2: snprintf(texts[i], sizeof texts[i], "%de-%d", i, i % 30); break;
		case 3: snprintf(texts[i], sizeof texts[i], "%.45f", i / 7.0); break;	/* > 40 chars */
		default: snprintf(texts[i], sizeof texts[i], "%s", (const char *[]){ "0.5", "5e-1",
			"0x1p-1", "-0", "0.50" }[(i / 5) % 5]); break;
		}
	}
	size_t cap = 256 + (size_t)WEIGHTS * 64;
	char *text = malloc(cap);
	double *want = malloc(WEIGHTS * sizeof *want);
	ck_assert_ptr_nonnull(text);
	ck_assert_ptr_nonnull(want);
	size_t at = (size_t)snprintf(text, cap, "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\n"
		"nr_feature %d\nbias -1\nw\n", WEIGHTS);
	uint32_t x = 12345;
	for (int i = 0; i < WEIGHTS; i++) {
		x = x * 1103515245u + 12345u;
		const char *t = texts[(x >> 8) % TEXTS];
		want[i] = strtod(t, NULL);
		at += (size_t)snprintf(text + at, cap - at, "%s \n", t);
	}
	struct model *m = load_text(text);
	ck_assert_ptr_nonnull(m);
	for (int i = 0; i < WEIGHTS; i++)
		ck_assert_msg(memcmp(&m->w[i], &want[i], sizeof(double)) == 0,
			"w[%d]: %.17g, strtod gives %.17g", i, m->w[i], want[i]);
	free_and_destroy_model(&m);

	/* a bad text after its good prefix was remembered is still refused */
	stderr_capture_start();
	m = load_text("solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 3\nbias -1\nw\n"
		"0.5 \n0.5 \n0.5x \n");
	const char *err = stderr_capture_end();
	ck_assert_ptr_null(m);
	ck_assert_ptr_nonnull(strstr(err, "fscanf failed to read the model"));
	free(want);
	free(text);
}
END_TEST

START_TEST(missing_file_gives_null_silently)
{
	stderr_capture_start();
	struct model *m = load_model("/nonexistent/dir/none.model");
	const char *err = stderr_capture_end();
	ck_assert_ptr_null(m);
	ck_assert_str_eq(err, "");
}
END_TEST

/* ---- what load_model refuses ---- */

static void assert_rejected(const char *text, const char *message)
{
	stderr_capture_start();
	struct model *m = load_text(text);
	const char *err = stderr_capture_end();
	ck_assert_ptr_null(m);
	ck_assert_str_eq(err, message);
}

#define HEADER_LR "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 2\n"

START_TEST(rejects_unknown_solver_name)
{
	assert_rejected("solver_type L2R_FOO\nnr_class 2\n", "unknown solver type.\n");
}
END_TEST

START_TEST(rejects_unknown_keyword)
{
	assert_rejected("solver_type L2R_LR\nfoo 2\n", "unknown text in model file: [foo]\n");
	/* A keyword longer than upstream's %80s is shown cut at 80 characters. */
	char text[256], shown[128];
	memset(shown, 'k', 80);
	shown[80] = '\0';
	snprintf(text, sizeof text, "%skkkk 1\n", shown);
	char message[160];
	snprintf(message, sizeof message, "unknown text in model file: [%s]\n", shown);
	assert_rejected(text, message);
}
END_TEST

START_TEST(rejects_short_or_malformed_values)
{
	const char *short_read = "ERROR: fscanf failed to read the model\n";
	assert_rejected(HEADER_LR "bias -1\nw\n0.5\n", short_read);
	assert_rejected(HEADER_LR "bias -1\nw\n0.5 abc\n", short_read);
	assert_rejected(HEADER_LR "bias -1\nw\n0.5 1.0x\n", short_read);
	assert_rejected(HEADER_LR "bias\n", short_read);
	assert_rejected("solver_type L2R_LR\nnr_class 99999999999\n", short_read);
	assert_rejected("solver_type L2R_LR\nnr_class 2\nlabel 1 x\n", short_read);
	assert_rejected("solver_type L2R_LR\nnr_class 2.5\n", short_read);
	assert_rejected("", short_read);
	assert_rejected(HEADER_LR "bias -1\n", short_read);	/* no "w" */
}
END_TEST

START_TEST(rejects_missing_header_lines)
{
	assert_rejected("solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 2\nw\n1 2\n",
		"ERROR: no bias in model file\n");
	assert_rejected("nr_class 2\nlabel 1 -1\nnr_feature 2\nbias -1\nw\n1 2\n",
		"ERROR: no solver_type in model file\n");
	assert_rejected("solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nbias -1\nw\n1 2\n",
		"ERROR: no nr_feature in model file\n");
	assert_rejected("solver_type L2R_LR\nnr_class 2\nnr_feature 2\nbias -1\nw\n1 2\n",
		"ERROR: no label in model file\n");
	assert_rejected("solver_type ONECLASS_SVM\nnr_class 2\nnr_feature 1\nbias -1\nw\n1\n",
		"ERROR: no rho in model file (a ONECLASS_SVM model needs one)\n");
}
END_TEST

START_TEST(rejects_inconsistent_headers)
{
	assert_rejected("solver_type L2R_LR\nlabel 1 -1\nnr_class 2\n",
		"ERROR: label before nr_class in model file\n");
	assert_rejected("solver_type L2R_LR\nnr_class -3\n",
		"ERROR: negative nr_class in model file\n");
	assert_rejected(HEADER_LR "nr_feature 3\n", "ERROR: nr_feature given twice in model file\n");
	assert_rejected("solver_type L2R_L2LOSS_SVR\nnr_class 3\nnr_feature 1\nbias -1\nw\n1 2 3\n",
		"ERROR: nr_class must be 2 for a regression or one-class model\n");
}
END_TEST

/*
 * nr_feature + 1 rows overflow int; the product is computed in 64 bits and
 * checked against the bytes the file has left before anything is
 * allocated (test_model_size.c proves no allocation happens).
 */
START_TEST(rejects_sizes_past_int)
{
	assert_rejected("solver_type L2R_L2LOSS_SVR\nnr_class 2\n"
		"nr_feature 2147483647\nbias 1\nw\n1 2 3\n",
		"ERROR: model file too short: its header claims 2147483648 weights, "
		"but the 6 bytes left can hold at most 3\n");
	assert_rejected("solver_type L2R_LR\nnr_class 2147483648\n",
		"ERROR: fscanf failed to read the model\n");
}
END_TEST

/* Every prefix and every one-byte corruption of a valid file is survived. */
START_TEST(survives_truncation_and_corruption)
{
	const char *valid =
		"solver_type L2R_LR\nnr_class 3\nlabel 1 2 3\nnr_feature 2\nbias 1\n"
		"w\n0.5 1 2 \n-1 -2 3 \n4 5 6 \n";
	size_t len = strlen(valid);
	char text[256];
	int loaded = 0;
	stderr_capture_start();
	for (size_t cut = 0; cut < len; cut++) {
		memcpy(text, valid, cut);
		text[cut] = '\0';
		struct model *m = load_text(text);
		if (m != NULL)
			loaded++;
		free_and_destroy_model(&m);
	}
	for (size_t at = 0; at < len; at++) {
		const char bytes[] = { 'x', '9', '-', ' ', '\0' };
		for (size_t b = 0; b < sizeof bytes; b++) {
			memcpy(text, valid, len + 1);
			text[at] = bytes[b];
			struct model *m = load_text(text);
			free_and_destroy_model(&m);
		}
	}
	stderr_capture_end();
	/* Only cuts inside the last weight's token (or its trailing space) load. */
	ck_assert_int_le(loaded, 2);
}
END_TEST

/* ---- atomic replacement ---- */

/* Names in dir other than "." and ".."; the result is how many. */
static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static struct model *small_model(double w0)
{
	const int labels[] = { 1, -1 };
	const double w[] = { w0, 2 };
	return hand_model(L2R_L2LOSS_SVC, 2, labels, 2, -1, w, 2);
}

START_TEST(fails_cleanly_when_path_is_a_directory)
{
	fresh_dir();
	struct model *m = small_model(1);
	const char *path = model_path("sub");
	ck_assert_int_eq(mkdir(path, 0755), 0);
	ck_assert_int_eq(save_model(path, m), -1);
	ck_assert_int_eq(count_entries(dir_buf), 1);
	ck_assert_int_eq(count_entries(path), 0);
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(fails_cleanly_when_directory_is_missing_or_not_a_directory)
{
	fresh_dir();
	struct model *m = small_model(1);
	const char *path = model_path("missing/m.model");
	ck_assert_int_eq(save_model(path, m), -1);

	/* A parent that is a regular file fails even for root (ENOTDIR). */
	char file[300], inside[320];
	snprintf(file, sizeof file, "%s/plain", dir_buf);
	write_text(file, "not a directory\n");
	snprintf(inside, sizeof inside, "%s/m.model", file);
	ck_assert_int_eq(save_model(inside, m), -1);
	ck_assert_int_eq(count_entries(dir_buf), 1);
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(replaces_existing_file_keeping_permissions)
{
	fresh_dir();
	struct model *m = small_model(3);
	const char *path = model_path("m.model");
	write_text(path, "old contents that are longer than the new model file, "
		"so a non-truncating write would leave a tail behind\n"
		"......................................................................\n");
	ck_assert_int_eq(chmod(path, 0640), 0);
	ck_assert_int_eq(save_model(path, m), 0);
	char *text = slurp(path);
	ck_assert_str_eq(text, "solver_type L2R_L2LOSS_SVC\nnr_class 2\nlabel 1 -1\nnr_feature 2\n"
		"bias -1\nw\n3 \n2 \n");
	free(text);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 07777, 0640);
	ck_assert_int_eq(count_entries(dir_buf), 1);
	free_and_destroy_model(&m);
}
END_TEST

START_TEST(writes_through_symlink_and_into_devices)
{
	fresh_dir();
	struct model *m = small_model(4);
	const char *link = model_path("link.model");
	char target[300];
	snprintf(target, sizeof target, "%s/target.model", dir_buf);
	write_text(target, "old\n");
	ck_assert_int_eq(symlink(target, link), 0);
	ck_assert_int_eq(save_model(link, m), 0);
	struct stat st;
	ck_assert_int_eq(lstat(link, &st), 0);
	ck_assert(S_ISLNK(st.st_mode));
	char *text = slurp(target);
	ck_assert_ptr_nonnull(strstr(text, "\nw\n4 \n2 \n"));
	free(text);
	ck_assert_int_eq(count_entries(dir_buf), 2);

	/* A device is written in place, never replaced by a regular file. */
	ck_assert_int_eq(save_model("/dev/null", m), 0);
	ck_assert_int_eq(stat("/dev/null", &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
	free_and_destroy_model(&m);
}
END_TEST

/* ---- locale ---- */

START_TEST(ignores_and_keeps_the_callers_decimal_comma_locale)
{
	const char *names[] = { "de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "de_DE", NULL };
	const char *set = NULL;
	for (int i = 0; names[i] != NULL && set == NULL; i++)
		set = setlocale(LC_ALL, names[i]);
	/* .ci/run installs de_DE.UTF-8; without any such locale this check cannot run. */
	ck_assert_msg(set != NULL, "no decimal-comma locale installed (see .ci/run: locale-gen de_DE.UTF-8)");
	ck_assert_str_eq(localeconv()->decimal_point, ",");
	struct model *m = small_model(0.5);
	const char *path = model_path("m.model");
	ck_assert_int_eq(save_model(path, m), 0);
	char *text = slurp(path);
	ck_assert_ptr_nonnull(strstr(text, "\nw\n0.5 \n2 \n"));
	free(text);
	struct model *back = load_model(path);
	ck_assert_ptr_nonnull(back);
	ck_assert(back->w[0] == 0.5);
	ck_assert_str_eq(localeconv()->decimal_point, ",");
	ck_assert_str_eq(setlocale(LC_ALL, NULL), set);
	free_and_destroy_model(&back);
	free_and_destroy_model(&m);
	setlocale(LC_ALL, "C");
}
END_TEST

static Suite *model_io_suite(void)
{
	Suite *s = suite_create("model_io");
	TCase *save = tcase_create("save text");
	tcase_add_test(save, saves_binary_text);
	tcase_add_test(save, saves_multiclass_text_with_bias_row);
	tcase_add_test(save, saves_regression_without_label_line);
	tcase_add_test(save, saves_oneclass_with_rho);
	tcase_add_test(save, saves_two_class_crammer_singer_with_two_columns);
	tcase_add_test(save, saves_empty_and_single_class_models);
	tcase_add_test(save, refuses_unknown_solver_type_and_writes_nothing);
	suite_add_tcase(s, save);
	TCase *trip = tcase_create("round trip");
	tcase_add_test(trip, round_trip_keeps_every_bit);
	tcase_add_test(trip, round_trip_of_oneclass_and_regression);
	tcase_add_test(trip, loads_keywords_in_any_order_and_ignores_trailing_text);
	tcase_add_test(trip, missing_file_gives_null_silently);
	tcase_add_test(trip, loads_repeated_weight_texts_as_strtod_does);
	suite_add_tcase(s, trip);
	TCase *bad = tcase_create("load rejects");
	tcase_add_test(bad, rejects_unknown_solver_name);
	tcase_add_test(bad, rejects_unknown_keyword);
	tcase_add_test(bad, rejects_short_or_malformed_values);
	tcase_add_test(bad, rejects_missing_header_lines);
	tcase_add_test(bad, rejects_inconsistent_headers);
	tcase_add_test(bad, rejects_sizes_past_int);
	tcase_add_test(bad, survives_truncation_and_corruption);
	suite_add_tcase(s, bad);
	TCase *atomic = tcase_create("atomic write");
	tcase_add_test(atomic, fails_cleanly_when_path_is_a_directory);
	tcase_add_test(atomic, fails_cleanly_when_directory_is_missing_or_not_a_directory);
	tcase_add_test(atomic, replaces_existing_file_keeping_permissions);
	tcase_add_test(atomic, writes_through_symlink_and_into_devices);
	tcase_add_test(atomic, ignores_and_keeps_the_callers_decimal_comma_locale);
	suite_add_tcase(s, atomic);
	return s;
}

UNIT_MAIN(model_io_suite)
