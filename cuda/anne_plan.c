/* anne_plan.c - tile sizes of the GPU mapper (see anne_plan.h). */
#include "anne_plan.h"

static size_t smallest(size_t a, size_t b)
{
	return a < b ? a : b;
}

int anne_plan_tiles(int t, int psi, int d, size_t budget, struct anne_plan *plan)
{
	size_t part_bytes = (size_t)psi * sizeof(float);
	size_t all_parts_bytes = (size_t)t * part_bytes;
	size_t rows_by_input = budget / ((size_t)d * sizeof(float));
	size_t rows, parts;

	if (budget / all_parts_bytes >= ANNE_PLAN_MIN_ROWS) {
		parts = (size_t)t;
		rows = smallest(smallest(budget / all_parts_bytes, ANNE_PLAN_MAX_ROWS), rows_by_input);
	} else {
		rows = smallest(smallest(ANNE_PLAN_MIN_ROWS, budget / part_bytes), rows_by_input);
		parts = rows ? smallest((size_t)t, budget / (rows * part_bytes)) : 0;
	}
	if (rows < 1 || parts < 1)
		return -1;
	plan->rows = (int)rows;
	plan->parts = (int)parts;
	return 0;
}
