/*
 * dist_data.c - reading one process's blocks of a training set (see
 * dist_data.h): share_read.h reads the process's share alone (perhaps
 * before MPI_Init); here the processes agree on the blocks and each
 * keeps the rows it owns. Every step that can fail on one process ends
 * in dist_agree(), so that all processes take the same path through the
 * collective calls and stop together.
 */
#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "dist_data.h"

int dist_rank(MPI_Comm comm)
{
	int rank;
	MPI_Comm_rank(comm, &rank);
	return rank;
}

int dist_agree(MPI_Comm comm, int ok, const char *message)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	int mine = ok ? size : rank, first = size;
	MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
	if (first == size)
		return 1;
	if (first == rank && message != NULL && message[0] != '\0') {
		fprintf(stderr, "%s\n", message);
		fflush(stderr);
	}
	return 0;
}

/* ---- the shared file ---- */

/*
 * The rows this process owns once every share's line count is known:
 * global rows [own0, own1). The share's speculative rows [before,
 * before + lines) that fall inside are kept where they lie (from row
 * *skip of sh->rows on); the owned rows before the share go to *front,
 * parsed from the start of the first owned block, and those after it are
 * appended to sh->rows, parsed from the share's end. When the share's
 * rows were not parsed (a line failed) or none is owned, every owned row
 * is parsed into *front: an error then names the first bad owned line,
 * globally numbered, as the reading before the share existed did.
 */
static int own_rows(struct share *sh, int64_t before, int64_t own0, int64_t own1, int64_t own0_at,
	struct row_store *front, int *skip, char *msg, size_t room)
{
	int64_t lo = own0 > before ? own0 : before;
	int64_t hi = own1 < before + sh->lines ? own1 : before + sh->lines;
	*skip = 0;
	if (!sh->parsed || lo >= hi) {
		row_store_free(&sh->rows);	/* none kept: its memory goes back */
		return share_parse_lines(sh->f, own0_at, own1 - own0, sh->path, own0, front, msg, room);
	}
	*skip = (int)(lo - before);
	sh->rows.l = (int)(hi - before);	/* rows past the owned ones are dropped */
	sh->rows.nr_nodes = hi - before < sh->lines ? sh->rows.start[hi - before] : sh->rows.nr_nodes;
	/* front first: its error, if any, is the earliest owned line */
	if (own0 < before && share_parse_lines(sh->f, own0_at, before - own0, sh->path, own0, front,
			msg, room) != 0)
		return -1;
	if (own1 > hi)
		return share_parse_lines(sh->f, sh->end, own1 - hi, sh->path, hi, &sh->rows, msg, room);
	return 0;
}

