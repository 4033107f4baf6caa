/*
 * ikmap_file.c - the partitioning file: writing it atomically, reading
 * and verifying it, and its checksum.
 *
 * Format, version 1, every number little-endian whatever the host:
 *   magic    8 bytes  "IKMAP\r\n\x1a" (the \r\n and ^Z catch text-mode mangling)
 *   u32 version, u32 method (0 aNNE, 1 iForest), u32 t, u32 psi, u32 d,
 *   u32 scaled (0/1), u64 seed, u64 count1, u64 count2
 *   f64 factor[d]                      (features 1..d; only when scaled)
 *   aNNE (count1 = distinct sampled rows U, count2 = their nonzeros Z):
 *     u32 length[U]  u32 index[Z]  f64 value[Z] (raw, unscaled)
 *     u32 centre[t*psi]                (sample of centre i of partitioning k at k*psi+i)
 *   iForest (count1 = 0, count2 = total nodes N):
 *     u32 nodes[t]  u32 feature[N] (0 = leaf)  u32 child[N]  f64 split[N]
 *     (child: inner node: its left child within the tree, right = left + 1;
 *      leaf: its leaf number)
 *   u64 checksum: 64-bit FNV-1a of every byte before it
 * Doubles are stored as their IEEE-754 bit patterns.
 *
 * Version 2 (issues 27 and 28), written for min-max and acos maps and
 * for the transforms that version 1 cannot hold (aNNE with scale 2, 3 or
 * 4; iForest with 4); aNNE with scale 0 or 1 and iForest with 0 (what
 * it keeps of 1-3) are still written as version 1, byte for byte. The
 * same 56-byte header:
 *   magic, u32 version = 2, u32 method (0 aNNE, 1 iForest, 2 min-max,
 *   3 acos), u32 t (min-max, acos: k), u32 psi (min-max: cells, a power
 *   of two 16..65536; acos: 2), u32 d, u32 scale (0..4, ikmap.h), u64 seed,
 *   u64 count1, u64 count2 (aNNE and iForest: as in version 1; min-max
 *   and acos: 0, reserved)
 *   f64 min[d]      (features 1..d; min-max and acos with scale 2 only)
 *   f64 factor[d]   (features 1..d; every scale but 0, iForest never)
 *   aNNE and iForest: the version-1 body (samples raw, unscaled)
 *   u64 checksum
 * A raw part (issue 28, ikmap.h Raw features) needs version 2 and sets
 * bit 8 (RAW_FLAG, 0x100) of the scale field, whose low byte stays the
 * scale code; right after the header then come
 *   f64 w                 (finite, > 0)
 *   f64 raw_factor[d]     (iForest under scale 2 only: finite, > 0)
 * before the arrays above. A map without one never sets the bit, so its
 * file is the same as before raw parts existed. With the bit, every
 * method takes every scale code 0..4 (iForest: 0, 2 or 4), and t * psi +
 * d <= INT_MAX - 2 is checked; any other bit of the field is damage.
 * Min-max and acos have no per-sample data: the samplers' random numbers
 * come from the seed (ikmap/counter_rng.h). Loading checks, per method:
 * min-max and acos k <= 65536, cells as above, k * cells <= INT_MAX - 2;
 * aNNE a scale of 2-4, iForest 4 (else the map belongs in version 1), and
 * their version-1 shape; d <= IKMAP_MAX_DIM; the size (8 or 16 d bytes
 * of factors tied to the file's length before allocating); every min
 * finite; every factor finite and > 0 (>= 0 for min-max and acos scale 2,
 * where 0 is a zero range); under scale 4 every aNNE sample value >= 0
 * (log1p's domain, as the build rows were).
 *
 * Loading opens only a regular file (never blocking on a FIFO or device),
 * checks the size implied by the header against the file's real size
 * before allocating anything (every count is tied to the file's length,
 * in 64-bit arithmetic that cannot overflow, but d when the map is
 * unscaled: then d only bounds the stored indices and no array has d
 * entries; see IKMAP_MAX_DIM in ikmap.h), then the
 * checksum, then every count, index and value, so a damaged or crafted
 * file is refused, never trusted (the checksum is no defence: anyone can
 * recompute it). Saving goes through common/atomic_file.h.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "atomic_file.h"
#include "ikmap_impl.h"
#include "regular_file.h"

#define VERSION 1
#define VERSION_2 2
#define HEADER_BYTES 56
#define RAW_FLAG 0x100u	/* in the scale field: a raw part follows the header */
static const unsigned char magic[8] = { 'I', 'K', 'M', 'A', 'P', '\r', '\n', 0x1a };

