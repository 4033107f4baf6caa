/*
 * fuzz_ikmap.c - libFuzzer target for the .ik partitioning loader
 * (ikmap/ikmap.h: ikmap_load), every map type (aNNE and iForest in
 * version-1 files, min-max and acos in version 2, and issue 28's
 * transforms of all four in version 2; the method, scale and version are
 * header fields, so the seed corpus holds files of each and mutations
 * reach every decoder).
 *
 * Input: the bytes of a .ik file. Before writing it to the scratch
 * directory the target overwrites its last 8 bytes with the right
 * checksum (fuzz_common.h, fuzz_fix_checksum), so mutations get past the
 * checksum to the decoder; the checksum-mismatch branch is left to the
 * unit tests. A map that loads is used: a few fixed rows are mapped on
 * the CPU with one thread (deterministic), every cell must be < psi; for
 * aNNE with d <= 65536 both distance paths are forced in turn (dense,
 * sparse) and must give the same cells, as ikmap.h promises, and so must
 * acos's float and reference paths where its map has them; a map that
 * refuses negatives (min-max without scale 2, any map under scale 4:
 * issue 28's log1p) gets the rows' absolute values (-2 for the negatives
 * first, which is checked too); the kernel of two rows must
 * be in [0, 1] and K(x, x) = 1; the map is saved and loaded again and
 * must keep its checksum.
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "ikmap.h"

#define NR_ROWS 4

static void map_rows(const struct ikmap *map, struct feature_node *const *rows, void *cells)
{
	char err[IKMAP_ERR_SIZE];
	FUZZ_CHECK(ikmap_map_on(map, rows, NR_ROWS, cells, 1, IKMAP_DEVICE_CPU, err) == 0);
	size_t t = (size_t)ikmap_t(map);
	for (size_t c = 0; c < NR_ROWS * t; c++)
		FUZZ_CHECK(ikmap_cell_at(map, cells, c) < (uint32_t)ikmap_psi(map));
}

static void use_map(struct ikmap *map)
{
	int d = ikmap_dim(map);
	int last = d > 3 ? d : 3;
	struct feature_node r0[] = { { -1, 0 } };
	struct feature_node r1[] = { { 1, 0.5 }, { 2, -1 }, { 3, 2 }, { -1, 0 } };
	struct feature_node r2[] = { { 1, -3 }, { last, 0.25 }, { -1, 0 } };
	/* an index beyond d is ignored */
	struct feature_node r3[] = { { 2, 1e-3 }, { last < INT_MAX ? last + 1 : last, 9 }, { -1, 0 } };
	struct feature_node *rows[NR_ROWS] = { r0, r1, r2, r3 };

	size_t row_bytes = ikmap_cell_size(map) * (size_t)ikmap_t(map);
	unsigned char *cells = malloc(NR_ROWS * row_bytes);
	unsigned char *again = malloc(NR_ROWS * row_bytes);
	if (cells == NULL || again == NULL)
		fuzz_give_up("malloc");
	if (ikmap_needs_nonnegative(ikmap_method(map), ikmap_scaled(map))) {
		char why[IKMAP_ERR_SIZE];
		FUZZ_CHECK(ikmap_map_on(map, rows, NR_ROWS, cells, 1, IKMAP_DEVICE_CPU, why) == -2);
		for (int r = 1; r < NR_ROWS; r++)
			for (struct feature_node *f = rows[r]; f->index != -1; f++)
				f->value = f->value < 0 ? -f->value : f->value;
	}
	map_rows(map, rows, cells);

	char err[IKMAP_ERR_SIZE];
	/*
	 * Forcing the dense path costs a workspace of tile rows x d floats
	 * (805 MB at d = 786432, from a 400-byte file), which ikmap.h allows:
	 * the cost model never picks dense for such a map and predict never
	 * forces it. So the two paths are compared only up to d = 65536.
	 */
	if (ikmap_method(map) == IKMAP_ANNE && d <= 65536) {
		/* both paths give identical cells; dense may be impossible (values too large for float) */
		enum ikmap_path paths[2] = { IKMAP_PATH_DENSE, IKMAP_PATH_SPARSE };
		for (int p = 0; p < 2; p++) {
			if (ikmap_set_path(map, paths[p], err) != 0) {
				FUZZ_CHECK(paths[p] == IKMAP_PATH_DENSE);
				continue;
			}
			map_rows(map, rows, again);
			FUZZ_CHECK(memcmp(cells, again, NR_ROWS * row_bytes) == 0);
		}
		FUZZ_CHECK(ikmap_set_path(map, IKMAP_PATH_AUTO, err) == 0);
	}
	if (ikmap_method(map) == IKMAP_ACOS) {
		enum ikmap_path paths[2] = { IKMAP_PATH_DENSE, IKMAP_PATH_SPARSE };
		for (int p = 0; p < 2; p++) {
			if (ikmap_set_path(map, paths[p], err) != 0) {
				FUZZ_CHECK(paths[p] == IKMAP_PATH_DENSE);	/* no table: too wide */
				continue;
			}
			map_rows(map, rows, again);
			FUZZ_CHECK(memcmp(cells, again, NR_ROWS * row_bytes) == 0);
		}
		FUZZ_CHECK(ikmap_set_path(map, IKMAP_PATH_AUTO, err) == 0);
	}
	double k12 = ikmap_kernel_cells(map, cells + row_bytes, cells + 2 * row_bytes);
	FUZZ_CHECK(k12 >= 0 && k12 <= 1);
	FUZZ_CHECK(ikmap_kernel_cells(map, cells + row_bytes, cells + row_bytes) == 1);
	double k = ikmap_kernel(map, r1, r2);
	FUZZ_CHECK(k == k12);
	free(cells);
	free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[512], copy_path[512];
	fuzz_path(path, sizeof path, "map.ik");
	fuzz_path(copy_path, sizeof copy_path, "copy.ik");
	unsigned char *image = fuzz_copy(data, size);
	fuzz_fix_checksum(image, size);
	fuzz_write_file(path, image, size);
	free(image);

	char err[IKMAP_ERR_SIZE];
	struct ikmap *map = ikmap_load(path, err);
	unlink(path);
	if (map == NULL)
		return 0;
	FUZZ_CHECK(ikmap_method_name(ikmap_method(map)) != NULL);
	use_map(map);
	FUZZ_CHECK(ikmap_save(map, copy_path, err) == 0);
	struct ikmap *copy = ikmap_load(copy_path, err);
	unlink(copy_path);
	FUZZ_CHECK(copy != NULL);
	FUZZ_CHECK(ikmap_checksum(copy) == ikmap_checksum(map));
	ikmap_free(copy);
	ikmap_free(map);
	return 0;
}
