/*
 * test_ikmap_files.c - partitioning files from hostile hands: crafted
 * headers (with recomputed checksums) must be refused before any large
 * allocation, a FIFO is never waited on, and saving never replaces what
 * is not a regular file.
 */
/* mknod() and S_IFCHR are XSI. */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include "unit.h"
#include "scratch_dir.h"
#include "ikmap.h"
#include "ikmap_fixtures.h"
#include "gemm.h"

/* Byte offsets of the header's fields (ikmap_file.c, "Format"). */
enum { AT_VERSION = 8, AT_METHOD = 12, AT_T = 16, AT_PSI = 20, AT_DIM = 24, AT_SCALED = 28,
	AT_SEED = 32, AT_COUNT1 = 40, AT_COUNT2 = 48 };

/* Extra address space the child may map beyond what it has: far below what the old loader asked for. */
#define HEADROOM (192L << 20)

struct file_image {
	unsigned char *bytes;
	size_t size;
};

static struct file_image saved_map(enum ikmap_method method, int scale)
{
	struct data x = random_data(40, 6, 0.6, -2, 3, 11);
	struct ikmap_params p = { method, 4, 8, 7, scale, 1, 0 };
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap *map = ikmap_build(x.row, x.n, x.d, &p, err);
	ck_assert_msg(map != NULL, "%s", err);
	const char *path = scratch_path("good.ik");
	ck_assert_msg(ikmap_save(map, path, err) == 0, "%s", err);
	ikmap_free(map);
	data_free(&x);
	struct file_image f = { NULL, 0 };
	FILE *fp = fopen(path, "rb");
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fseek(fp, 0, SEEK_END), 0);
	f.size = (size_t)ftell(fp);
	rewind(fp);
	f.bytes = malloc(f.size);
	ck_assert_ptr_nonnull(f.bytes);
	ck_assert_uint_eq(fread(f.bytes, 1, f.size, fp), f.size);
	fclose(fp);
	return f;
}

static void put_le(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* What anyone can do: recompute the 64-bit FNV-1a at the end. */
static void reseal(struct file_image *f)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i + 8 < f->size; i++)
		h = (h ^ f->bytes[i]) * 0x100000001b3ULL;
	put_le(f->bytes + f->size - 8, h, 8);
}

/* Current address space of this process, from /proc/self/statm (pages). */
static long address_space_bytes(void)
{
	FILE *fp = fopen("/proc/self/statm", "r");
	ck_assert_ptr_nonnull(fp);
	long pages = 0;
	ck_assert_int_eq(fscanf(fp, "%ld", &pages), 1);
	fclose(fp);
	return pages * sysconf(_SC_PAGESIZE);
}

/*
 * fork() for the children below, which cap their address space. The GEMM
 * library (OpenBLAS, which ikmap/gemm.c opens on first use) is loaded
 * first, in the parent, as it was when it was linked: its thread pool's
 * buffers (128 MiB each) are not the map memory these tests measure, and a
 * pool that OpenBLAS stops at fork is not restarted by the child's serial
 * GEMMs. Loaded in the capped child, the pool's start-up allocation fails
 * there (ASan aborts on it), whatever the map does.
 */
static pid_t fork_child(void)
{
	(void)ikmap_gemm_name();
	fflush(NULL);
	return fork();
}

/*
 * Loads path in a child limited to HEADROOM more address space. Exit
 * status: 0 refused with a message that is not "out of memory", 1 loaded,
 * 2 refused for lack of memory (the loader believed the header).
 */
static int load_in_small_child(const char *path)
{
	pid_t pid = fork_child();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rlimit lim = { address_space_bytes() + HEADROOM, RLIM_INFINITY };
		lim.rlim_max = lim.rlim_cur;
		if (setrlimit(RLIMIT_AS, &lim) != 0)
			_exit(3);
		char err[IKMAP_ERR_SIZE] = "";
		struct ikmap *map = ikmap_load(path, err);
		if (map != NULL)
			_exit(1);
		_exit(strstr(err, "out of memory") != NULL || err[0] == '\0' ? 2 : 0);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status), "the load was killed by signal %d", WTERMSIG(status));
	return WEXITSTATUS(status);
}

