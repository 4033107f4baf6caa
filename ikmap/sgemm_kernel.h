/*
 * sgemm_kernel.h - one instance of the built-in GEMM (sgemm.h) for one
 * vector unit. Not a normal header: sgemm.c includes it once per kernel,
 * after defining
 *   SGEMM_NAME(x)  the name of this instance's function x,
 *   SGEMM_TARGET   its function attributes (e.g. target("avx512f")),
 *   SGEMM_VW       floats per vector register,
 *   SGEMM_MR       rows of the micro-tile (A values broadcast per step),
 *   SGEMM_NV       vectors per micro-tile row (NR = NV * VW columns),
 * chosen so that the MR x NV accumulators, NV vectors of B and one
 * broadcast fit the register file. It defines
 *   static int SGEMM_NAME(gemm)(m, n, k, a, lda, b, ldb, c, ldc)
 * with sgemm_nt's contract, and undefines the five parameters.
 *
 * Blocking (Goto's scheme): a KC-deep slice of B^T, up to NC columns, is
 * packed into NR-wide panels (KC x NR floats each, read from L1 by the
 * micro-kernel); for each MC-row block of A a KC x MR panel per MR rows
 * (the block stays in L2); the micro-kernel then keeps an MR x NR tile of
 * C in registers for the whole KC slice. The packed panels are padded
 * with zero ROWS and COLUMNS (outside m and n), never along k, so every
 * C element sums exactly its own k products: one running sum over the
 * first slice, to which each later slice's running sum is added. That is
 * a summation order, nothing more, so sgemm.h's gamma_k bound holds.
 */

#define SGEMM_NR (SGEMM_NV * SGEMM_VW)
/* At least 256 rows (a whole aNNE tile) per packed A block. */
#define SGEMM_MC (SGEMM_MR * ((256 + SGEMM_MR - 1) / SGEMM_MR))

typedef float SGEMM_NAME(vec) __attribute__((vector_size(SGEMM_VW * sizeof(float))));

/*
 * Packs `rows` rows (row r at src + r*ld, kc floats used) as panels of
 * `width` rows each, k-major (panel[p*width + r]), the last panel padded
 * with zero rows. A's rows and B's rows (C's columns) pack alike.
 */
SGEMM_TARGET static void SGEMM_NAME(pack)(int rows, int kc, const float *src, size_t ld,
	int width, float *out)
{
	for (int r0 = 0; r0 < rows; r0 += width) {
		int here = rows - r0 < width ? rows - r0 : width;
		const float *first = src + (size_t)r0 * ld;
		if (here == width) {
			/*
			 * Writes in order, the reads walking `width` rows side by
			 * side (within L1): reading each row through and scattering
			 * the writes made packing a quarter of the 784-d map's time.
			 */
			for (int p = 0; p < kc; p++)
				for (int r = 0; r < width; r++)
					out[(size_t)p * width + r] = first[(size_t)r * ld + p];
		} else {
			for (int p = 0; p < kc; p++) {
				for (int r = 0; r < here; r++)
					out[(size_t)p * width + r] = first[(size_t)r * ld + p];
				for (int r = here; r < width; r++)
					out[(size_t)p * width + r] = 0;
			}
		}
		out += (size_t)kc * width;
	}
}

/*
 * C[0..mr) x [0..nr) = (add ? C + : ) the kc-step product of one packed A
 * panel and one packed B panel. mr <= MR and nr <= NR; the padded rows
 * and columns are computed and dropped.
 */
