/*
 * tasks.h - numbered tasks run on POSIX threads that sleep, never spin,
 * while they wait (the iForest's growing and mapping, and the draws).
 *
 * Contract: ikmap_run_tasks(threads, count, fn, context) calls
 * fn(context, task, worker) exactly once for every task 0..count-1 and
 * returns when all have returned. The tasks are handed out one at a time
 * in increasing order to ikmap_task_workers(threads, count) workers,
 * numbered 0..that-1; the calling thread is worker 0 and the others are
 * threads made for this call and joined before it returns. A worker runs
 * one task at a time, so per-worker scratch indexed by `worker` needs no
 * lock. Which worker runs a task varies from run to run: fn's results
 * must depend on the task alone (so they are the same for any threads).
 * With one worker (threads <= 1, count <= 1, or called from inside an
 * OpenMP parallel region, where OpenMP itself would not nest) every task
 * runs in the calling thread, in order. A thread that cannot be made
 * leaves its share to the others: the call never fails.
 *
 * Why not an OpenMP parallel loop: libgomp's idle workers spin (its
 * default wait policy) for milliseconds after every parallel region and
 * at its closing barrier before they sleep. The iForest's regions are
 * followed by serial work (the online update, reading the next batch,
 * writing files), so on a 2-core machine every region cost that much
 * CPU again, and more when the machine is shared and the other thread
 * waits to be scheduled (bench/results/online-ogd.md). Threads made per
 * call cost some tens of microseconds, and joining them is a sleep.
 */
#ifndef IKMAP_TASKS_H
#define IKMAP_TASKS_H

#include <stddef.h>

typedef void (*ikmap_task_fn)(void *context, size_t task, int worker);

/* The workers ikmap_run_tasks uses: 1..threads, at most count (at least 1). */
int ikmap_task_workers(int threads, size_t count);

void ikmap_run_tasks(int threads, size_t count, ikmap_task_fn fn, void *context);

#endif
