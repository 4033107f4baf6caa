/*
 * tasks.c - numbered tasks on sleeping POSIX threads (tasks.h).
 */
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "tasks.h"

/* Workers beyond this many are not made (the tasks still all run). */
#define MAX_WORKERS 1024

struct job {
	ikmap_task_fn fn;
	void *context;
	size_t count;
	atomic_size_t next;	/* the next task to hand out */
};

struct worker {
	struct job *job;
	int id;
};

/* Takes tasks until none is left. */
static void work(struct job *job, int id)
{
	for (;;) {
		size_t task = atomic_fetch_add_explicit(&job->next, 1, memory_order_relaxed);
		if (task >= job->count)
			return;
		job->fn(job->context, task, id);
	}
}

static void *thread_main(void *arg)
{
	struct worker *w = arg;
	work(w->job, w->id);
	return NULL;
}

int ikmap_task_workers(int threads, size_t count)
{
	if (threads <= 1 || count <= 1 || omp_in_parallel())
		return 1;
	if (threads > MAX_WORKERS)
		threads = MAX_WORKERS;
	return (size_t)threads < count ? threads : (int)count;
}

void ikmap_run_tasks(int threads, size_t count, ikmap_task_fn fn, void *context)
{
	struct job job = { fn, context, count, 0 };
	int n = ikmap_task_workers(threads, count);
	pthread_t *tid = n > 1 ? malloc((size_t)(n - 1) * sizeof *tid) : NULL;
	struct worker *w = n > 1 ? malloc((size_t)(n - 1) * sizeof *w) : NULL;
	int made = 0;
	if (tid != NULL && w != NULL)
		for (int i = 1; i < n; i++) {
			w[made].job = &job;
			w[made].id = i;
			/* ids stay 1..made: a thread not made takes its id's share away, not its id */
			if (pthread_create(&tid[made], NULL, thread_main, &w[made]) != 0)
				break;
			made++;
		}
	work(&job, 0);
	for (int i = 0; i < made; i++)
		pthread_join(tid[i], NULL);
	free(tid);
	free(w);
}
