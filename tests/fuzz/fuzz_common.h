/*
 * fuzz_common.h - what the libFuzzer targets in tests/fuzz/ share: a
 * private scratch directory for the loaders that take a path, writing an
 * input there, the .ik checksum fix-up, and a check that aborts (so a
 * broken invariant is a finding like a crash).
 *
 * Contract: every function here is deterministic and leaves nothing
 * behind: each target removes the files it wrote before returning, and
 * the directory is removed at exit. An I/O failure of the scratch
 * directory itself (disk full, no /tmp) is not a finding of the code
 * under test, so it ends the process with a message instead of a crash.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "linear.h"

/* A broken invariant: abort() so that libFuzzer keeps the input. */
#define FUZZ_CHECK(cond)                                                            \
	do {                                                                        \
		if (!(cond)) {                                                      \
			fprintf(stderr, "fuzz invariant failed: %s (%s:%d)\n", #cond, \
				__FILE__, __LINE__);                                \
			abort();                                                    \
		}                                                                   \
	} while (0)

static char fuzz_scratch[256];

static inline void fuzz_remove_scratch(void)
{
	if (fuzz_scratch[0] != '\0')
		rmdir(fuzz_scratch);
}

static inline void fuzz_give_up(const char *what)
{
	perror(what);
	exit(2);
}

/*
 * The private directory (mkdtemp, mode 0700), created on first use under
 * $FUZZ_SCRATCH, else /dev/shm when it is a writable folder (no disk
 * behind the writers' fsync: 3.4x the executions of fuzz_model), else
 * $TMPDIR, else /tmp.
 */
static inline const char *fuzz_dir(void)
{
	if (fuzz_scratch[0] != '\0')
		return fuzz_scratch;
	struct stat st;
	const char *base = getenv("FUZZ_SCRATCH");
	if ((base == NULL || base[0] == '\0') && stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode)
		&& access("/dev/shm", W_OK) == 0)
		base = "/dev/shm";
	if (base == NULL || base[0] == '\0')
		base = getenv("TMPDIR");
	if (base == NULL || base[0] == '\0')
		base = "/tmp";
	int n = snprintf(fuzz_scratch, sizeof fuzz_scratch, "%s/liblinear-fuzz.XXXXXX", base);
	if (n < 0 || (size_t)n >= sizeof fuzz_scratch)
		fuzz_give_up("fuzz scratch directory name too long");
	if (mkdtemp(fuzz_scratch) == NULL)
		fuzz_give_up("mkdtemp");
	atexit(fuzz_remove_scratch);
	return fuzz_scratch;
}

/* dir/name into out (cap bytes). */
static inline void fuzz_path(char *out, size_t cap, const char *name)
{
	int n = snprintf(out, cap, "%s/%s", fuzz_dir(), name);
	if (n < 0 || (size_t)n >= cap)
		fuzz_give_up("fuzz path too long");
}

/* Writes size bytes to path (created or truncated). */
static inline void fuzz_write_file(const char *path, const void *data, size_t size)
{
	FILE *fp = fopen(path, "wb");
	if (fp == NULL)
		fuzz_give_up(path);
	int bad = size > 0 && fwrite(data, 1, size, fp) != size;
	if (fclose(fp) != 0 || bad)
		fuzz_give_up(path);
}

/* 64-bit FNV-1a, the .ik file's checksum (ikmap_file.c's format). */
static inline uint64_t fuzz_fnv1a(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/*
 * Overwrites the last 8 bytes of a .ik image with the little-endian
 * checksum of the bytes before them and returns it (0 when the image is
 * shorter than 8 bytes). Without this, almost every mutation would stop
 * at the checksum and the decoder behind it would never be reached; the
 * checksum is no protection anyway (anyone can recompute it).
 */
static inline uint64_t fuzz_fix_checksum(unsigned char *image, size_t size)
{
	if (size < 8)
		return 0;
	uint64_t sum = fuzz_fnv1a(image, size - 8);
	for (int i = 0; i < 8; i++)
		image[size - 8 + (size_t)i] = (unsigned char)(sum >> (8 * i));
	return sum;
}

/* A private, writable copy of the input (libFuzzer's data is read-only). */
static inline unsigned char *fuzz_copy(const uint8_t *data, size_t size)
{
	unsigned char *copy = malloc(size > 0 ? size : 1);
	if (copy == NULL)
		fuzz_give_up("malloc");
	if (size > 0)
		memcpy(copy, data, size);
	return copy;
}

/* One of the model's labels; 0 for a model of no class (decision.c: trained on no data). */
static inline int fuzz_is_label(const struct model *m, double y)
{
	if (m->nr_class <= 0)
		return y == 0;
	for (int i = 0; i < m->nr_class; i++)
		if (y == m->label[i])
			return 1;
	return 0;
}

#endif /* FUZZ_COMMON_H */