#define FNV_OFFSET 0xcbf29ce484222325ULL

/* FNV-1a of n more bytes after a hash of h (FNV_OFFSET: none yet). */
static uint64_t fnv1a_more(uint64_t h, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
	return fnv1a_more(FNV_OFFSET, p, n);
}

/* ---- writing ---- */

/* Bytes hashed (and written) at a time when no whole file image is wanted. */
#define HASH_CHUNK 4096

/*
 * Writes either a whole file image (start NULL) or into a chunk of
 * HASH_CHUNK bytes at start that is hashed into hash, written to fp (when
 * not NULL) and reused whenever it fills: the checksum and ikmap_write
 * need no buffer of the file's size (a 94 MB map's image used to be held
 * beside the map while it was saved). failed: a write to fp failed.
 */
struct writer {
	unsigned char *p;
	unsigned char *start;
	uint64_t hash;
	FILE *fp;
	int failed;
};

/* Hashes (and writes) the chunk's bytes, and empties it. */
static void flush_chunk(struct writer *w)
{
	size_t n = (size_t)(w->p - w->start);
	w->hash = fnv1a_more(w->hash, w->start, n);
	if (w->fp && !w->failed && fwrite(w->start, 1, n, w->fp) != n)
		w->failed = 1;
	w->p = w->start;
}

/* Room for one more number (at most 8 bytes). */
static void room(struct writer *w)
{
	if (w->start && w->p - w->start > HASH_CHUNK - 8)
		flush_chunk(w);
}

static void put_u32(struct writer *w, uint32_t v)
{
	room(w);
	for (int i = 0; i < 4; i++)
		*w->p++ = (unsigned char)(v >> (8 * i));
}

static void put_u64(struct writer *w, uint64_t v)
{
	room(w);
	for (int i = 0; i < 8; i++)
		*w->p++ = (unsigned char)(v >> (8 * i));
}

static void put_f64(struct writer *w, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	put_u64(w, bits);
}

static uint64_t total_nodes(const struct ikmap *map)
{
	return (uint64_t)map->tree_start[map->t];
}

static uint64_t sample_nnz(const struct ikmap *map)
{
	return (uint64_t)map->sample_start[map->nsamples];
}

/* Min-max and acos: no partitioning data, only parameters and the transform. */
static int is_kernel(uint32_t method)
{
	return method == IKMAP_MINMAX || method == IKMAP_ACOS;
}

/* Version 1 for what it can hold (so such files stay byte for byte as before), else 2. */
static uint32_t file_version(const struct ikmap *map)
{
	return is_kernel(map->method) || map->scaled >= 2 || map->raw_weight > 0 ? VERSION_2 : VERSION;
}

/* The raw part's bytes after the header: w, and iForest's d factors under scale 2. */
static uint64_t raw_bytes(uint32_t method, uint32_t scale, int raw, uint64_t d)
{
	if (!raw)
		return 0;
	return 8 + (method == IKMAP_IFOREST && scale == 2 ? 8 * d : 0);
}

/* The per-feature arrays after the header: d minima, d factors (ikmap_impl.h). */
static uint64_t feature_arrays(uint32_t method, uint32_t scale)
{
	return (uint64_t)ikmap_stores_shift((enum ikmap_method)method, (int)scale)
		+ (uint64_t)ikmap_stores_factors((enum ikmap_method)method, (int)scale);
}

/* Bytes of the file of a map (which exists, so nothing overflows). */
static size_t file_bytes(const struct ikmap *map)
{
	uint64_t n = HEADER_BYTES + 8;
	n += 8 * (uint64_t)map->dim * feature_arrays(map->method, (uint32_t)map->scaled);
	n += raw_bytes(map->method, (uint32_t)map->scaled, map->raw_weight > 0, (uint64_t)map->dim);
	if (is_kernel(map->method))
		;	/* nothing per sample */
	else if (map->method == IKMAP_ANNE)
		n += 4 * (uint64_t)map->nsamples + 12 * sample_nnz(map)
			+ 4 * (uint64_t)map->t * (uint64_t)map->psi;
	else
		n += 4 * (uint64_t)map->t + 16 * total_nodes(map);
	return (size_t)n;
}

