/*
 * anne_gpu.cu - the CUDA implementation of anne_gpu.h.
 *
 * Per batch of rows: upload (pinned buffer, async copy), one warp per row
 * computes an upper bound of ||x||, then per chunk of partitionings a
 * cuBLAS FP32 GEMM writes the score tile X C_chunk^T (row-major, so a
 * row's scores are contiguous) and a segmented argmin kernel turns each
 * psi-wide segment
 * into a cell and a recheck flag (anne_bound.h: float decision, refined in
 * double on the device where it is not conclusive), then the cells go back.
 * Consecutive batches alternate between two streams with their own
 * buffers, so one batch's copies overlap the other's compute.
 *
 * cudart is linked statically; cuBLAS is opened with dlopen when a mapper
 * is created, so programs linked with this library start, and report 0
 * devices, on machines without a driver or without the CUDA libraries.
 */
#include "anne_bound.h"
#include "anne_gpu.h"
#include "anne_plan.h"

#include <cublas_api.h> /* types only: the library itself is dlopen'ed */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STRINGIFY_VALUE(x) #x
#define STRINGIFY(x) STRINGIFY_VALUE(x)
#define CUBLAS_SONAME "libcublas.so." STRINGIFY(CUBLAS_VER_MAJOR)

static constexpr size_t default_tile_budget = (size_t)256 << 20;
static constexpr int threads_per_block = 256;
static constexpr unsigned full_warp = 0xffffffffu;

/* ---- messages ---------------------------------------------------------- */

