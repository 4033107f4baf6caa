/*
 * test_ikmap_tasks.c - ikmap/tasks.h: every task runs exactly once, on a
 * worker numbered within ikmap_task_workers, whatever the threads; one
 * worker (the caller, in order) inside an OpenMP parallel region.
 */
#include <omp.h>
#include <stdatomic.h>
#include <string.h>
#include "unit.h"
#include "tasks.h"

#define MAX_TASKS 1000

struct record {
	atomic_int runs[MAX_TASKS];
	atomic_int bad_worker;
	int workers;
	size_t order[MAX_TASKS];	/* filled in order when one worker runs them all */
	atomic_size_t done;
};

static void note(void *context, size_t task, int worker)
{
	struct record *r = context;
	atomic_fetch_add(&r->runs[task], 1);
	if (worker < 0 || worker >= r->workers)
		atomic_store(&r->bad_worker, 1);
	size_t at = atomic_fetch_add(&r->done, 1);
	r->order[at] = task;
}

static void run_and_check(int threads, size_t count)
{
	static struct record r;
	memset(&r, 0, sizeof r);
	r.workers = ikmap_task_workers(threads, count);
	ikmap_run_tasks(threads, count, note, &r);
	for (size_t t = 0; t < count; t++)
		ck_assert_msg(atomic_load(&r.runs[t]) == 1, "threads %d, %zu tasks: task %zu ran %d times",
			threads, count, t, atomic_load(&r.runs[t]));
	ck_assert_uint_eq(atomic_load(&r.done), count);
	ck_assert_msg(!atomic_load(&r.bad_worker), "threads %d, %zu tasks: a worker number out of range",
		threads, count);
}

START_TEST(every_task_once)
{
	const int threads[] = { 0, 1, 2, 3, 8 };
	const size_t counts[] = { 0, 1, 2, 5, 7, 100, MAX_TASKS };
	for (size_t i = 0; i < sizeof threads / sizeof *threads; i++)
		for (size_t j = 0; j < sizeof counts / sizeof *counts; j++)
			run_and_check(threads[i], counts[j]);
}
END_TEST

START_TEST(worker_counts)
{
	ck_assert_int_eq(ikmap_task_workers(0, 10), 1);
	ck_assert_int_eq(ikmap_task_workers(1, 10), 1);
	ck_assert_int_eq(ikmap_task_workers(4, 0), 1);
	ck_assert_int_eq(ikmap_task_workers(4, 1), 1);
	ck_assert_int_eq(ikmap_task_workers(4, 2), 2);
	ck_assert_int_eq(ikmap_task_workers(3, 100), 3);
}
END_TEST

START_TEST(one_worker_in_order_inside_openmp)
{
	static struct record r;
	int workers = -1, team = 0;
	memset(&r, 0, sizeof r);
#pragma omp parallel num_threads(2)
	{
#pragma omp single
		{
			team = omp_get_num_threads();
			workers = ikmap_task_workers(4, 50);
			r.workers = workers;
			ikmap_run_tasks(4, 50, note, &r);
		}
	}
	/* a team of one (OMP_THREAD_LIMIT=1) is not an active region: OpenMP would not stop nesting */
	ck_assert_int_eq(workers, team > 1 ? 1 : 4);
	ck_assert_uint_eq(atomic_load(&r.done), 50);
	for (size_t t = 0; t < 50; t++) {
		ck_assert_int_eq(atomic_load(&r.runs[t]), 1);
		if (workers == 1)
			ck_assert_uint_eq(r.order[t], t);
	}
	ck_assert(!atomic_load(&r.bad_worker));
}
END_TEST

static Suite *tasks_suite(void)
{
	Suite *s = suite_create("ikmap_tasks");
	TCase *c = tcase_create("tasks");
	tcase_add_test(c, every_task_once);
	tcase_add_test(c, worker_counts);
	tcase_add_test(c, one_worker_in_order_inside_openmp);
	suite_add_tcase(s, c);
	return s;
}

UNIT_MAIN(tasks_suite)
