/* rows.c - row subsets (see rows.h). */
#include <stdlib.h>
#include "rows.h"

int rows_subset(const struct row_set *r, const int *idx, int count, struct row_set *out)
{
	struct row_set sub = *r;
	sub.l = count;
	size_t m = count > 0 ? (size_t)count : 1;
	if (r->kind == ROWS_SPARSE) {
		struct feature_node **x = malloc(m * sizeof *x);
		if (!x)
			return -1;
		for (int i = 0; i < count; i++)
			x[i] = r->x[idx[i]];
		sub.x = x;
		*out = sub;
		return 0;
	}
	/* a ROWS_CELLS subset shares the raw rows and lists the chosen ones */
	struct feature_node **raw = NULL;
	if (r->raw) {
		raw = malloc(m * sizeof *raw);
		if (!raw)
			return -1;
		for (int i = 0; i < count; i++)
			raw[i] = r->raw[idx[i]];
		sub.raw = raw;
	}
	/* the cells stay where they are: the view lists the stored rows it takes */
	int *pick = malloc(m * sizeof *pick);
	if (!pick) {
		free(raw);
		return -1;
	}
	for (int i = 0; i < count; i++)
		pick[i] = r->pick != NULL ? r->pick[idx[i]] : idx[i];
	sub.pick = pick;
	*out = sub;
	return 0;
}

void rows_free_subset(struct row_set *sub)
{
	if (sub->kind == ROWS_SPARSE)
		free((void *)sub->x);
	else {
		free((void *)sub->pick);	/* the cells are the parent's */
		free((void *)sub->raw);
	}
	sub->x = NULL;
	sub->cells16 = NULL;
	sub->cells32 = NULL;
	sub->raw = NULL;
	sub->pick = NULL;
}