static int read_shared(MPI_Comm comm, struct share *sh, struct dist_data *d,
	struct row_store *front, int *skip, char *msg, size_t room)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	if (!dist_agree(comm, sh->ok, sh->msg))
		return -1;

	/* lines before this share: an exact integer prefix sum */
	int64_t mine = sh->lines, before = 0, total = 0;
	MPI_Exscan(&mine, &before, 1, MPI_INT64_T, MPI_SUM, comm);
	if (rank == 0)
		before = 0;	/* MPI_Exscan leaves rank 0's result undefined */
	MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, comm);
	int64_t max_blocks = (total + d->block_rows - 1) / d->block_rows;
	if (max_blocks > INT_MAX / 2) {
		snprintf(msg, room, "train-mpi: %s: too many blocks; use a larger -b", sh->path);
		dist_agree(comm, 0, rank == 0 ? msg : NULL);
		return -1;
	}

	/* where each block starts, in file order (a pass over the share, from the page cache) */
	int64_t my_blocks = mine / d->block_rows + 2, nr_mine = 0;
	int64_t *starts = malloc((size_t)my_blocks * sizeof *starts);
	int64_t *all_starts = malloc((size_t)(max_blocks + 1) * sizeof *all_starts);
	int *counts = malloc((size_t)size * sizeof *counts);
	int *displs = malloc((size_t)size * sizeof *displs);
	int ok = starts && all_starts && counts && displs;
	if (!dist_agree(comm, ok, "train-mpi: out of memory"))
		goto done;
	errno = 0;
	ok = share_scan_lines(sh->f, sh->begin, sh->end, before, d->block_rows, starts, &nr_mine) >= 0;
	if (!ok)
		snprintf(msg, room, "train-mpi: %s: %s", sh->path, strerror(errno ? errno : EIO));
	if (!dist_agree(comm, ok, msg))
		goto done;
	int nr_mine_int = (int)nr_mine;
	MPI_Allgather(&nr_mine_int, 1, MPI_INT, counts, 1, MPI_INT, comm);
	int nb = 0;
	for (int p = 0; p < size; p++) {
		displs[p] = nb;
		nb += counts[p];
	}
	MPI_Allgatherv(starts, nr_mine_int, MPI_INT64_T, all_starts, counts, displs, MPI_INT64_T, comm);
	all_starts[nb] = sh->file_size;

	/* block b goes to rank b * P / nb: as even as whole blocks allow */
	for (int p = 0; p <= size; p++)
		d->first_block_of_rank[p] = (int)((int64_t)nb * p / size);
	d->total_blocks = nb;
	d->total_rows = total;
	int b0 = d->first_block_of_rank[rank], b1 = d->first_block_of_rank[rank + 1];
	d->first_block = b0;
	d->nr_blocks = b1 - b0;
	d->first_line = (int64_t)b0 * d->block_rows;
	d->first_row = d->first_line;	/* every line is a row */
	int64_t last_row = (int64_t)b1 * d->block_rows < total ? (int64_t)b1 * d->block_rows : total;
	if (b1 <= b0)
		last_row = d->first_row;	/* no blocks here */
	ok = own_rows(sh, before, d->first_row, last_row, all_starts[b0], front, skip, msg, room) == 0;
	ok = dist_agree(comm, ok, msg);
done:
	free(starts);
	free(all_starts);
	free(counts);
	free(displs);
	return ok ? 0 : -1;
}

/* ---- one file per rank ---- */

static int read_per_rank(MPI_Comm comm, struct share *sh, struct dist_data *d)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	if (!dist_agree(comm, sh->ok, sh->msg))
		return -1;
	int64_t rows = sh->rows.l;
	MPI_Allreduce(&rows, &d->total_rows, 1, MPI_INT64_T, MPI_SUM, comm);
	/* rows of the files of lower ranks: an exact integer prefix sum */
	MPI_Exscan(&rows, &d->first_row, 1, MPI_INT64_T, MPI_SUM, comm);
	if (rank == 0)
		d->first_row = 0;
	int nb = (int)((rows + d->block_rows - 1) / d->block_rows);
	int *counts = malloc((size_t)size * sizeof *counts);
	if (!dist_agree(comm, counts != NULL, "train-mpi: out of memory")) {
		free(counts);
		return -1;
	}
	MPI_Allgather(&nb, 1, MPI_INT, counts, 1, MPI_INT, comm);
	int64_t at = 0;
	for (int p = 0; p < size; p++) {
		d->first_block_of_rank[p] = (int)at;
		at += counts[p];
	}
	free(counts);
	if (at > INT_MAX / 2) {
		dist_agree(comm, 0, rank == 0 ? "train-mpi: too many blocks; use a larger -b" : NULL);
		return -1;
	}
	d->first_block_of_rank[size] = (int)at;
	d->total_blocks = at;
	d->first_block = d->first_block_of_rank[rank];
	d->nr_blocks = nb;
	d->first_line = 0;	/* per-rank files: lines of FILE.rank */
	return 0;
}

/*
 * Puts rows [0, front->l) of front, then rows [skip, mid->l) of mid, into
 * d as its rows (y copied; x pointing into the two stores, whose nodes d
 * then owns), with the bias node filled in.
 */