SGEMM_TARGET static void SGEMM_NAME(micro)(int kc, const float *ap, const float *bp, float *c,
	size_t ldc, int mr, int nr, int add)
{
	/*
	 * The accumulators live in registers only if the loops over i and v
	 * are unrolled completely, which gcc -O2 does not do by itself.
	 */
	SGEMM_NAME(vec) acc[SGEMM_MR][SGEMM_NV];
	SGEMM_UNROLL
	for (int i = 0; i < SGEMM_MR; i++)
		SGEMM_UNROLL
		for (int v = 0; v < SGEMM_NV; v++)
			acc[i][v] = (SGEMM_NAME(vec)){0};
	for (int p = 0; p < kc; p++) {
		SGEMM_NAME(vec) bv[SGEMM_NV];
		SGEMM_UNROLL
		for (int v = 0; v < SGEMM_NV; v++)
			memcpy(&bv[v], bp + (size_t)p * SGEMM_NR + v * SGEMM_VW, sizeof bv[v]);
		SGEMM_UNROLL
		for (int i = 0; i < SGEMM_MR; i++) {
			float s = ap[(size_t)p * SGEMM_MR + i];
			SGEMM_UNROLL
			for (int v = 0; v < SGEMM_NV; v++)
				acc[i][v] += s * bv[v];
		}
	}
	if (mr == SGEMM_MR && nr == SGEMM_NR) {
		for (int i = 0; i < SGEMM_MR; i++)
			for (int v = 0; v < SGEMM_NV; v++) {
				float *dst = c + (size_t)i * ldc + v * SGEMM_VW;
				if (add) {
					SGEMM_NAME(vec) old;
					memcpy(&old, dst, sizeof old);
					acc[i][v] += old;
				}
				memcpy(dst, &acc[i][v], sizeof acc[i][v]);
			}
		return;
	}
	float tile[SGEMM_MR][SGEMM_NR];
	memcpy(tile, acc, sizeof tile);
	for (int i = 0; i < mr; i++)
		for (int j = 0; j < nr; j++) {
			float *dst = c + (size_t)i * ldc + j;
			*dst = add ? *dst + tile[i][j] : tile[i][j];
		}
}

SGEMM_TARGET static int SGEMM_NAME(gemm)(int m, int n, int k, const float *a, int lda,
	const float *b, int ldb, float *c, int ldc)
{
	int kc_max = k < SGEMM_KC ? k : SGEMM_KC;
	int nc_max = n < SGEMM_NC ? n : SGEMM_NC;
	int mc_max = m < SGEMM_MC ? m : SGEMM_MC;
	size_t b_panels = ((size_t)nc_max + SGEMM_NR - 1) / SGEMM_NR;
	size_t a_panels = ((size_t)mc_max + SGEMM_MR - 1) / SGEMM_MR;
	float *bpack = malloc(b_panels * SGEMM_NR * (size_t)kc_max * sizeof(float));
	float *apack = malloc(a_panels * SGEMM_MR * (size_t)kc_max * sizeof(float));
	if (!bpack || !apack) {
		free(bpack);
		free(apack);
		return -1;
	}
	for (int jc = 0; jc < n; jc += SGEMM_NC) {
		int nc = n - jc < SGEMM_NC ? n - jc : SGEMM_NC;
		for (int pc = 0; pc < k; pc += SGEMM_KC) {
			int kc = k - pc < SGEMM_KC ? k - pc : SGEMM_KC;
			SGEMM_NAME(pack)(nc, kc, b + (size_t)jc * ldb + pc, (size_t)ldb, SGEMM_NR, bpack);
			for (int ic = 0; ic < m; ic += SGEMM_MC) {
				int mc = m - ic < SGEMM_MC ? m - ic : SGEMM_MC;
				SGEMM_NAME(pack)(mc, kc, a + (size_t)ic * lda + pc, (size_t)lda, SGEMM_MR,
					apack);
				for (int jr = 0; jr < nc; jr += SGEMM_NR)
					for (int ir = 0; ir < mc; ir += SGEMM_MR)
						SGEMM_NAME(micro)(kc, apack + (size_t)ir * kc,
							bpack + (size_t)jr * kc,
							c + (size_t)(ic + ir) * ldc + jc + jr, (size_t)ldc,
							mc - ir < SGEMM_MR ? mc - ir : SGEMM_MR,
							nc - jr < SGEMM_NR ? nc - jr : SGEMM_NR, pc > 0);
			}
		}
	}
	free(bpack);
	free(apack);
	return 0;
}

#undef SGEMM_MC
#undef SGEMM_NR
#undef SGEMM_NAME
#undef SGEMM_TARGET
#undef SGEMM_VW
#undef SGEMM_MR
#undef SGEMM_NV