struct crafted_field {
	const char *name;
	int at, bytes;
};

static const struct crafted_field fields[] = {
	{ "method", AT_METHOD, 4 }, { "t", AT_T, 4 }, { "psi", AT_PSI, 4 }, { "d", AT_DIM, 4 },
	{ "scaled", AT_SCALED, 4 }, { "count1", AT_COUNT1, 8 }, { "count2", AT_COUNT2, 8 },
};

static const uint64_t huge_values[] = {
	0x7fffffffULL, 0x80000000ULL, 0xffffffffULL, (1ULL << 25) - 1, 1ULL << 28,
	1ULL << 32, 1ULL << 40, 1ULL << 62, 0xffffffffffffffffULL,
};

static void check_crafted_headers(enum ikmap_method method, int scale)
{
	struct file_image good = saved_map(method, scale);
	const char *path = scratch_path("crafted.ik");
	for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
		for (size_t v = 0; v < sizeof huge_values / sizeof huge_values[0]; v++) {
			uint64_t value = huge_values[v];
			if (fields[f].bytes == 4 && value > 0xffffffffULL)
				continue;
			struct file_image bad = { malloc(good.size), good.size };
			ck_assert_ptr_nonnull(bad.bytes);
			memcpy(bad.bytes, good.bytes, good.size);
			put_le(bad.bytes + fields[f].at, value, fields[f].bytes);
			reseal(&bad);
			FILE *fp = fopen(path, "wb");
			ck_assert_ptr_nonnull(fp);
			ck_assert_uint_eq(fwrite(bad.bytes, 1, bad.size, fp), bad.size);
			ck_assert_int_eq(fclose(fp), 0);
			free(bad.bytes);
			int rc = load_in_small_child(path);
			/* An iForest tree may have fewer leaves than psi: a larger psi is
			 * consistent (and costs nothing); so is any d up to IKMAP_MAX_DIM
			 * for a map that stores no factors (it only bounds the indices,
			 * and must cost nothing either); every other change is refused. */
			int consistent = (method == IKMAP_IFOREST && fields[f].at == AT_PSI
				&& value <= 0x7fffffffULL / 4)
				|| (!scale && fields[f].at == AT_DIM && value <= IKMAP_MAX_DIM);
			ck_assert_msg(rc == 0 || (rc == 1 && consistent), "%s (%s, scale %d) = %#llx: %s", fields[f].name,
				ikmap_method_name(method), scale, (unsigned long long)value,
				rc == 1 ? "loaded" : rc == 2 ? "the loader tried to allocate for it"
				: "the child could not limit itself");
		}
	free(good.bytes);
	/* the unchanged file loads under the same limit */
	ck_assert_int_eq(load_in_small_child(scratch_path("good.ik")), 1);
}

START_TEST(crafted_header_sizes_are_refused_without_allocating)
{
	scratch_dir_make("test_ikmap_files");
	check_crafted_headers(IKMAP_ANNE, 0);
	check_crafted_headers(IKMAP_ANNE, 1);
	check_crafted_headers(IKMAP_IFOREST, 0);
	scratch_dir_remove();
}
END_TEST

START_TEST(a_fifo_is_refused_at_once)
{
	scratch_dir_make("test_ikmap_files");
	const char *path = scratch_path("fifo.ik");
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	alarm(10);	/* the old loader's fopen waited for a writer forever */
	char err[IKMAP_ERR_SIZE] = "";
	ck_assert_ptr_null(ikmap_load(path, err));
	alarm(0);
	ck_assert_msg(strstr(err, "not a regular file") != NULL, "%s", err);
	scratch_dir_remove();
}
END_TEST

