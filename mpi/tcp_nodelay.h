/*
 * tcp_nodelay.h - turning off Nagle's algorithm on the TCP sockets the
 * MPI library opened in this process.
 *
 * Why: Open MPI 4.1's PMIx client talks to its launcher (mpirun or the
 * node's daemon) over a loopback TCP socket without TCP_NODELAY. At
 * MPI_Finalize the client sends its fence request as four small writes;
 * Nagle holds the later ones until the first is acknowledged, and the
 * server acknowledges late (Linux's delayed ACK, 40 ms). Measured on this
 * project's 2-core machine (bench/results/mpi-scaling.md): MPI_Finalize
 * 44-49 ms, 3-4 ms with TCP_NODELAY set; the same 40 ms stall in every
 * process whatever the process count, so at 500k rows it is a tenth of a
 * two-process run. strace shows the 40 ms between the client's writev and
 * the server's read of the same bytes.
 *
 * Contract:
 *  - tcp_nodelay_all() is called after MPI_Init. It looks at this
 *    process's descriptors 0 .. 1023 and sets TCP_NODELAY on each stream
 *    socket of family AF_INET or AF_INET6; it leaves every other
 *    descriptor (files, pipes, Unix sockets, datagram sockets) untouched
 *    and ignores every failure: the option only changes when small
 *    writes leave, never what is sent or received.
 *  - It returns how many sockets it changed (0 when there were none or
 *    the environment's TRAIN_MPI_NODELAY is "0", which turns it off).
 *  - It makes no MPI call and needs no MPI header.
 */
#ifndef LIBLINEAR_IK_TCP_NODELAY_H
#define LIBLINEAR_IK_TCP_NODELAY_H

int tcp_nodelay_all(void);

#endif
