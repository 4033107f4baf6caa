/*
 * train_mpi.h - train-mpi's options, as its command line sets them; the
 * files of train-mpi (train_mpi.c parses them, dist_train.c, dist_cv.c
 * and dist_ksearch.c read them) share this one definition.
 */
#ifndef LIBLINEAR_IK_TRAIN_MPI_H
#define LIBLINEAR_IK_TRAIN_MPI_H

#include "ik_options.h"
#include "linear.h"

struct options {
	struct parameter param;
	double bias;
	int quiet;
	int threads;
	int per_rank;
	int block_rows;
	int nr_fold;		/* -v n; 0: train */
	int find_parameters;	/* -C */
	int C_given, p_given;
	const char *input_file;
	char *model_file;
	struct ik_options ik;
	int search_verbose;	/* -V 1: -C -k prints every C tried */
	int search_write;	/* -W 1: -C -k writes the best model */
	double search_budget;	/* -T seconds (< 0: the library's default) */
	int search_exhaustive;	/* -E 1: -C -k tries all rows at every psi */
};

#endif /* LIBLINEAR_IK_TRAIN_MPI_H */
