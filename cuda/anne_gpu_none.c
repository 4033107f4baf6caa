/* anne_gpu_none.c - anne_gpu.h in a build made without nvcc: there is no
 * device, and every request for one says why. */
#include "anne_gpu.h"

#include <stdio.h>

static const char no_gpu[] = "this build has no GPU support (built without nvcc)";

static void say_no_gpu(char *err, size_t errlen)
{
	if (err && errlen)
		snprintf(err, errlen, "%s", no_gpu);
}

int anne_gpu_device_count(void)
{
	return 0;
}

int anne_gpu_supported(void)
{
	return 0;
}

struct anne_gpu *anne_gpu_create(const float *centres, int t, int psi, int d, char *err, size_t errlen)
{
	(void)centres;
	(void)t;
	(void)psi;
	(void)d;
	say_no_gpu(err, errlen);
	return NULL;
}

int anne_gpu_map(struct anne_gpu *g, const float *rows, int64_t count, uint32_t *cells, uint8_t *recheck,
		 char *err, size_t errlen)
{
	(void)g;
	(void)rows;
	(void)count;
	(void)cells;
	(void)recheck;
	say_no_gpu(err, errlen);
	return -1;
}

int anne_gpu_map_gaps(struct anne_gpu *g, const float *rows, int64_t count, uint32_t *cells, uint8_t *recheck,
		      float *gap, char *err, size_t errlen)
{
	(void)gap;
	return anne_gpu_map(g, rows, count, cells, recheck, err, errlen);
}

int anne_gpu_set_tile_budget(struct anne_gpu *g, size_t bytes, char *err, size_t errlen)
{
	(void)g;
	(void)bytes;
	say_no_gpu(err, errlen);
	return -1;
}

void anne_gpu_free(struct anne_gpu *g)
{
	(void)g;
}