static void say(char *err, size_t errlen, const char *fmt, ...)
{
	if (!err || !errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int cuda_failed(cudaError_t rc, const char *what, char *err, size_t errlen)
{
	if (rc == cudaSuccess)
		return 0;
	say(err, errlen, "anne_gpu: %s failed: %s", what, cudaGetErrorString(rc));
	return 1;
}

static int blas_failed(cublasStatus_t rc, const char *what, char *err, size_t errlen)
{
	if (rc == CUBLAS_STATUS_SUCCESS)
		return 0;
	say(err, errlen, "anne_gpu: %s failed: cuBLAS status %d", what, (int)rc);
	return 1;
}

/* ---- cuBLAS, loaded at run time --------------------------------------- */

typedef cublasStatus_t (*blas_create_fn)(cublasHandle_t *);
typedef cublasStatus_t (*blas_destroy_fn)(cublasHandle_t);
typedef cublasStatus_t (*blas_set_stream_fn)(cublasHandle_t, cudaStream_t);
typedef cublasStatus_t (*blas_gemm_ex_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
					  const void *, const void *, cudaDataType, int, const void *, cudaDataType,
					  int, const void *, void *, cudaDataType, int, cublasComputeType_t,
					  cublasGemmAlgo_t);

struct blas_api {
	void *library;
	blas_create_fn create;
	blas_destroy_fn destroy;
	blas_set_stream_fn set_stream;
	blas_gemm_ex_fn gemm_ex;
};

static void *find_symbol(void *library, const char *name, char *err, size_t errlen)
{
	void *p = dlsym(library, name);
	if (!p)
		say(err, errlen, "anne_gpu: %s lacks %s", CUBLAS_SONAME, name);
	return p;
}

/* The loader's search path first, then the toolkit this was built with.
 * RTLD_NODELETE: cuBLAS stays mapped after dlclose, so its exit-time
 * handlers never run against an unloaded library. */
static int load_blas(struct blas_api *api, char *err, size_t errlen)
{
	api->library = dlopen(CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
#ifdef ANNE_CUDA_LIBDIR
	if (!api->library)
		api->library = dlopen(ANNE_CUDA_LIBDIR "/" CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
#endif
	if (!api->library) {
		say(err, errlen, "anne_gpu: cannot load %s: %s", CUBLAS_SONAME, dlerror());
		return -1;
	}
	api->create = (blas_create_fn)find_symbol(api->library, "cublasCreate_v2", err, errlen);
	api->destroy = (blas_destroy_fn)find_symbol(api->library, "cublasDestroy_v2", err, errlen);
	api->set_stream = (blas_set_stream_fn)find_symbol(api->library, "cublasSetStream_v2", err, errlen);
	api->gemm_ex = (blas_gemm_ex_fn)find_symbol(api->library, "cublasGemmEx", err, errlen);
	if (!api->create || !api->destroy || !api->set_stream || !api->gemm_ex) {
		dlclose(api->library);
		api->library = NULL;
		return -1;
	}
	return 0;
}

/* ---- kernels ------------------------------------------------------------ */

/* One warp per row: an upper bound of the row's Euclidean norm. */
__global__ void __launch_bounds__(256) row_norms_kernel(const float *rows, int count, int d, float *norms)
{
	int row = (int)((blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32);
	int lane = threadIdx.x % 32;
	if (row >= count) /* uniform across the warp */
		return;
	const float *x = rows + (size_t)row * d;
	float sum = 0;
	for (int i = lane; i < d; i += 32)
		sum = fmaf(x[i], x[i], sum);
	for (int mask = 16; mask > 0; mask >>= 1)
		sum += __shfl_xor_sync(full_warp, sum, mask);
	if (lane == 0)
		norms[row] = anne_row_norm_upper(sum, d);
}

struct segment_job {
	const float *scores;    /* rows x (parts*psi): row r's segment kk at (r*parts + kk)*psi */
	const float *centre_sq; /* ||c||^2 of the chunk's parts*psi centres */
	const float *qmax;      /* per partitioning of the chunk */
	const float *cmax;
	const float *row_norm; /* per row of the batch */
	const float *rows;     /* the batch, rows x d, for the refinement */
	const float *centres;  /* the chunk's parts*psi centres, x d */
	uint32_t *cells;       /* batch output, rows x t */
	uint8_t *recheck;
	float *gap;            /* batch output, rows x t, or NULL */
	int rows_n, parts, psi, t, d, first_part;
	float beta, tau;
};

__device__ static struct anne_best2 shuffle_state(struct anne_best2 s, int mask, int width)
{
	struct anne_best2 o;
	o.best = __shfl_xor_sync(full_warp, s.best, mask, width);
	o.second = __shfl_xor_sync(full_warp, s.second, mask, width);
	o.index = __shfl_xor_sync(full_warp, s.index, mask, width);
	o.nonfinite = __shfl_xor_sync(full_warp, s.nonfinite, mask, width);
	return o;
}

__device__ static struct anne_best2d shuffle_state_double(struct anne_best2d s, int mask, int width)
{
	struct anne_best2d o;
	o.best = __shfl_xor_sync(full_warp, s.best, mask, width);
	o.second = __shfl_xor_sync(full_warp, s.second, mask, width);
	o.index = __shfl_xor_sync(full_warp, s.index, mask, width);
	o.inexact = __shfl_xor_sync(full_warp, s.inexact, mask, width);
	return o;
}

/*
 * The refinement of an undecided segment (anne_bound.h): each lane takes
 * its candidates in increasing index order, computes their distances in
 * double, and the group merges. All lanes of the warp call this (it
 * shuffles); lanes with `refine` 0 contribute nothing.
 */
template <int GROUP>
__device__ static struct anne_best2d refine_segment(const struct segment_job &job, int refine, int lane,
						    const float *score, const float *q, const float *x,
						    const float *centres, float best, float bound)
{
	struct anne_best2d s;
	anne_best2d_init(&s);
	if (refine)
		for (int j = lane; j < job.psi; j += GROUP) {
			if (!anne_is_candidate(anne_score(q[j], score[j]), best, bound))
				continue;
			int exact;
			double dist = anne_sq_distance_double(x, centres + (size_t)j * job.d, job.d, &exact);
			anne_best2d_add(&s, dist, exact, (uint32_t)j);
		}
	for (int mask = GROUP / 2; mask > 0; mask >>= 1)
		s = anne_best2d_merge(s, shuffle_state_double(s, mask, GROUP));
	return s;
}

/*
 * GROUP lanes scan one psi-wide segment (lane l takes every GROUP-th
 * element, or every GROUP-th float4 when VEC4), then merge their states by
 * butterfly shuffles; segments the float scores leave undecided are
 * refined in double; lane 0 writes the cell and the recheck flag. Every
 * lane of a warp reaches the shuffles, active or not.
 */
template <int GROUP, bool VEC4>
__global__ void __launch_bounds__(256) segment_argmin_kernel(struct segment_job job)
{
	long long thread = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	long long segment = thread / GROUP;
	int lane = threadIdx.x % GROUP;
	int active = segment < (long long)job.rows_n * job.parts;
	int r = active ? (int)(segment / job.parts) : 0;
	int kk = active ? (int)(segment % job.parts) : 0;
	const float *score = job.scores + ((size_t)r * job.parts + kk) * job.psi;
	const float *q = job.centre_sq + (size_t)kk * job.psi;
	struct anne_best2 s;
	anne_best2_init(&s);
	if (active) {
		if (VEC4) {
			for (int j = 4 * lane; j < job.psi; j += 4 * GROUP) {
				float4 g = *reinterpret_cast<const float4 *>(score + j);
				float4 c = *reinterpret_cast<const float4 *>(q + j);
				anne_best2_add(&s, anne_score(c.x, g.x), (uint32_t)j);
				anne_best2_add(&s, anne_score(c.y, g.y), (uint32_t)j + 1);
				anne_best2_add(&s, anne_score(c.z, g.z), (uint32_t)j + 2);
				anne_best2_add(&s, anne_score(c.w, g.w), (uint32_t)j + 3);
			}
		} else {
			for (int j = lane; j < job.psi; j += GROUP)
				anne_best2_add(&s, anne_score(q[j], score[j]), (uint32_t)j);
		}
	}
	for (int mask = GROUP / 2; mask > 0; mask >>= 1)
		s = anne_best2_merge(s, shuffle_state(s, mask, GROUP));

	float bound = active ? anne_error_bound(job.beta, job.tau, job.qmax[kk], job.cmax[kk], job.row_norm[r]) : 0;
	int recheck = active && anne_best2_needs_recheck(&s, bound);
	uint32_t cell = s.index;
	int refine = recheck && !s.nonfinite;
	if (__any_sync(full_warp, refine)) {
		const float *x = job.rows + (size_t)r * job.d;
		const float *centres = job.centres + (size_t)kk * job.psi * job.d;
		struct anne_best2d exact = refine_segment<GROUP>(job, refine, lane, score, q, x, centres, s.best, bound);
		if (refine && anne_best2d_resolved(&exact, job.d)) {
			recheck = 0;
			cell = exact.index;
		}
	}
	if (active && lane == 0) {
		size_t at = (size_t)r * job.t + job.first_part + kk;
		job.cells[at] = cell;
		job.recheck[at] = (uint8_t)recheck;
		/* Rounded down, so the caller's comparison stays rigorous. */
		if (job.gap)
			job.gap[at] = s.nonfinite ? __int_as_float(0x7fc00000) : __fsub_rd(s.second, s.best);
	}
}

template <int GROUP, bool VEC4>
static void launch_group(const struct segment_job &job, cudaStream_t stream)
{
	long long threads = (long long)job.rows_n * job.parts * GROUP;
	unsigned blocks = (unsigned)((threads + threads_per_block - 1) / threads_per_block);
	segment_argmin_kernel<GROUP, VEC4><<<blocks, threads_per_block, 0, stream>>>(job);
}

template <bool VEC4>
static void launch_vec(const struct segment_job &job, int group, cudaStream_t stream)
{
	switch (group) {
	case 1: launch_group<1, VEC4>(job, stream); break;
	case 2: launch_group<2, VEC4>(job, stream); break;
	case 4: launch_group<4, VEC4>(job, stream); break;
	case 8: launch_group<8, VEC4>(job, stream); break;
	case 16: launch_group<16, VEC4>(job, stream); break;
	default: launch_group<32, VEC4>(job, stream); break;
	}
}

/* As many lanes per segment (up to a warp) as there are elements, or
 * float4s when segments are 16-byte aligned (psi a multiple of 4). */
static void launch_segment_argmin(const struct segment_job &job, cudaStream_t stream)
{
	int vec4 = job.psi % 4 == 0;
	int units = vec4 ? job.psi / 4 : job.psi;
	int group = 1;
	while (group < 32 && group * 2 <= units)
		group *= 2;
	if (vec4)
		launch_vec<true>(job, group, stream);
	else
		launch_vec<false>(job, group, stream);
}

/* ---- the mapper ------------------------------------------------------- */

/* One of the two pipelines that consecutive batches alternate between. */
struct anne_slot {
	cudaStream_t stream;
	cublasHandle_t blas;
	cudaEvent_t done; /* recorded after the batch's results are on the host */
	float *host_rows;
	uint32_t *host_cells;
	uint8_t *host_recheck;
	float *host_gap;
	float *dev_rows;
	float *dev_row_norm;
	float *dev_scores;
	uint32_t *dev_cells;
	uint8_t *dev_recheck;
	float *dev_gap;
	int64_t pending_first; /* first row of the batch in flight */
	int pending_rows;      /* 0 when no batch is in flight */
};

struct anne_gpu {
	int device;
	int t, psi, d;
	float beta, tau;
	float *dev_centres;   /* (t*psi) x d */
	float *dev_centre_sq; /* t*psi */
	float *dev_qmax;      /* t */
	float *dev_cmax;      /* t */
	struct blas_api api;
	struct anne_plan plan;
	struct anne_slot slot[2];
};

static int upload(void **dev, const void *host, size_t bytes, const char *what, char *err, size_t errlen)
{
	if (cuda_failed(cudaMalloc(dev, bytes), what, err, errlen))
		return -1;
	return cuda_failed(cudaMemcpy(*dev, host, bytes, cudaMemcpyHostToDevice), what, err, errlen) ? -1 : 0;
}

/* ||c||^2 per centre and the norm maxima per partitioning, to the device. */
static int upload_norms(struct anne_gpu *g, const float *centres, char *err, size_t errlen)
{
	size_t n = (size_t)g->t * g->psi;
	float *sq = (float *)malloc(n * sizeof(float));
	float *qmax = (float *)malloc((size_t)g->t * sizeof(float));
	float *cmax = (float *)malloc((size_t)g->t * sizeof(float));
	int rc = -1;
	if (!sq || !qmax || !cmax) {
		say(err, errlen, "anne_gpu: out of host memory for %zu centre norms", n);
		goto out;
	}
	for (size_t j = 0; j < n; j++)
		sq[j] = anne_centre_sq_norm(centres + j * g->d, g->d);
	anne_partition_norm_maxima(centres, g->t, g->psi, g->d, qmax, cmax);
	if (upload((void **)&g->dev_centre_sq, sq, n * sizeof(float), "uploading centre norms", err, errlen) ||
	    upload((void **)&g->dev_qmax, qmax, (size_t)g->t * sizeof(float), "uploading norm maxima", err, errlen) ||
	    upload((void **)&g->dev_cmax, cmax, (size_t)g->t * sizeof(float), "uploading norm maxima", err, errlen))
		goto out;
	rc = 0;
out:
	free(sq);
	free(qmax);
	free(cmax);
	return rc;
}

static int create_slot_handles(struct anne_gpu *g, struct anne_slot *s, char *err, size_t errlen)
{
	if (cuda_failed(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking), "creating a stream", err,
			errlen) ||
	    cuda_failed(cudaEventCreateWithFlags(&s->done, cudaEventDisableTiming), "creating an event", err, errlen))
		return -1;
	/* One cuBLAS handle per stream: a handle's workspace must not be
	 * shared by GEMMs running concurrently. */
	if (blas_failed(g->api.create(&s->blas), "cublasCreate", err, errlen))
		return -1;
	return blas_failed(g->api.set_stream(s->blas, s->stream), "cublasSetStream", err, errlen) ? -1 : 0;
}

static void free_slot_buffers(struct anne_slot *s)
{
	cudaFreeHost(s->host_rows);
	cudaFreeHost(s->host_cells);
	cudaFreeHost(s->host_recheck);
	cudaFreeHost(s->host_gap);
	cudaFree(s->dev_rows);
	cudaFree(s->dev_row_norm);
	cudaFree(s->dev_scores);
	cudaFree(s->dev_cells);
	cudaFree(s->dev_recheck);
	cudaFree(s->dev_gap);
	s->host_rows = NULL;
	s->host_cells = NULL;
	s->host_recheck = NULL;
	s->host_gap = NULL;
	s->dev_rows = NULL;
	s->dev_row_norm = NULL;
	s->dev_scores = NULL;
	s->dev_cells = NULL;
	s->dev_recheck = NULL;
	s->dev_gap = NULL;
	s->pending_rows = 0;
}

static int allocate_slot_buffers(const struct anne_gpu *g, struct anne_slot *s, char *err, size_t errlen)
{
	size_t rows = (size_t)g->plan.rows;
	size_t row_floats = rows * g->d;
	size_t cells = rows * g->t;
	size_t scores = rows * g->plan.parts * g->psi;
	if (cuda_failed(cudaMallocHost((void **)&s->host_rows, row_floats * sizeof(float)), "pinning row buffer",
			err, errlen) ||
	    cuda_failed(cudaMallocHost((void **)&s->host_cells, cells * sizeof(uint32_t)), "pinning cell buffer",
			err, errlen) ||
	    cuda_failed(cudaMallocHost((void **)&s->host_recheck, cells), "pinning recheck buffer", err, errlen) ||
	    cuda_failed(cudaMallocHost((void **)&s->host_gap, cells * sizeof(float)), "pinning gap buffer", err,
			errlen) ||
	    cuda_failed(cudaMalloc((void **)&s->dev_rows, row_floats * sizeof(float)), "allocating row buffer", err,
			errlen) ||
	    cuda_failed(cudaMalloc((void **)&s->dev_row_norm, rows * sizeof(float)), "allocating row norms", err,
			errlen) ||
	    cuda_failed(cudaMalloc((void **)&s->dev_scores, scores * sizeof(float)), "allocating score tile", err,
			errlen) ||
	    cuda_failed(cudaMalloc((void **)&s->dev_cells, cells * sizeof(uint32_t)), "allocating cells", err,
			errlen) ||
	    cuda_failed(cudaMalloc((void **)&s->dev_recheck, cells), "allocating recheck flags", err, errlen) ||
	    cuda_failed(cudaMalloc((void **)&s->dev_gap, cells * sizeof(float)), "allocating gaps", err, errlen))
		return -1;
	return 0;
}

/* Plans tiles for budget bytes (both slots) and (re)allocates the buffers. */
static int apply_tile_budget(struct anne_gpu *g, size_t budget, char *err, size_t errlen)
{
	struct anne_plan plan;
	if (anne_plan_tiles(g->t, g->psi, g->d, budget / 2, &plan)) {
		say(err, errlen, "anne_gpu: a tile budget of %zu bytes cannot hold one row of psi=%d centres (d=%d)",
		    budget, g->psi, g->d);
		return -1;
	}
	for (int i = 0; i < 2; i++) {
		if (cuda_failed(cudaStreamSynchronize(g->slot[i].stream), "waiting for a stream", err, errlen))
			return -1;
		free_slot_buffers(&g->slot[i]);
	}
	g->plan = plan;
	for (int i = 0; i < 2; i++)
		if (allocate_slot_buffers(g, &g->slot[i], err, errlen))
			return -1;
	return 0;
}

static const char *invalid_shape(int t, int psi, int d)
{
	if (t < 1 || psi < 1 || d < 1)
		return "t, psi and d must be at least 1";
	if ((int64_t)t * psi > INT_MAX)
		return "t*psi must be below 2^31";
	if (d > ANNE_MAX_DIM)
		return "d is above ANNE_MAX_DIM, where the recheck bound is no longer proven";
	return NULL;
}

extern "C" int anne_gpu_device_count(void)
{
	int n = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess) {
		cudaGetLastError(); /* so later error checks do not see it */
		return 0;
	}
	return n;
}

extern "C" int anne_gpu_supported(void)
{
	return 1;
}

/* Kernels built for another architecture fail only at launch; ask now. */
static int kernels_load(char *err, size_t errlen)
{
	struct cudaFuncAttributes attr;
	cudaError_t rc = cudaFuncGetAttributes(&attr, segment_argmin_kernel<32, true>);
	if (rc == cudaSuccess)
		return 0;
	say(err, errlen, "anne_gpu: this device cannot run the built kernels (%s); rebuild with CUDA_ARCH for it",
	    cudaGetErrorString(rc));
	return -1;
}

static int setup(struct anne_gpu *g, const float *centres, char *err, size_t errlen)
{
	size_t centre_bytes = (size_t)g->t * g->psi * g->d * sizeof(float);
	size_t free_bytes, total_bytes;
	if (anne_gpu_device_count() < 1) {
		say(err, errlen, "anne_gpu: no CUDA device");
		return -1;
	}
	if (cuda_failed(cudaSetDevice(g->device), "selecting the device", err, errlen) || kernels_load(err, errlen) ||
	    load_blas(&g->api, err, errlen))
		return -1;
	if (upload((void **)&g->dev_centres, centres, centre_bytes, "uploading centres", err, errlen) ||
	    upload_norms(g, centres, err, errlen))
		return -1;
	for (int i = 0; i < 2; i++)
		if (create_slot_handles(g, &g->slot[i], err, errlen))
			return -1;
	if (cuda_failed(cudaMemGetInfo(&free_bytes, &total_bytes), "querying device memory", err, errlen))
		return -1;
	/* Leave room for the row buffers and cuBLAS workspaces. */
	size_t budget = free_bytes / 4 < default_tile_budget ? free_bytes / 4 : default_tile_budget;
	return apply_tile_budget(g, budget, err, errlen);
}

extern "C" struct anne_gpu *anne_gpu_create(const float *centres, int t, int psi, int d, char *err, size_t errlen)
{
	const char *why = invalid_shape(t, psi, d);
	if (why) {
		say(err, errlen, "anne_gpu: %s (t=%d, psi=%d, d=%d)", why, t, psi, d);
		return NULL;
	}
	struct anne_gpu *g = (struct anne_gpu *)calloc(1, sizeof *g);
	if (!g) {
		say(err, errlen, "anne_gpu: out of host memory");
		return NULL;
	}
	g->device = 0;
	g->t = t;
	g->psi = psi;
	g->d = d;
	g->beta = anne_gemm_beta(d);
	g->tau = anne_gemm_tau(d);
	if (setup(g, centres, err, errlen)) {
		anne_gpu_free(g);
		return NULL;
	}
	return g;
}

extern "C" int anne_gpu_set_tile_budget(struct anne_gpu *g, size_t bytes, char *err, size_t errlen)
{
	if (bytes > ((size_t)1 << 31)) {
		say(err, errlen, "anne_gpu: a tile budget above 2^31 bytes is not supported");
		return -1;
	}
	if (cuda_failed(cudaSetDevice(g->device), "selecting the device", err, errlen))
		return -1;
	return apply_tile_budget(g, bytes, err, errlen);
}

/* Waits for the slot's batch and copies its results to the caller. */
static int collect(const struct anne_gpu *g, struct anne_slot *s, uint32_t *cells, uint8_t *recheck, float *gap,
		   char *err, size_t errlen)
{
	if (s->pending_rows == 0)
		return 0;
	if (cuda_failed(cudaEventSynchronize(s->done), "mapping a batch", err, errlen))
		return -1;
	size_t at = (size_t)s->pending_first * g->t;
	size_t n = (size_t)s->pending_rows * g->t;
	memcpy(cells + at, s->host_cells, n * sizeof(uint32_t));
	memcpy(recheck + at, s->host_recheck, n);
	if (gap)
		memcpy(gap + at, s->host_gap, n * sizeof(float));
	s->pending_rows = 0;
	return 0;
}

/* Queues the slot's batch of rows (already in host_rows) on its stream. */
static int launch_batch(const struct anne_gpu *g, struct anne_slot *s, int rows, int want_gap, char *err,
			size_t errlen)
{
	const float one = 1.0f, zero = 0.0f;
	size_t row_bytes = (size_t)rows * g->d * sizeof(float);
	if (cuda_failed(cudaMemcpyAsync(s->dev_rows, s->host_rows, row_bytes, cudaMemcpyHostToDevice, s->stream),
			"uploading rows", err, errlen))
		return -1;
	unsigned norm_blocks = (unsigned)(((size_t)rows * 32 + threads_per_block - 1) / threads_per_block);
	row_norms_kernel<<<norm_blocks, threads_per_block, 0, s->stream>>>(s->dev_rows, rows, g->d, s->dev_row_norm);
	for (int k0 = 0; k0 < g->t; k0 += g->plan.parts) {
		int parts = g->t - k0 < g->plan.parts ? g->t - k0 : g->plan.parts;
		int width = parts * g->psi;
		const float *chunk = g->dev_centres + (size_t)k0 * g->psi * g->d;
		/* cuBLAS is column-major: the row-major chunk of centres is a
		 * d x width matrix C, the batch a d x rows matrix X, and
		 * S = C^T X (width x rows) holds each row's scores contiguously.
		 * PEDANTIC keeps standard FP32 arithmetic (no TF32, no
		 * emulation), which the bound assumes. */
		if (blas_failed(g->api.gemm_ex(s->blas, CUBLAS_OP_T, CUBLAS_OP_N, width, rows, g->d, &one, chunk,
					       CUDA_R_32F, g->d, s->dev_rows, CUDA_R_32F, g->d, &zero, s->dev_scores,
					       CUDA_R_32F, width, CUBLAS_COMPUTE_32F_PEDANTIC, CUBLAS_GEMM_DEFAULT),
				"cublasGemmEx", err, errlen))
			return -1;
		struct segment_job job;
		job.scores = s->dev_scores;
		job.centre_sq = g->dev_centre_sq + (size_t)k0 * g->psi;
		job.qmax = g->dev_qmax + k0;
		job.cmax = g->dev_cmax + k0;
		job.row_norm = s->dev_row_norm;
		job.rows = s->dev_rows;
		job.centres = chunk;
		job.cells = s->dev_cells;
		job.recheck = s->dev_recheck;
		job.gap = want_gap ? s->dev_gap : NULL;
		job.rows_n = rows;
		job.parts = parts;
		job.psi = g->psi;
		job.t = g->t;
		job.d = g->d;
		job.first_part = k0;
		job.beta = g->beta;
		job.tau = g->tau;
		launch_segment_argmin(job, s->stream);
	}
	size_t cells = (size_t)rows * g->t;
	if (cuda_failed(cudaGetLastError(), "launching the kernels", err, errlen) ||
	    cuda_failed(cudaMemcpyAsync(s->host_cells, s->dev_cells, cells * sizeof(uint32_t),
					cudaMemcpyDeviceToHost, s->stream),
			"downloading cells", err, errlen) ||
	    cuda_failed(cudaMemcpyAsync(s->host_recheck, s->dev_recheck, cells, cudaMemcpyDeviceToHost, s->stream),
			"downloading recheck flags", err, errlen))
		return -1;
	if (want_gap && cuda_failed(cudaMemcpyAsync(s->host_gap, s->dev_gap, cells * sizeof(float),
						    cudaMemcpyDeviceToHost, s->stream),
				    "downloading gaps", err, errlen))
		return -1;
	return cuda_failed(cudaEventRecord(s->done, s->stream), "recording an event", err, errlen) ? -1 : 0;
}

/* anne_gpu_map() and anne_gpu_map_gaps(); gap may be NULL. */
static int map_rows(struct anne_gpu *g, const float *rows, int64_t count, uint32_t *cells, uint8_t *recheck,
		    float *gap, char *err, size_t errlen)
{
	if (count < 0) {
		say(err, errlen, "anne_gpu: negative row count");
		return -1;
	}
	if (!g->slot[0].dev_scores || !g->slot[1].dev_scores) {
		say(err, errlen, "anne_gpu: no tile buffers (an earlier call failed)");
		return -1;
	}
	if (cuda_failed(cudaSetDevice(g->device), "selecting the device", err, errlen))
		return -1;
	int batch_rows = g->plan.rows;
	int64_t batches = (count + batch_rows - 1) / batch_rows;
	for (int64_t b = 0; b < batches; b++) {
		struct anne_slot *s = &g->slot[b % 2];
		/* The slot's previous batch must be out of its buffers first;
		 * meanwhile the other slot's batch keeps the device busy. */
		if (collect(g, s, cells, recheck, gap, err, errlen))
			return -1;
		int64_t first = b * batch_rows;
		int n = count - first < batch_rows ? (int)(count - first) : batch_rows;
		memcpy(s->host_rows, rows + (size_t)first * g->d, (size_t)n * g->d * sizeof(float));
		if (launch_batch(g, s, n, gap != NULL, err, errlen))
			return -1;
		s->pending_first = first;
		s->pending_rows = n;
	}
	for (int64_t b = batches; b < batches + 2; b++)
		if (collect(g, &g->slot[b % 2], cells, recheck, gap, err, errlen))
			return -1;
	return 0;
}

extern "C" int anne_gpu_map(struct anne_gpu *g, const float *rows, int64_t count, uint32_t *cells,
			    uint8_t *recheck, char *err, size_t errlen)
{
	return map_rows(g, rows, count, cells, recheck, NULL, err, errlen);
}

extern "C" int anne_gpu_map_gaps(struct anne_gpu *g, const float *rows, int64_t count, uint32_t *cells,
				 uint8_t *recheck, float *gap, char *err, size_t errlen)
{
	return map_rows(g, rows, count, cells, recheck, gap, err, errlen);
}

extern "C" void anne_gpu_free(struct anne_gpu *g)
{
	if (!g)
		return;
	cudaSetDevice(g->device);
	for (int i = 0; i < 2; i++) {
		struct anne_slot *s = &g->slot[i];
		if (s->stream)
			cudaStreamSynchronize(s->stream);
		if (s->blas)
			g->api.destroy(s->blas);
		free_slot_buffers(s);
		if (s->done)
			cudaEventDestroy(s->done);
		if (s->stream)
			cudaStreamDestroy(s->stream);
	}
	cudaFree(g->dev_centres);
	cudaFree(g->dev_centre_sq);
	cudaFree(g->dev_qmax);
	cudaFree(g->dev_cmax);
	if (g->api.library)
		dlclose(g->api.library);
	free(g);
}