/* Names in the scratch folder, sorted, joined by spaces. */
static char *listing(void)
{
	char command[160];
	snprintf(command, sizeof command, "ls -A '%s' | tr '\\n' ' '", scratch_dir);
	FILE *p = popen(command, "r");
	ck_assert_ptr_nonnull(p);
	static char out[512];
	size_t n = fread(out, 1, sizeof out - 1, p);
	out[n] = '\0';
	pclose(p);
	return out;
}

START_TEST(saving_never_replaces_what_is_not_a_file)
{
	scratch_dir_make("test_ikmap_files");
	struct data x = random_data(40, 6, 0.6, -2, 3, 11);
	struct ikmap_params p = { IKMAP_IFOREST, 4, 8, 7, 0, 1, 0 };
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap *map = ikmap_build(x.row, x.n, x.d, &p, err);
	ck_assert_ptr_nonnull(map);
	ck_assert_int_eq(mkfifo(scratch_path("fifo"), 0600), 0);
	ck_assert_int_eq(mkdir(scratch_path("folder"), 0700), 0);
	int device = geteuid() == 0 && mknod(scratch_path("null"), S_IFCHR | 0666, makedev(1, 3)) == 0;
	ck_assert_int_eq(ikmap_save(map, scratch_path("fifo"), err), -1);
	ck_assert_msg(strstr(err, "not a regular file") != NULL, "%s", err);
	ck_assert_int_eq(ikmap_save(map, scratch_path("folder"), err), -1);
	if (device)
		ck_assert_int_eq(ikmap_save(map, scratch_path("null"), err), -1);
	struct stat st;
	ck_assert_int_eq(stat(scratch_path("fifo"), &st), 0);
	ck_assert(S_ISFIFO(st.st_mode));
	ck_assert_int_eq(stat(scratch_path("folder"), &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	if (device) {
		ck_assert_int_eq(stat(scratch_path("null"), &st), 0);
		ck_assert(S_ISCHR(st.st_mode));
	}
	ck_assert_str_eq(listing(), device ? "fifo folder null " : "fifo folder ");
	ikmap_free(map);
	data_free(&x);
	scratch_dir_remove();
}
END_TEST

START_TEST(build_refuses_more_features_than_a_file_may_claim)
{
	struct data x = random_data(10, 3, 1, 0, 1, 3);
	struct ikmap_params p = { IKMAP_ANNE, 2, 4, 7, 0, 1, 0 };
	char err[IKMAP_ERR_SIZE] = "";
	ck_assert_ptr_null(ikmap_build(x.row, x.n, IKMAP_MAX_DIM + 1, &p, err));
	ck_assert_msg(strstr(err, "at most 2147483646") != NULL, "%s", err);
	/* a scaled map stores d factors: it keeps the old cap */
	p.scale = 1;
	ck_assert_ptr_null(ikmap_build(x.row, x.n, IKMAP_MAX_SCALED_DIM + 1, &p, err));
	ck_assert_msg(strstr(err, "at most 33554430") != NULL, "%s", err);
	data_free(&x);
}
END_TEST

/*
 * Rows with indices up to 6 (as saved_map's) and a few far above: the
 * part below 7 must map as in the narrow map; the far features meet no
 * centre and no split.
 */
static struct data probe_rows(void)
{
	return random_data(30, 6, 0.6, -2, 3, 29);
}

/* Cells of x under map, each row given an extra feature at index far (0: none); 0 or -1. */
static int map_rows(const struct ikmap *map, const struct data *x, int far, void *cells)
{
	for (int i = 0; i < x->n; i++) {
		struct feature_node row[8];
		int k = 0;
		for (const struct feature_node *f = x->row[i]; f->index != -1; f++)
			row[k++] = *f;
		if (far > 0)
			row[k++] = (struct feature_node){ far, 1.5 };
		row[k].index = -1;
		struct feature_node *one[1] = { row };
		if (ikmap_map(map, one, 1, (char *)cells + (size_t)i * ikmap_t(map)
				* ikmap_cell_size(map), 1, NULL) != 0)
			return -1;
	}
	return 0;
}

/*
 * In a child with HEADROOM more address space: loads path, checks its d,
 * and compares the cells of the probe rows with the narrow map's; the
 * rows are then mapped with a feature at d and one just above the
 * largest stored index (no comparison: the narrow map ignores them, the
 * wide one adds them to every distance alike). Exit status:
 * 0 as expected, 1 wrong cells or d, 2 refused (err "out of memory" or
 * not), 3 no limit.
 */
static int load_and_map_in_small_child(const char *path, uint32_t dim, const void *expected,
	size_t bytes)
{
	pid_t pid = fork_child();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rlimit lim = { address_space_bytes() + HEADROOM, RLIM_INFINITY };
		lim.rlim_max = lim.rlim_cur;
		if (setrlimit(RLIMIT_AS, &lim) != 0)
			_exit(3);
		char err[IKMAP_ERR_SIZE] = "";
		struct ikmap *map = ikmap_load(path, err);
		if (map == NULL)
			_exit(2);
		struct data x = probe_rows();
		unsigned char *cells = malloc(bytes);
		if (!cells)
			_exit(2);
		if (map_rows(map, &x, 0, cells))
			_exit(2);
		int same = memcmp(cells, expected, bytes) == 0 && (uint32_t)ikmap_dim(map) == dim;
		if (map_rows(map, &x, (int)dim, cells) || map_rows(map, &x, 7, cells))
			_exit(2);
		_exit(same ? 0 : 1);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status), "the child was killed by signal %d", WTERMSIG(status));
	return WEXITSTATUS(status);
}

