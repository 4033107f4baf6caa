/*
 * newton.c - truncated Newton method with line search (see newton.h).
 *
 * Threads: the O(n) loops use vec.h, whose sums do not depend on the
 * thread count; the elementwise loops here run on threads under the same
 * rule (vec_threads_pay) and compute each element alike on any thread.
 * The objective parallelises its own row loops.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "newton.h"
#include "print.h"
#include "solvers.h"
#include "vec.h"

/*
 * Below this d.Hd the CG direction carries no information (the residual
 * is at rounding level): stop rather than divide 0 by 0. Upstream's value,
 * found by running it (a 1-D problem with d.Hd = 8.1e-17 takes no CG
 * step, one with 1.2e-16 does).
 */
static const double CG_CURVATURE_FLOOR = 1.0e-16;

/* Relative change of f below which Newton gives up ("actred too small"). */
static const double MIN_RELATIVE_DECREASE = 1.0e-12;

/* f below this means the objective is unbounded below. */
static const double F_UNBOUNDED = -1.0e+32;

struct newton_params newton_default_params(double eps)
{
	struct newton_params p;
	p.eps = eps;
	p.max_iter = 1000;
	p.eps_cg = 0.5;
	p.max_line_search = 20;
	p.eta = 0.01;
	p.pcg_alpha = 0.01;
	return p;
}

static double norm2(size_t n, const double *a)
{
	return sqrt(vec_dot(n, a, a));
}

/* Work vectors of one minimisation, each of length n. */
struct newton_work {
	double *g;	/* gradient at w */
	double *s;	/* Newton direction */
	double *r;	/* CG residual -g - H s */
	double *d;	/* CG search direction */
	double *Hd;	/* H d */
	double *z;	/* preconditioned residual M^-1 r */
	double *M;	/* preconditioner diagonal */
	double *block;	/* all of the above */
};

static bool work_alloc(struct newton_work *wk, size_t n)
{
	size_t m = n > 0 ? n : 1;
	wk->block = malloc(7 * m * sizeof *wk->block);
	if (!wk->block)
		return false;
	double *p = wk->block;
	wk->g = p;
	wk->s = p + m;
	wk->r = p + 2 * m;
	wk->d = p + 3 * m;
	wk->Hd = p + 4 * m;
	wk->z = p + 5 * m;
	wk->M = p + 6 * m;
	return true;
}

/*
 * ||grad f(0)||, the scale of the stopping rule. The caller then makes its
 * own point current again. Needs one scratch vector of zeros.
 */
static double gradient_norm_at_zero(const struct newton_objective *obj, double *zero, double *g)
{
	memset(zero, 0, obj->n * sizeof *zero);
	obj->value(obj->ctx, zero);
	obj->gradient(obj->ctx, zero, g);
	return norm2(obj->n, g);
}

/*
 * Preconditioned CG for H s = -g (Chou et al., ACML 2018), truncated by
 * the quadratic-approximation rule of Nash & Sofer used in Galli & Lin:
 * with Q_j = g.s_j + 0.5 s_j.H s_j, stop once j (Q_j - Q_{j-1}) / Q_j
 * <= min(eps_cg, ||g||_{M^-1}^(1/2)), i.e. when step j gains little next
 * to the average step. (The forcing term was pinned down by matching the
 * CG counts of upstream's traces on many data sets: every one agrees.)
 * Returns the number of CG steps; the direction is left in wk->s.
 */
static int preconditioned_cg(const struct newton_objective *obj, const struct newton_params *par,
	struct newton_work *wk)
{
	size_t n = obj->n;
	/* n fits an int: it is a feature count (struct row_set.n). */
	int max_cg = n > 5 ? (int)n : 5;