static int take_rows(struct row_store *front, struct row_store *mid, int skip, double bias,
	struct dist_data *d)
{
	int64_t l = (int64_t)front->l + (mid->l - skip);
	if (l > INT_MAX)
		return -1;
	d->l = (int)l;
	d->y = malloc((size_t)(l > 0 ? l : 1) * sizeof *d->y);
	d->x = malloc((size_t)(l > 0 ? l : 1) * sizeof *d->x);
	if (d->y == NULL || d->x == NULL)
		return -1;
	d->nodes_front = front->nodes;
	d->nodes = mid->nodes;
	front->nodes = mid->nodes = NULL;	/* d frees them */
	int i = 0;
	struct row_store *part[2] = { front, mid };
	struct feature_node *storage[2] = { d->nodes_front, d->nodes };
	for (int k = 0; k < 2; k++) {
		const struct row_store *s = part[k];
		for (int j = k == 0 ? 0 : skip; j < s->l; j++, i++) {
			d->y[i] = s->y[j];
			d->x[i] = storage[k] + s->start[j];
			if (bias >= 0) {
				/* the spare node sits right before the row's terminator */
				size_t end = (j + 1 < s->l ? s->start[j + 1] : s->nr_nodes) - 2;
				storage[k][end].index = d->n;
				storage[k][end].value = bias;
			}
		}
	}
	return 0;
}

int dist_data_read(MPI_Comm comm, const char *path, bool per_rank, int block_rows, double bias,
	struct share *early, struct dist_data *d)
{
	int rank, size;
	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);
	memset(d, 0, sizeof *d);
	d->block_rows = block_rows;
	d->bias = bias;
	struct share own, *sh = early;
	if (sh == NULL || !share_is_for(sh, path, per_rank, rank, size)) {
		/* not read before MPI_Init, or for another file or process (see early_read.h) */
		if (early != NULL)
			share_free(early);
		share_read(&own, path, per_rank, rank, size, NULL);
		sh = &own;
	}
	struct row_store front = { 0 };
	int skip = 0, rc = -1;
	char msg[1024] = "";
	d->first_block_of_rank = malloc((size_t)(size + 1) * sizeof *d->first_block_of_rank);
	if (!dist_agree(comm, d->first_block_of_rank != NULL, "train-mpi: out of memory"))
		goto done;
	if ((per_rank ? read_per_rank(comm, sh, d)
			: read_shared(comm, sh, d, &front, &skip, msg, sizeof msg)) != 0)
		goto done;
	if (d->total_rows == 0) {
		snprintf(msg, sizeof msg, "ERROR: no data in training file %s%s", path,
			per_rank ? ".RANK" : "");
		dist_agree(comm, 0, rank == 0 ? msg : NULL);
		goto done;
	}
	/* rows parsed but not owned are rows of the file too: the maximum is the file's */
	int max_index = front.max_index > sh->rows.max_index ? front.max_index : sh->rows.max_index;
	MPI_Allreduce(&max_index, &d->max_index, 1, MPI_INT, MPI_MAX, comm);
	d->n = d->max_index + (bias >= 0 ? 1 : 0);
	if (dist_agree(comm, take_rows(&front, &sh->rows, skip, bias, d) == 0,
			"train-mpi: out of memory"))
		rc = 0;
done:
	row_store_free(&front);
	share_free(sh);
	if (rc != 0)
		dist_data_free(d);
	return rc;
}

void dist_data_free(struct dist_data *d)
{
	free(d->y);
	free(d->x);
	free(d->nodes);
	free(d->nodes_front);
	free(d->first_block_of_rank);
	memset(d, 0, sizeof *d);
}

int dist_block_begin(const struct dist_data *d, int k)
{
	int64_t at = (int64_t)k * d->block_rows;
	return at < d->l ? (int)at : d->l;
}