/* Writes every byte of the file but the checksum (the part it covers). */
static void put_stored(const struct ikmap *map, struct writer *w)
{
	memcpy(w->p, magic, sizeof magic);	/* first: a chunk has room */
	w->p += sizeof magic;
	put_u32(w, file_version(map));
	put_u32(w, (uint32_t)map->method);
	put_u32(w, (uint32_t)map->t);
	put_u32(w, (uint32_t)map->psi);
	put_u32(w, (uint32_t)map->dim);
	int raw = map->raw_weight > 0;
	put_u32(w, (uint32_t)map->scaled | (raw ? RAW_FLAG : 0));
	put_u64(w, map->seed);
	int anne = map->method == IKMAP_ANNE, kernel = is_kernel(map->method);
	put_u64(w, anne ? (uint64_t)map->nsamples : 0);
	put_u64(w, anne ? sample_nnz(map) : kernel ? 0 : total_nodes(map));
	if (raw) {
		put_f64(w, map->raw_weight);
		if (map->raw_factor)
			for (int j = 1; j <= map->dim; j++)
				put_f64(w, map->raw_factor[j]);
	}
	if (ikmap_stores_shift(map->method, map->scaled))
		for (int j = 1; j <= map->dim; j++)
			put_f64(w, map->shift[j]);
	if (ikmap_stores_factors(map->method, map->scaled))
		for (int j = 1; j <= map->dim; j++)
			put_f64(w, map->factor[j]);
	if (kernel) {
		/* parameters only */
	} else if (anne) {
		uint64_t nnz = sample_nnz(map), m = (uint64_t)map->t * (uint64_t)map->psi;
		for (int s = 0; s < map->nsamples; s++)
			put_u32(w, (uint32_t)(map->sample_start[s + 1] - map->sample_start[s]));
		for (uint64_t e = 0; e < nnz; e++)
			put_u32(w, (uint32_t)map->sample_index[e]);
		for (uint64_t e = 0; e < nnz; e++)
			put_f64(w, map->sample_value[e]);
		for (uint64_t j = 0; j < m; j++)
			put_u32(w, (uint32_t)map->centre[j]);
	} else {
		uint64_t nodes = total_nodes(map);
		for (int k = 0; k < map->t; k++)
			put_u32(w, (uint32_t)(map->tree_start[k + 1] - map->tree_start[k]));
		for (uint64_t i = 0; i < nodes; i++)
			put_u32(w, (uint32_t)map->node_feature[i]);
		for (uint64_t i = 0; i < nodes; i++)
			put_u32(w, (uint32_t)map->node_child[i]);
		for (uint64_t i = 0; i < nodes; i++)
			put_f64(w, map->node_split[i]);
	}
}

/* Writes the whole file image into buf (file_bytes long), checksum included. */
static void serialize(const struct ikmap *map, unsigned char *buf)
{
	struct writer w = { buf, NULL, 0, NULL, 0 };
	put_stored(map, &w);
	/* the hash (a serial multiply per byte) once per map: the model trailer asks for it too */
	uint64_t sum;
	if (!ikmap_known_checksum(map, &sum)) {
		sum = fnv1a(buf, (size_t)(w.p - buf));
		ikmap_keep_checksum(map, sum);
	}
	put_u64(&w, sum);
}

uint64_t ikmap_stored_checksum(const struct ikmap *map)
{
	unsigned char chunk[HASH_CHUNK];
	struct writer w = { chunk, chunk, FNV_OFFSET, NULL, 0 };
	put_stored(map, &w);
	flush_chunk(&w);
	return w.hash;
}

int ikmap_write(const struct ikmap *map, FILE *fp, char *err)
{
	unsigned char chunk[HASH_CHUNK];
	struct writer w = { chunk, chunk, FNV_OFFSET, fp, 0 };
	put_stored(map, &w);
	flush_chunk(&w);
	uint64_t sum = w.hash;	/* the checksum of every byte before it */
	put_u64(&w, sum);
	flush_chunk(&w);
	if (w.failed) {
		ikmap_error(err, "write error: %s", strerror(errno));
		return -1;
	}
	/*
	 * These are ikmap_stored_checksum's bytes: kept, so the model trailer
	 * that train -k writes next does not hash the file a second time (a
	 * serial multiply per byte: some 4 ms for a 3.3 MB psi-1024 forest).
	 */
	ikmap_keep_checksum(map, sum);
	return 0;
}