static void check_wide_unscaled_file(enum ikmap_method method)
{
	struct file_image good = saved_map(method, 0);
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap *narrow = ikmap_load(scratch_path("good.ik"), err);
	ck_assert_msg(narrow != NULL, "%s", err);
	struct data x = probe_rows();
	size_t bytes = (size_t)x.n * (size_t)ikmap_t(narrow) * ikmap_cell_size(narrow);
	unsigned char *expected = malloc(bytes);
	ck_assert_ptr_nonnull(expected);
	ck_assert_int_eq(map_rows(narrow, &x, 0, expected), 0);
	/* the fuzzer's findings (2^25 - 2, 218M) and the largest d there is */
	const uint32_t dims[] = { (1u << 25) - 2, 218000000u, (uint32_t)IKMAP_MAX_DIM };
	const char *path = scratch_path("wide.ik");
	for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
		put_le(good.bytes + AT_DIM, dims[i], 4);
		reseal(&good);
		FILE *fp = fopen(path, "wb");
		ck_assert_ptr_nonnull(fp);
		ck_assert_uint_eq(fwrite(good.bytes, 1, good.size, fp), good.size);
		ck_assert_int_eq(fclose(fp), 0);
		int rc = load_and_map_in_small_child(path, dims[i], expected, bytes);
		ck_assert_msg(rc == 0, "%s d = %u: %s", ikmap_method_name(method), dims[i],
			rc == 1 ? "other cells or d" : rc == 2 ? "not loaded or not mapped in 192 MiB"
			: "the child could not limit itself");
	}
	/* one past the largest is refused with a message */
	put_le(good.bytes + AT_DIM, (uint32_t)IKMAP_MAX_DIM + 1, 4);
	reseal(&good);
	FILE *fp = fopen(path, "wb");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(good.bytes, 1, good.size, fp), good.size);
	ck_assert_int_eq(fclose(fp), 0);
	ck_assert_int_eq(load_in_small_child(path), 0);
	free(expected);
	data_free(&x);
	ikmap_free(narrow);
	free(good.bytes);
}

START_TEST(unscaled_files_claiming_a_huge_d_load_and_map_in_little_memory)
{
	scratch_dir_make("test_ikmap_files");
	check_wide_unscaled_file(IKMAP_ANNE);
	check_wide_unscaled_file(IKMAP_IFOREST);
	scratch_dir_remove();
}
END_TEST