	obj->hessian_diag(obj->ctx, wk->M);
	#pragma omp parallel for schedule(static) if(vec_threads_pay(n))
	for (size_t j = 0; j < n; j++) {
		wk->M[j] = (1 - par->pcg_alpha) + par->pcg_alpha * wk->M[j];
		wk->s[j] = 0;
		wk->r[j] = -wk->g[j];
		wk->z[j] = wk->r[j] / wk->M[j];
		wk->d[j] = wk->z[j];
	}
	double zTr = vec_dot(n, wk->z, wk->r);
	/*
	 * Forcing term: the rule tightens as the preconditioned gradient norm
	 * ||g||_{M^-1} = sqrt(z.r) falls, for fast local convergence.
	 */
	double cgtol = fmin(par->eps_cg, sqrt(sqrt(zTr)));
	double Q = 0;
	int cg_iter = 0;
	while (cg_iter < max_cg) {
		cg_iter++;
		obj->hessian_times(obj->ctx, wk->d, wk->Hd);
		double dHd = vec_dot(n, wk->d, wk->Hd);
		if (dHd <= CG_CURVATURE_FLOOR)
			break;
		double alpha = zTr / dHd;
		vec_axpy(n, alpha, wk->d, wk->s);
		vec_axpy(n, -alpha, wk->Hd, wk->r);

		/* r = -g - H s, so Q(s) = g.s + 0.5 s.H s = 0.5 (g.s - r.s). */
		double newQ = 0.5 * (vec_dot(n, wk->g, wk->s) - vec_dot(n, wk->r, wk->s));
		double Qdiff = newQ - Q;
		if (newQ > 0 || Qdiff > 0) {
			/* In exact arithmetic Q falls below 0 and keeps falling. */
			info("WARNING: quadratic approximation > 0 or increasing in CG\n");
			break;
		}
		/* Both sides are <= 0: this is j Qdiff / newQ <= cgtol. */
		if (cg_iter * Qdiff >= cgtol * newQ)
			break;
		Q = newQ;

		#pragma omp parallel for schedule(static) if(vec_threads_pay(n))
		for (size_t j = 0; j < n; j++)
			wk->z[j] = wk->r[j] / wk->M[j];
		double newzTr = vec_dot(n, wk->z, wk->r);
		double beta = newzTr / zTr;
		#pragma omp parallel for schedule(static) if(vec_threads_pay(n))
		for (size_t j = 0; j < n; j++)
			wk->d[j] = wk->z[j] + beta * wk->d[j];
		zTr = newzTr;
	}
	if (cg_iter == max_cg)
		info("WARNING: reaching maximal number of CG steps\n");
	return cg_iter;
}

/*
 * Backtracking from step 1 by halves until f(w + a s) <= f + eta a g.s.
 * Returns the step taken (0 when every try failed) and its f in *f_new.
 */
static double line_search(const struct newton_objective *obj, const struct newton_params *par,
	const double *w, const struct newton_work *wk, double f, double *f_new)
{
	obj->line_prepare(obj->ctx, w, wk->s);
	double gTs = vec_dot(obj->n, wk->g, wk->s);
	double step = 1;
	for (int k = 0; k < par->max_line_search; k++, step *= 0.5) {
		double ft = obj->line_value(obj->ctx, step);
		if (ft - f <= par->eta * step * gTs) {
			*f_new = ft;
			return step;
		}
	}
	return 0;
}

int newton_minimize(const struct newton_objective *obj, const struct newton_params *par,
	double *w)
{
	size_t n = obj->n;
	struct newton_work wk;
	if (!work_alloc(&wk, n))
		return SOLVER_NOMEM;

	double gnorm0 = 0;
	bool from_zero = vec_all_zero(n, w);
	if (!from_zero)
		gnorm0 = gradient_norm_at_zero(obj, wk.s, wk.g);

	double f = obj->value(obj->ctx, w);
	obj->gradient(obj->ctx, w, wk.g);
	double gnorm = norm2(n, wk.g);
	if (from_zero)
		gnorm0 = gnorm;
	info("init f %5.3e |g| %5.3e\n", f, gnorm);

	int status = SOLVER_OK;
	bool converged = gnorm <= par->eps * gnorm0;
	int iter = 1;
	for (; iter <= par->max_iter && !converged; iter++) {
		int cg_iter = preconditioned_cg(obj, par, &wk);

		double f_new = f;
		double step = line_search(obj, par, w, &wk, f, &f_new);
		if (step == 0) {
			info("WARNING: line search fails\n");
			break;
		}
		obj->line_accept(obj->ctx, step);
		vec_axpy(n, step, wk.s, w);
		double actred = f - f_new;
		f = f_new;

		obj->gradient(obj->ctx, w, wk.g);
		gnorm = norm2(n, wk.g);
		info("iter %2d f %5.3e |g| %5.3e CG %3d step_size %4.2e \n",
			iter, f, gnorm, cg_iter, step);

		if (gnorm <= par->eps * gnorm0) {
			converged = true;
			break;
		}
		/* The driver is generic: an objective may be unbounded below. */
		if (f < F_UNBOUNDED) {
			info("WARNING: f < -1.0e+32\n");
			break;
		}
		if (fabs(actred) <= MIN_RELATIVE_DECREASE * fabs(f)) {
			info("WARNING: actred too small\n");
			break;
		}
	}
	if (!converged && iter > par->max_iter) {
		info("\nWARNING: reaching max number of Newton iterations\n");
		status = SOLVER_MAX_ITER;
	}
	free(wk.block);
	return status;
}
