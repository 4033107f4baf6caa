/*
 * early_read.h - reading this process's share of the training file in a
 * thread while MPI_Init runs.
 *
 * Why: MPI_Init mostly waits (bench/results/mpi-scaling.md: with Open
 * MPI's default transports 0.22-0.25 s of wall time for 0.02-0.03 s of
 * CPU time, its transports' start-up sleeping in short naps), and the
 * share's reading (share_read.h) needs no MPI, only this process's rank
 * and the process count, which launchers already put in the
 * environment: Open MPI's OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE,
 * MPICH's (Hydra's) PMI_RANK and PMI_SIZE.
 *
 * Contract:
 *  - early_read_start() is called before MPI_Init_thread; it finds the
 *    training file in argv (the first argument that is not an option or
 *    an option's value, as the real parser will; takes_no_value says
 *    which option letters have none) and starts a thread that reads the
 *    share (share_read) when the environment names a rank and a size
 *    (0 <= rank < size) and TRAIN_MPI_EARLY_READ is not "0". Otherwise,
 *    or when the thread cannot be started, it does nothing.
 *  - The thread makes no MPI call (MPI_Init_thread is asked for
 *    MPI_THREAD_FUNNELED: threads, only the main one calling MPI).
 *  - early_read_take() waits for the thread and returns its share (the
 *    caller frees it, share_free), or NULL when none was started.
 *    dist_data_read() uses the share only when it was read for the
 *    rank, size, file and -F that MPI_Comm_rank/MPI_Comm_size and the
 *    parsed command line give, and reads after MPI_Init otherwise: the
 *    environment can only save time, never change what is read.
 *  - early_read_abandon() stops the thread (it gives up at its next row)
 *    and frees what it read; for every exit before early_read_take.
 * The model is byte-identical with and without the early read.
 */
#ifndef LIBLINEAR_IK_EARLY_READ_H
#define LIBLINEAR_IK_EARLY_READ_H

#include <stdbool.h>
#include "share_read.h"

void early_read_start(int argc, char **argv, bool (*takes_no_value)(char letter));

struct share *early_read_take(void);

void early_read_abandon(void);

/* The wall seconds the thread took, once taken; 0 when none ran. */
double early_read_seconds(void);

#endif /* LIBLINEAR_IK_EARLY_READ_H */