/* Rows of x, every third one given an extra feature at index far, in store (8 nodes a row). */
static void with_far_feature(const struct data *x, int far, struct feature_node *store,
	struct feature_node **rows)
{
	for (int i = 0; i < x->n; i++) {
		struct feature_node *row = rows[i] = store + (size_t)i * 8;
		int k = 0;
		for (const struct feature_node *f = x->row[i]; f->index != -1; f++)
			row[k++] = *f;
		if (i % 3 == 0)
			row[k++] = (struct feature_node){ far, 0.5 + i * 0.1 };
		row[k].index = -1;
	}
}

/*
 * Builds with d = IKMAP_MAX_DIM in a child of little memory, from rows
 * that use feature far too, saves, loads and maps the probe rows (each
 * with feature far); 0 when both maps' cells are expected, 1 when not,
 * 2 when something failed (out of memory), 3 no limit.
 */
static int build_wide_in_small_child(enum ikmap_method method, int far, const void *expected,
	size_t bytes)
{
	pid_t pid = fork_child();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct rlimit lim = { address_space_bytes() + HEADROOM, RLIM_INFINITY };
		lim.rlim_max = lim.rlim_cur;
		if (setrlimit(RLIMIT_AS, &lim) != 0)
			_exit(3);
		struct data x = random_data(40, 6, 0.6, -2, 3, 11);
		struct feature_node store[40 * 8], *rows[40];
		with_far_feature(&x, far, store, rows);
		struct ikmap_params p = { method, 4, 8, 7, 0, 1, 0 };
		char err[IKMAP_ERR_SIZE] = "";
		struct ikmap *map = ikmap_build(rows, x.n, IKMAP_MAX_DIM, &p, err);
		if (map == NULL || ikmap_save(map, scratch_path("built-wide.ik"), err))
			_exit(2);
		struct ikmap *back = ikmap_load(scratch_path("built-wide.ik"), err);
		struct data probe = probe_rows();
		unsigned char *cells = malloc(bytes), *again = malloc(bytes);
		if (!back || !cells || !again || map_rows(map, &probe, far, cells)
				|| map_rows(back, &probe, far, again))
			_exit(2);
		_exit(memcmp(cells, expected, bytes) == 0 && memcmp(again, expected, bytes) == 0
			? 0 : 1);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status), "the child was killed by signal %d", WTERMSIG(status));
	return WEXITSTATUS(status);
}

/*
 * The expectation: a feature renumbered to another index that keeps the
 * features' order changes neither map (aNNE sums over features in index
 * order, iForest grows on the rows' features in order, whatever their
 * numbers). So data using feature 2^31 - 2 with d = 2^31 - 2 maps as the
 * same data using feature 7 with d = 7; and it must build, save, load
 * and map in little memory (its .ik file has a sample or a split at
 * index 2^31 - 2: no structure may be sized by that index).
 */
START_TEST(an_unscaled_build_of_the_largest_d_costs_no_memory_per_feature)
{
	scratch_dir_make("test_ikmap_files");
	const enum ikmap_method methods[] = { IKMAP_ANNE, IKMAP_IFOREST };
	for (int m = 0; m < 2; m++) {
		struct data x = random_data(40, 6, 0.6, -2, 3, 11);
		struct feature_node store[40 * 8], *rows[40];
		with_far_feature(&x, 7, store, rows);
		struct ikmap_params p = { methods[m], 4, 8, 7, 0, 1, 0 };
		char err[IKMAP_ERR_SIZE] = "";
		struct ikmap *narrow = ikmap_build(rows, x.n, 7, &p, err);
		ck_assert_msg(narrow != NULL, "%s", err);
		struct data probe = probe_rows();
		size_t bytes = (size_t)probe.n * (size_t)ikmap_t(narrow) * ikmap_cell_size(narrow);
		unsigned char *expected = malloc(bytes);
		ck_assert_ptr_nonnull(expected);
		ck_assert_int_eq(map_rows(narrow, &probe, 7, expected), 0);
		int rc = build_wide_in_small_child(methods[m], IKMAP_MAX_DIM, expected, bytes);
		ck_assert_msg(rc == 0, "%s: %s", ikmap_method_name(methods[m]),
			rc == 1 ? "other cells" : rc == 2 ? "not built, saved, loaded and mapped in 192 MiB"
			: "no limit");
		free(expected);
		data_free(&probe);
		data_free(&x);
		ikmap_free(narrow);
	}
	scratch_dir_remove();
}
END_TEST