int ikmap_save(const struct ikmap *map, const char *path, char *err)
{
	struct atomic_file out;
	if (atomic_file_open(&out, path, 0) != 0) {
		ikmap_error(err, "cannot write %s: %s", path, atomic_file_strerror(errno));
		return -1;
	}
	if (ikmap_write(map, out.fp, err) != 0) {
		atomic_file_abort(&out);
		return -1;
	}
	if (atomic_file_commit(&out) != 0) {
		ikmap_error(err, "cannot write %s: %s", path, atomic_file_strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- reading ---- */

/*
 * The bytes being decoded: either a whole file image in memory (fp NULL:
 * p runs through it; its size was checked, so nothing runs past its end)
 * or an open file read a chunk at a time (ikmap_load: a map is never held
 * twice, as parsed arrays and as the file's bytes). In file mode every
 * byte read from the file, up to the checksum's 8, is hashed as it
 * arrives (hash_left counts what remains to be hashed); short: the file
 * ended early (it shrank after its size was checked).
 */
#define READ_CHUNK 65536
struct reader {
	const unsigned char *p, *end;
	FILE *fp;
	unsigned char *chunk;	/* file mode: READ_CHUNK bytes */
	uint64_t hash, hash_left;
	int short_read;
};

/*
 * File mode: makes sure n (<= 8) bytes are at hand, reading no further
 * than the body (the checksum is read apart); past its end (a file that
 * shrank after its size was checked) they read as zeros and short_read is set.
 */
static void need(struct reader *r, size_t n)
{
	if (!r->fp || (size_t)(r->end - r->p) >= n)
		return;
	size_t keep = (size_t)(r->end - r->p);
	memmove(r->chunk, r->p, keep);
	size_t want = READ_CHUNK - keep;
	if (want > r->hash_left)
		want = (size_t)r->hash_left;
	size_t got = fread(r->chunk + keep, 1, want, r->fp);
	r->hash = fnv1a_more(r->hash, r->chunk + keep, got);
	r->hash_left -= got;
	r->p = r->chunk;
	r->end = r->chunk + keep + got;
	if (keep + got < n) {
		r->short_read = 1;
		memset(r->chunk + keep + got, 0, n - keep - got);
		r->end = r->chunk + n;
	}
}

static uint32_t get_u32(struct reader *r)
{
	need(r, 4);
	uint32_t v = 0;
	for (int i = 0; i < 4; i++)
		v |= (uint32_t)*r->p++ << (8 * i);
	return v;
}

static uint64_t get_u64(struct reader *r)
{
	need(r, 8);
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)*r->p++ << (8 * i);
	return v;
}

static double get_f64(struct reader *r)
{
	uint64_t bits = get_u64(r);
	double v;
	memcpy(&v, &bits, sizeof v);
	return v;
}

struct header {
	uint32_t version, method, t, psi, dim, scaled;	/* scaled: the field's low byte */
	int raw;		/* RAW_FLAG was set */
	int stray;		/* another bit above the low byte was set: damage */
	uint64_t seed, count1, count2;
};

static void read_header(const unsigned char *buf, struct header *h)
{
	struct reader r = { buf + sizeof magic, NULL, NULL, NULL, 0, 0, 0 };
	h->version = get_u32(&r);
	h->method = get_u32(&r);
	h->t = get_u32(&r);
	h->psi = get_u32(&r);
	h->dim = get_u32(&r);
	uint32_t scale_field = get_u32(&r);
	h->scaled = scale_field & 0xffu;
	h->raw = (scale_field & RAW_FLAG) != 0;
	h->stray = (scale_field & ~(RAW_FLAG | 0xffu)) != 0;
	h->seed = get_u64(&r);
	h->count1 = get_u64(&r);
	h->count2 = get_u64(&r);
}

/* *total += count * width, or -1 if that passes limit (width 0: nothing to add). */
static int add_bytes(uint64_t *total, uint64_t count, uint64_t width, uint64_t limit)
{
	if (width == 0)
		return 0;
	if (count > (limit - *total) / width)
		return -1;
	*total += count * width;
	return 0;
}

/* A version-2 min-max or acos header's numbers (ikmap.h's caps). */
static int kernel_shape_ok(const struct header *h)
{
	if (!is_kernel(h->method) || h->count1 != 0 || h->count2 != 0)
		return 0;
	if (h->t < 1 || h->t > 65536 || h->dim < 1 || h->dim > IKMAP_MAX_DIM)
		return 0;
	if (h->scaled > 4)
		return 0;
	if (h->method == IKMAP_MINMAX) {
		if (h->psi < 16 || h->psi > 65536 || (h->psi & (h->psi - 1)) != 0)
			return 0;
	} else if (h->psi != 2) {
		return 0;
	}
	return (uint64_t)h->t * h->psi <= INT_MAX - 2;
}

/* Checks the header's numbers and the size they imply; 0 when it is size. */
static int check_header(const struct header *h, uint64_t size, const char *path, char *err)
{
	if (h->version != VERSION && h->version != VERSION_2) {
		ikmap_error(err, "%s: unsupported ikmap file version %u (this library reads %d and %d)",
			path, h->version, VERSION, VERSION_2);
		return -1;
	}
	/* a raw part only in version 2, its columns after the cells within an int */
	if (h->stray || (h->raw && (h->version != VERSION_2
			|| (uint64_t)h->t * h->psi + h->dim > INT_MAX - 2))) {
		ikmap_error(err, "%s: damaged ikmap file (impossible header)", path);
		return -1;
	}
	uint64_t raw_need = raw_bytes(h->method, h->scaled, h->raw, h->dim);
	if (h->version == VERSION_2 && is_kernel(h->method)) {
		if (!kernel_shape_ok(h)) {
			ikmap_error(err, "%s: damaged ikmap file (impossible header)", path);
			return -1;
		}
		/* min and factor of d features when stored, tied to the length before any allocation */
		uint64_t need = HEADER_BYTES + 8;
		if (add_bytes(&need, h->dim, 8 * feature_arrays(h->method, h->scaled), size)
				|| add_bytes(&need, raw_need, 1, size) || need != size) {
			ikmap_error(err, "%s: ikmap file has the wrong size (truncated or damaged)", path);
			return -1;
		}
		return 0;
	}
	uint64_t m = (uint64_t)h->t * h->psi;
	/* version 1 holds aNNE scale 0-1 and iForest 0; version 2 the scales it cannot, and
	 * with a raw part any (iForest: 0, 2 for its raw factors, or 4) */
	int scale_ok = h->version == VERSION
		? h->scaled <= (h->method == IKMAP_ANNE ? 1u : 0u)
		: h->raw ? (h->method == IKMAP_ANNE ? h->scaled <= 4
				: h->scaled == 0 || h->scaled == 2 || h->scaled == 4)
		: (h->method == IKMAP_ANNE ? h->scaled >= 2 && h->scaled <= 4 : h->scaled == 4);
	int shape_ok = (h->method == IKMAP_ANNE || h->method == IKMAP_IFOREST)
		&& h->t >= 1 && h->psi >= 1 && m <= INT_MAX - 2
		&& h->dim >= 1 && h->dim <= IKMAP_MAX_DIM && scale_ok;
	if (shape_ok && h->method == IKMAP_ANNE)
		shape_ok = h->count1 >= 1 && h->count1 <= m && h->count2 <= h->count1 * h->dim;
	if (shape_ok && h->method == IKMAP_IFOREST)
		shape_ok = h->count1 == 0 && h->count2 >= h->t
			&& h->count2 <= h->t * (2 * (uint64_t)h->psi - 1);
	if (!shape_ok) {
		ikmap_error(err, "%s: damaged ikmap file (impossible header)", path);
		return -1;
	}
	uint64_t need = HEADER_BYTES + 8;
	int over = add_bytes(&need, h->dim, 8 * feature_arrays(h->method, h->scaled), size)
		|| add_bytes(&need, raw_need, 1, size);
	if (h->method == IKMAP_ANNE)
		over = over || add_bytes(&need, h->count1, 4, size) || add_bytes(&need, h->count2, 12, size)
			|| add_bytes(&need, m, 4, size);
	else
		over = over || add_bytes(&need, h->t, 4, size) || add_bytes(&need, h->count2, 16, size);
	if (over || need != size) {
		ikmap_error(err, "%s: ikmap file has the wrong size (truncated or damaged)", path);
		return -1;
	}
	return 0;
}

/* Scale 2's d minima (finite) then d factors (finite, >= 0: 0 is a zero range). */
static int read_range(struct ikmap *map, struct reader *r)
{
	size_t n = (size_t)map->dim + 1;
	map->shift = malloc(n * sizeof(double));
	map->factor = malloc(n * sizeof(double));
	if (!map->shift || !map->factor)
		return -1;
	map->shift[0] = 0;
	map->factor[0] = 0;
	for (int j = 1; j <= map->dim; j++)
		if (!isfinite(map->shift[j] = get_f64(r)))
			return 1;
	for (int j = 1; j <= map->dim; j++) {
		map->factor[j] = get_f64(r);
		if (!(isfinite(map->factor[j]) && map->factor[j] >= 0))
			return 1;
	}
	return 0;
}

/* A scaled map's d factors (their count is tied to the file's length); none when it stores none. */
static int read_factors(struct ikmap *map, struct reader *r)
{
	if (ikmap_stores_shift(map->method, map->scaled))
		return read_range(map, r);
	if (!ikmap_stores_factors(map->method, map->scaled))
		return 0;
	map->factor = malloc(((size_t)map->dim + 1) * sizeof(double));
	if (!map->factor)
		return -1;
	map->factor[0] = 1;
	for (int j = 1; j <= map->dim; j++) {
		map->factor[j] = get_f64(r);
		if (!(isfinite(map->factor[j]) && map->factor[j] > 0))
			return 1;
	}
	return 0;
}

/* The raw part: w finite and > 0, iForest's factors under scale 2 finite and > 0.
 * 0 ok, -1 out of memory, 1 invalid content. */
static int read_raw(struct ikmap *map, struct reader *r)
{
	map->raw_weight = get_f64(r);
	if (!(isfinite(map->raw_weight) && map->raw_weight > 0))
		return 1;
	if (map->method != IKMAP_IFOREST || map->scaled != 2)
		return 0;
	map->raw_factor = malloc(((size_t)map->dim + 1) * sizeof(double));
	if (!map->raw_factor)
		return -1;
	map->raw_factor[0] = 1;
	for (int j = 1; j <= map->dim; j++) {
		map->raw_factor[j] = get_f64(r);
		if (!(isfinite(map->raw_factor[j]) && map->raw_factor[j] > 0))
			return 1;
	}
	return 0;
}

/* 0 ok, -1 out of memory, 1 invalid content. */
static int read_anne(struct ikmap *map, struct reader *r, uint64_t u, uint64_t nnz)
{
	size_t m = (size_t)map->t * (size_t)map->psi;
	map->nsamples = (int)u;
	map->sample_start = malloc(((size_t)u + 1) * sizeof(int64_t));
	map->sample_index = malloc(((size_t)nnz + 1) * sizeof(int));
	map->sample_value = malloc(((size_t)nnz + 1) * sizeof(double));
	map->centre = malloc(m * sizeof(int));
	if (!map->sample_start || !map->sample_index || !map->sample_value || !map->centre)
		return -1;
	uint64_t at = 0;
	for (uint64_t s = 0; s < u; s++) {
		map->sample_start[s] = (int64_t)at;
		at += get_u32(r);
	}
	map->sample_start[u] = (int64_t)at;
	if (at != nnz)
		return 1;
	for (uint64_t s = 0; s < u; s++) {
		uint32_t prev = 0;
		for (int64_t e = map->sample_start[s]; e < map->sample_start[s + 1]; e++) {
			uint32_t j = get_u32(r);
			if (j <= prev || j > (uint32_t)map->dim)
				return 1;
			map->sample_index[e] = (int)j;
			prev = j;
		}
	}
	/* finite; under scale 4 also non-negative (log1p's domain, as the build rows were) */
	for (uint64_t e = 0; e < nnz; e++) {
		double v = map->sample_value[e] = get_f64(r);
		if (!isfinite(v) || (map->scaled == 4 && v < 0))
			return 1;
	}
	for (size_t j = 0; j < m; j++) {
		uint32_t s = get_u32(r);
		if (s >= u)
			return 1;
		map->centre[j] = (int)s;
	}
	return 0;
}

/* Node i of a tree of n nodes: a leaf numbered below psi, or a split with children after it. */
static int node_valid(const struct ikmap *map, uint32_t i, uint32_t n, uint32_t feature,
	uint32_t child, double split)
{
	if (feature == 0)
		return child < (uint32_t)map->psi;
	return feature <= (uint32_t)map->dim && child > i && child < n - 1 && isfinite(split);
}

static int read_forest(struct ikmap *map, struct reader *r, uint64_t total)
{
	map->tree_start = malloc(((size_t)map->t + 1) * sizeof(int64_t));
	map->node_feature = malloc((size_t)total * sizeof(int));
	map->node_child = malloc((size_t)total * sizeof(int));
	map->node_split = malloc((size_t)total * sizeof(double));
	if (!map->tree_start || !map->node_feature || !map->node_child || !map->node_split)
		return -1;
	uint64_t at = 0, most = 2 * (uint64_t)map->psi - 1;
	for (int k = 0; k < map->t; k++) {
		uint32_t n = get_u32(r);
		if (n < 1 || n > most)
			return 1;
		map->tree_start[k] = (int64_t)at;
		at += n;
	}
	map->tree_start[map->t] = (int64_t)at;
	if (at != total)
		return 1;
	/* in file order (the reader may be a stream): features, children, splits */
	for (uint64_t i = 0; i < total; i++)
		map->node_feature[i] = (int)get_u32(r);
	for (uint64_t i = 0; i < total; i++)
		map->node_child[i] = (int)get_u32(r);
	for (uint64_t i = 0; i < total; i++)
		map->node_split[i] = get_f64(r);
	for (int k = 0; k < map->t; k++) {
		int64_t base = map->tree_start[k];
		uint32_t n = (uint32_t)(map->tree_start[k + 1] - base);
		for (uint32_t i = 0; i < n; i++)
			if (!node_valid(map, i, n, (uint32_t)map->node_feature[base + i],
					(uint32_t)map->node_child[base + i], map->node_split[base + i]))
				return 1;
	}
	return 0;
}

/* Opens path for reading if it is a regular file; never blocks on a FIFO or device. */
static FILE *open_regular(const char *path, char *err)
{
	FILE *fp = regular_file_fopen_read(path);
	if (!fp && errno == EINVAL)
		ikmap_error(err, "%s: not a regular file", path);
	else if (!fp)
		ikmap_error(err, "cannot open %s: %s", path, strerror(errno));
	return fp;
}

int ikmap_peek(const char *path, int *t, int *psi, char *err)
{
	FILE *fp = open_regular(path, err);
	if (!fp)
		return -1;
	unsigned char head[HEADER_BYTES];
	int status = -1;
	if (fread(head, 1, HEADER_BYTES, fp) != HEADER_BYTES || memcmp(head, magic, sizeof magic) != 0) {
		ikmap_error(err, "%s: not an ikmap partitioning file", path);
	} else {
		struct header h;
		read_header(head, &h);
		if ((h.version != VERSION && h.version != VERSION_2) || h.t < 1 || h.t > INT_MAX
				|| h.psi < 1 || h.psi > INT_MAX) {
			ikmap_error(err, "%s: damaged ikmap file (impossible header)", path);
		} else {
			*t = (int)h.t;
			*psi = (int)h.psi;
			status = 0;
		}
	}
	fclose(fp);
	return status;
}

int ikmap_peek_columns(const char *path, int64_t *columns, char *err)
{
	FILE *fp = open_regular(path, err);
	if (!fp)
		return -1;
	unsigned char head[HEADER_BYTES];
	int status = -1;
	if (fread(head, 1, HEADER_BYTES, fp) != HEADER_BYTES || memcmp(head, magic, sizeof magic) != 0) {
		ikmap_error(err, "%s: not an ikmap partitioning file", path);
	} else {
		struct header h;
		read_header(head, &h);
		if ((h.version != VERSION && h.version != VERSION_2) || h.t < 1 || h.t > INT_MAX
				|| h.psi < 1 || h.psi > INT_MAX || h.dim > INT_MAX) {
			ikmap_error(err, "%s: damaged ikmap file (impossible header)", path);
		} else {
			/* below 2^63: each factor is below 2^31 */
			*columns = (int64_t)h.t * h.psi + (h.raw ? (int64_t)h.dim : 0);
			status = 0;
		}
	}
	fclose(fp);
	return status;
}

/*
 * Decodes the body after a checked header from r into map: 0, -1 (out of
 * memory) or 1 (a value or index out of range), without a message.
 */
static int decode(struct ikmap *map, const struct header *h, struct reader *r)
{
	map->method = (enum ikmap_method)h->method;
	map->t = (int)h->t;
	map->psi = (int)h->psi;
	map->dim = (int)h->dim;
	map->scaled = (int)h->scaled;
	map->seed = h->seed;
	int status = h->raw ? read_raw(map, r) : 0;
	if (!status)
		status = read_factors(map, r);
	if (!status && is_kernel(h->method))
		;	/* parameters only: ikmap_prepare derives the rest */
	else if (!status && map->method == IKMAP_ANNE)
		status = read_anne(map, r, h->count1, h->count2);
	else if (!status)
		status = read_forest(map, r, h->count2);
	return status;
}

/*
 * The checks in their order, whatever the source: the checksum first (a
 * damaged file says so), then out of memory, then the decoded values;
 * the derived part last. The map, or NULL with err set.
 */
static struct ikmap *finish_load(struct ikmap *map, int status, uint64_t stored, uint64_t sum,
	const char *path, char *err)
{
	if (stored != sum)
		ikmap_error(err, "%s: checksum mismatch: the ikmap file is damaged", path);
	else if (status < 0)
		ikmap_error(err, "out of memory");
	else if (status > 0)
		ikmap_error(err, "%s: damaged ikmap file (a value or index is out of range)", path);
	else if (ikmap_prepare(map, err) == 0) {
		atomic_store_explicit(&map->checksum, sum, memory_order_relaxed);
		atomic_store_explicit(&map->checksum_known, 1, memory_order_relaxed);
		return map;
	}
	ikmap_free(map);
	return NULL;
}

/* Decodes a whole file's bytes whose header was checked against size: the map, or NULL. */
static struct ikmap *load_checked(const unsigned char *buf, uint64_t size, const char *path,
	char *err)
{
	struct header h;
	read_header(buf, &h);
	struct reader tail = { buf + size - 8, NULL, NULL, NULL, 0, 0, 0 };
	uint64_t stored = get_u64(&tail), sum = fnv1a(buf, (size_t)size - 8);
	if (stored != sum)
		return finish_load(NULL, 0, stored, sum, path, err);
	struct ikmap *map = ikmap_alloc();
	if (!map) {
		ikmap_error(err, "out of memory");
		return NULL;
	}
	struct reader r = { buf + HEADER_BYTES, buf + size, NULL, NULL, 0, 0, 0 };
	return finish_load(map, decode(map, &h, &r), stored, sum, path, err);
}

/*
 * Streams an open file of the given size (its header checked against it)
 * into a map, hashing as it reads; a body that fails a check is read to
 * its end all the same, so that a damaged file reports the checksum
 * first, as load_checked does. The map, or NULL with err set.
 */
static struct ikmap *load_stream(FILE *fp, const unsigned char *head, uint64_t size,
	const char *path, char *err)
{
	struct header h;
	read_header(head, &h);
	struct ikmap *map = ikmap_alloc();
	unsigned char *chunk = malloc(READ_CHUNK);
	if (!map || !chunk) {
		ikmap_free(map);
		free(chunk);
		ikmap_error(err, "out of memory");
		return NULL;
	}
	struct reader r = { chunk, chunk, fp, chunk, fnv1a(head, HEADER_BYTES),
		size - 8 - HEADER_BYTES, 0 };
	int status = decode(map, &h, &r);
	/* the rest of the body when decoding stopped early (hashed all the same), then the checksum */
	while (r.hash_left > 0 && !r.short_read) {
		r.p = r.end;
		need(&r, 1);
	}
	unsigned char tail[8];
	int short_read = r.short_read || fread(tail, 1, sizeof tail, fp) != sizeof tail;
	free(chunk);
	if (short_read) {
		ikmap_error(err, "cannot read %s (truncated?)", path);
		ikmap_free(map);
		return NULL;
	}
	struct reader t = { tail, tail + sizeof tail, NULL, NULL, 0, 0, 0 };
	uint64_t stored = get_u64(&t);
	return finish_load(map, status, stored, r.hash, path, err);
}

struct ikmap *ikmap_from_memory(const void *bytes, size_t size, const char *name, char *err)
{
	const unsigned char *buf = bytes;
	struct header h;
	if (size < HEADER_BYTES + 8) {
		ikmap_error(err, "%s: too short for an ikmap file (truncated?)", name);
		return NULL;
	}
	if (memcmp(buf, magic, sizeof magic) != 0) {
		ikmap_error(err, "%s: not an ikmap partitioning file", name);
		return NULL;
	}
	read_header(buf, &h);
	if (check_header(&h, (uint64_t)size, name, err))
		return NULL;
	return load_checked(buf, (uint64_t)size, name, err);
}

int ikmap_to_memory(const struct ikmap *map, unsigned char **bytes, size_t *size, char *err)
{
	size_t n = file_bytes(map);
	unsigned char *buf = malloc(n);
	if (!buf) {
		ikmap_error(err, "out of memory");
		return -1;
	}
	serialize(map, buf);
	*bytes = buf;
	*size = n;
	return 0;
}

struct ikmap *ikmap_load(const char *path, char *err)
{
	FILE *fp = open_regular(path, err);
	if (!fp)
		return NULL;
	struct stat st;
	unsigned char head[HEADER_BYTES];
	struct header h;
	struct ikmap *map = NULL;
	if (fstat(fileno(fp), &st) != 0) {
		ikmap_error(err, "cannot read %s: %s", path, strerror(errno));
	} else if ((uint64_t)st.st_size < HEADER_BYTES + 8) {
		ikmap_error(err, "%s: too short for an ikmap file (truncated?)", path);
	} else if (fread(head, 1, HEADER_BYTES, fp) != HEADER_BYTES) {
		ikmap_error(err, "cannot read %s", path);
	} else if (memcmp(head, magic, sizeof magic) != 0) {
		ikmap_error(err, "%s: not an ikmap partitioning file", path);
	} else {
		read_header(head, &h);
		/* the size is then the one the header implies: what the file holds */
		if (check_header(&h, (uint64_t)st.st_size, path, err) == 0)
			map = load_stream(fp, head, (uint64_t)st.st_size, path, err);
	}
	fclose(fp);
	return map;
}
