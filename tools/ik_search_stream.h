/*
 * ik_search_stream.h - train -C -k's default search (psi searched on a
 * subsample, then confirmed on all rows) and -E 1 over a file that train
 * never holds whole (issue 22): only the subsample's rows, one psi's cells
 * of all rows and the map stay in memory.
 *
 * Contract. Each function takes s after ik_stream_begin and
 * ik_stream_scan_rest, train's parameter checks passed.
 * ik_search_stream runs lik_search (liblinear_ik.h) on the rows of s: kernel is
 * the map's parameters with psi 0 (searched) for a kernel other than acos
 * (whose one width has no subsample, and whose plain baseline runs on all
 * rows). When s has more rows than so->subsample_rows, the stages run
 * through lik_search_spread: stage 1 and the plain baseline on the rows
 * lik_search draws (lik_draw_ids, read back by seeking, with their bias
 * nodes as train reads them), and each walk on all rows on the cells of a
 * last pass at its psi (ik_stream_build, ik_stream_map), freed after the
 * walk; with fewer rows they are all read back and lik_search runs on
 * them. Either way the table (every row's psi, C, p, score and folds, the
 * choice, the note and the best map) is the one lik_search gives on the
 * rows read whole; only the seconds differ (and so, under a time budget
 * that stage 3 would reach, how far it goes). NULL after a message on
 * stderr.
 * ik_search_stream_train: the model of all rows through map with param
 * (-W 1), the one lik_train_with_map trains on the rows read whole; its
 * cells are mapped in one more pass. NULL after a message on stderr.
 * ik_search_stream_at: one psi of -C -k -E 1 (the exhaustive search):
 * all rows mapped with at's parameters in one more pass, then upstream's
 * C (and p) sweep on them, as lik_find_parameters at that psi on the rows
 * read whole: the same log2c lines, best C, p and score. 0, or -1 after a
 * message on stderr.
 */
#ifndef IK_SEARCH_STREAM_H
#define IK_SEARCH_STREAM_H

#include "ik_stream.h"
#include "liblinear_ik.h"

struct lik_search_table *ik_search_stream(struct ik_stream *s, const struct parameter *param,
	const struct lik_map_params *kernel, int nr_fold, double start_C, double start_p,
	const struct lik_search_options *so, double bias);
struct lik_model *ik_search_stream_train(struct ik_stream *s, const struct parameter *param,
	const struct lik_map *map, double bias);
int ik_search_stream_at(struct ik_stream *s, const struct parameter *param,
	const struct lik_map_params *at, int nr_fold, double start_C, double start_p, double bias,
	double *C, double *p, double *score);

#endif /* IK_SEARCH_STREAM_H */