/*
 * Two centres of 60000 nonzeros each in d = 2^20: the cost model picks
 * the dense path (2 (d + 2) multiply-adds beat 120000 postings), as it
 * does for a crafted file of that shape (under 1.5 MB). Mapping must not
 * pack 256 rows of d floats per thread (1 GiB): the file loads and maps
 * in 192 MiB, with the sparse path's cells.
 */
START_TEST(a_wide_dense_map_maps_in_little_memory)
{
	scratch_dir_make("test_ikmap_files");
	enum { D = 1 << 20, NNZ = 60000 };
	struct feature_node *a = malloc((NNZ + 1) * sizeof *a), *b = malloc((NNZ + 1) * sizeof *b);
	ck_assert(a && b);
	for (int k = 0; k < NNZ; k++) {
		a[k] = (struct feature_node){ 1 + 17 * k, 0.5 + (k % 7) * 0.25 };
		b[k] = (struct feature_node){ 1 + 17 * k, (k % 5) * 0.5 - 1 };
	}
	a[NNZ].index = b[NNZ].index = -1;
	struct feature_node *rows[2] = { a, b };
	struct ikmap_params p = { IKMAP_ANNE, 1, 2, 7, 0, 1, 0 };
	char err[IKMAP_ERR_SIZE] = "";
	struct ikmap *map = ikmap_build(rows, 2, D, &p, err);
	ck_assert_msg(map != NULL, "%s", err);
	ck_assert_int_eq(ikmap_path(map), IKMAP_PATH_DENSE);
	const char *path = scratch_path("dense-wide.ik");
	ck_assert_msg(ikmap_save(map, path, err) == 0, "%s", err);
	ck_assert_msg(ikmap_set_path(map, IKMAP_PATH_SPARSE, err) == 0, "%s", err);
	struct data probe = probe_rows();
	size_t bytes = (size_t)probe.n * ikmap_cell_size(map);
	unsigned char *expected = malloc(bytes);
	ck_assert_ptr_nonnull(expected);
	ck_assert_int_eq(map_rows(map, &probe, 0, expected), 0);
	int rc = load_and_map_in_small_child(path, D, expected, bytes);
	ck_assert_msg(rc == 0, "%s", rc == 1 ? "other cells or d"
		: rc == 2 ? "not loaded or not mapped in 192 MiB" : "no limit");
	free(expected);
	data_free(&probe);
	ikmap_free(map);
	free(a);
	free(b);
	scratch_dir_remove();
}
END_TEST

static Suite *ikmap_files_suite(void)
{
	Suite *s = suite_create("ikmap_files");
	TCase *tc = tcase_create("hostile files");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, crafted_header_sizes_are_refused_without_allocating);
	tcase_add_test(tc, a_fifo_is_refused_at_once);
	tcase_add_test(tc, saving_never_replaces_what_is_not_a_file);
	tcase_add_test(tc, build_refuses_more_features_than_a_file_may_claim);
	tcase_add_test(tc, unscaled_files_claiming_a_huge_d_load_and_map_in_little_memory);
	tcase_add_test(tc, an_unscaled_build_of_the_largest_d_costs_no_memory_per_feature);
	tcase_add_test(tc, a_wide_dense_map_maps_in_little_memory);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(ikmap_files_suite)
