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
	struct ikmap_params p = { method, 4, 8, 7, scale, 1 };
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
 * Loads path in a child limited to HEADROOM more address space. Exit
 * status: 0 refused with a message that is not "out of memory", 1 loaded,
 * 2 refused for lack of memory (the loader believed the header).
 */
static int load_in_small_child(const char *path)
{
	fflush(NULL);
	pid_t pid = fork();
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
			 * consistent (and costs nothing); every other change is refused. */
			int consistent = method == IKMAP_IFOREST && fields[f].at == AT_PSI
				&& value <= 0x7fffffffULL / 4;
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
	struct ikmap_params p = { IKMAP_IFOREST, 4, 8, 7, 0, 1 };
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
	struct ikmap_params p = { IKMAP_ANNE, 2, 4, 7, 0, 1 };
	char err[IKMAP_ERR_SIZE] = "";
	ck_assert_ptr_null(ikmap_build(x.row, x.n, IKMAP_MAX_DIM + 1, &p, err));
	ck_assert_msg(strstr(err, "at most 33554430") != NULL, "%s", err);
	data_free(&x);
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
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(ikmap_files_suite)
