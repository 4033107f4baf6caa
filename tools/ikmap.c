/*
 * ikmap.c - the `ikmap` command: build a partitioning file, map
 * LIBSVM rows through one, or print Isolation Kernel values.
 *
 *   ikmap -k type [-t T] [-g psi] [-r seed] [-S 0|1|2|3|4] [-a w] [-m threads] data partitioning_file
 *   ikmap [-m threads] partitioning_file < in > out
 *   ikmap -K [-m threads] partitioning_file file_x [file_y]
 *
 * Building uses the same defaults and code as train -k, so `train -k` and
 * `ikmap` + upstream `train` on its output agree. Mapping streams:
 * IK_BATCH_ROWS rows at a time, each written as the row a -k model sees
 * (ik_batch.h), values printed with %.17g so they read back exactly.
 * The kernel mode holds the cells of file_y (t small integers a row; with
 * a raw part, also its raw rows) and streams file_x; with a raw part it
 * prints the whole kernel of the mapped rows, K(x, y) + w^2 <x', y'>. Usage goes to stdout, errors to stderr; both exit 1, as
 * train and predict do.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_number.h"
#include "atomic_file.h"
#include "ik_batch.h"
#include "ik_options.h"
#include "lik_internal.h"
#include "ikmap.h"
#include "reader.h"

static const char usage_format[] =
	"Usage: ikmap -k type [options] data_file partitioning_file\n"
	"       ikmap [-m threads] partitioning_file < data_file > mapped_file\n"
	"       ikmap -K [-m threads] partitioning_file file_x [file_y]\n"
	"The first form builds a kernel's partitioning (feature map) of data_file (LIBSVM format)\n"
	"as train -k does; the second maps each row read from stdin to the row that a model\n"
	"trained with -k sees (\"label index:value ...\"); the third prints K(x, y) for every\n"
	"row x of file_x (one line each) and row y of file_y (default: file_x); with -a w,\n"
	"K(x, y) + w^2 <x', y'>, x' the transformed raw features.\n"
	"options:\n"
	"-k type : partitioning method\n"
	"\t 1 or anne    -- aNNE: cell of the nearest of psi sampled points\n"
	"\t 2 or iforest -- isolation forest: leaf of a random tree on psi sampled points\n"
	"\t 3 or minmax  -- min-max kernel: T samples of 0-bit consistent weighted sampling\n"
	"\t 4 or acos    -- acos kernel: signs of T random projections\n"
	"-t T : number of partitionings (minmax, acos: samples, at most 65536) (default %d)\n"
	"-g psi : cells per partitioning (default %d for anne, %d for iforest, %d for minmax,\n"
	"\twhich takes a power of two from 16 to 65536; not with acos)\n"
	"-r seed : random seed (default %d)\n"
	"-S 0|1|2|3|4 : per-feature transform over data_file's rows, stored with the map: 0 none;\n"
	"\t1 divide by max|x|; 2 min-max (anne: divide by the range; minmax, acos: to [0, 1]);\n"
	"\t3 divide by the standard deviation; 4 log1p, then as 1 (non-negative data only);\n"
	"\tiforest ignores 1-3 (default %d for anne, iforest; 0 for minmax, acos)\n"
	"-a w : also write each row's raw features, transformed by -S (iforest: -S 2 when\n"
	"\tgiven, else none), times w, after the cells (default 0: off)\n"
	"-m threads : number of threads (default: all cores)\n"
	"-d device : auto, cpu or gpu (default auto)\n"
	"-K : print kernel values\n";

static void exit_with_help(void)
{
	printf(usage_format, IK_DEFAULT_T, IK_DEFAULT_PSI_ANNE, IK_DEFAULT_PSI_IFOREST,
		IK_DEFAULT_PSI_MINMAX, IK_DEFAULT_SEED, IK_DEFAULT_SCALE);
	exit(1);
}

static void fail(const char *message, const char *name)
{
	fprintf(stderr, "ERROR: %s%s\n", message, name);
	exit(1);
}

struct options {
	struct ik_options ik;
	int build_option_given;	/* -k, -t, -g, -r, -S or -a */
	int kernel_values;	/* -K */
	int threads;		/* -m; 0: all cores */
	char **files;
	int nr_files;
};

static void parse_command_line(int argc, char **argv, struct options *o)
{
	memset(o, 0, sizeof *o);
	ik_options_default(&o->ik);
	int i;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		char letter = argv[i][1];
		if (letter == 'K') {
			o->kernel_values = 1;
			continue;
		}
		if (i + 1 >= argc)
			exit_with_help();
		const char *value = argv[++i];
		if (letter == 'm') {
			if (cli_thread_count(value, &o->threads) != 0)
				exit_with_help();
			continue;
		}
		int ours = ik_options_parse(&o->ik, letter, value);
		if (ours < 0)
			exit_with_help();
		if (ours == 0) {
			fprintf(stderr, "unknown option: -%c\n", letter);
			exit_with_help();
		}
		if (letter != 'd')
			o->build_option_given = 1;
	}
	o->files = argv + i;
	o->nr_files = argc - i;
	int building = o->build_option_given;
	if (building && o->kernel_values) {
		fprintf(stderr, "ERROR: -K reads a partitioning file; -k, -t, -g, -r, -S and -a are for building one\n");
		exit_with_help();
	}
	if (o->kernel_values ? o->nr_files != 2 && o->nr_files != 3
		: o->nr_files != (building ? 2 : 1))
		exit_with_help();
	if (building && o->ik.kernel == IK_KERNEL_NONE) {
		fprintf(stderr, "ERROR: building a partitioning needs -k anne, iforest, minmax or acos\n");
		exit_with_help();
	}
	if ((building && ik_options_check(&o->ik) != 0) || ik_options_check_device(&o->ik) != 0)
		exit(1);
}

static struct libsvm_reader *open_reader(const char *path)
{
	struct libsvm_reader *r = libsvm_reader_open(path);
	if (!r)
		fail("can't open input file ", path);
	return r;
}

static int build(const struct options *o)
{
	const char *data_file = o->files[0], *map_file = o->files[1];
	/* refuse a path that is not a file before reading any data */
	if (atomic_file_check_target(map_file, 0) != 0) {
		fprintf(stderr, "ERROR: cannot write partitioning file %s: %s\n", map_file,
			atomic_file_strerror(errno));
		return 1;
	}
	struct libsvm_reader *r = open_reader(data_file);
	struct libsvm_data *data = libsvm_data_read(r, -1);
	if (!data) {
		fprintf(stderr, "%s\n", libsvm_reader_error(r));
		libsvm_reader_close(r);
		return 1;
	}
	libsvm_reader_close(r);
	if (data->prob.l == 0)
		fail("no data in file ", data_file);
	struct lik_map_params kernel = ik_options_kernel(&o->ik, o->threads);
	if (ik_needs_nonnegative(kernel.kernel == LIK_KERNEL_MINMAX, kernel.scale)
		&& ik_refuse_negative(data->prob.x, (size_t)data->prob.l, INT_MAX, data_file, 1,
			ik_log1p_advice(kernel.scale, 0) != NULL ? ik_log1p_advice(kernel.scale, 0)
			: "-k minmax needs non-negative values (-S 2 min-max scales them to [0, 1])") != 0) {
		libsvm_data_free(data);
		return 1;
	}
	struct lik_error why;
	struct ikmap *map = lik_map_build_ikmap(&data->prob, &kernel, &why);
	libsvm_data_free(data);
	if (!map) {
		lik_error_print(&why);
		return 1;
	}
	char err[IKMAP_ERR_SIZE];
	int status = ikmap_save(map, map_file, err);
	if (status != 0)
		fprintf(stderr, "ERROR: %s\n", err);
	ikmap_free(map);
	return status != 0;
}

static struct ikmap *load_map(const char *path)
{
	char err[IKMAP_ERR_SIZE];
	struct ikmap *map = ikmap_load(path, err);
	if (!map)
		fail(err, "");
	return map;
}

/* Flushes stdout; exits 1 if anything written to it was lost. */
static void finish_output(void)
{
	if (fflush(stdout) != 0 || ferror(stdout))
		fail("cannot write the output", "");
}

static int map_stdin(const struct options *o)
{
	struct ikmap *map = load_map(o->files[0]);
	struct libsvm_reader *r = libsvm_reader_from_stream(stdin, "stdin");
	struct ik_batch batch;
	size_t room = (size_t)ikmap_t(map) + 2;	/* grown for rows with a raw part */
	struct feature_node *x = malloc(room * sizeof *x);
	if (!r || !x || ik_batch_init(&batch, IK_BATCH_ROWS, map) != 0)
		fail("out of memory", "");
	batch.name = "stdin";
	/* every cell's value is 1/sqrt(t): format it once, not once per cell */
	char value[32];
	snprintf(value, sizeof value, "%.17g", ik_cell_value(map));
	int cells = ikmap_t(map) * ikmap_psi(map);
	long count;
	while ((count = ik_batch_next(&batch, r, map, o->threads, o->ik.device)) > 0) {
		for (long i = 0; i < count; i++) {
			size_t need = lik_model_row_room(map, batch.rows[i]);
			if (need > room) {
				struct feature_node *grown = realloc(x, need * sizeof *grown);
				if (!grown)
					fail("out of memory", "");
				x = grown;
				room = need;
			}
			ik_cell_row(map, ik_batch_cells(&batch, (size_t)i), batch.rows[i], -1, x);
			printf("%.17g", batch.labels[i]);
			for (const struct feature_node *f = x; f->index != -1; f++)
				if (f->index <= cells)
					printf(" %d:%s", f->index, value);
				else
					printf(" %d:%.17g", f->index, f->value);
			putchar('\n');
		}
		finish_output();	/* each batch leaves as soon as it is mapped */
	}
	free(x);
	ik_batch_free(&batch);
	libsvm_reader_close(r);
	ikmap_free(map);
	return count < 0;
}

/* Raw parts of many rows (ikmap_raw_row), one after another: row i's at nodes + start[i]. */
struct raw_rows {
	struct feature_node *nodes;
	size_t used, cap;
	size_t *start;
	size_t rows_cap;
};

/* Appends row x's raw part as row number i; exits 1 when out of memory. */
static void raw_rows_add(struct raw_rows *s, const struct ikmap *map, size_t i,
	const struct feature_node *x)
{
	size_t need = s->used + lik_model_row_room(map, x);	/* more than the raw part needs */
	if (need > s->cap) {
		size_t cap = s->cap ? s->cap : 1024;
		while (cap < need)
			cap *= 2;
		struct feature_node *grown = realloc(s->nodes, cap * sizeof *grown);
		if (!grown)
			fail("out of memory", "");
		s->nodes = grown;
		s->cap = cap;
	}
	if (i >= s->rows_cap) {
		size_t cap = s->rows_cap ? 2 * s->rows_cap : 1024;
		size_t *grown = realloc(s->start, cap * sizeof *grown);
		if (!grown)
			fail("out of memory", "");
		s->start = grown;
		s->rows_cap = cap;
	}
	s->start[i] = s->used;
	s->used += ikmap_raw_row(map, x, s->nodes + s->used) + 1;
}

/* <a, b> of two rows of ascending indices. */
static double sparse_dot(const struct feature_node *a, const struct feature_node *b)
{
	double s = 0;
	while (a->index != -1 && b->index != -1) {
		if (a->index == b->index)
			s += (a++)->value * (b++)->value;
		else if (a->index < b->index)
			a++;
		else
			b++;
	}
	return s;
}

/*
 * Every row's cells of a file, one after another (*rows of them); raw, when
 * not NULL, gets every row's raw part.
 */
static unsigned char *read_all_cells(const char *path, const struct ikmap *map, const struct options *o,
	size_t *rows, struct raw_rows *raw)
{
	struct libsvm_reader *r = open_reader(path);
	struct ik_batch batch;
	if (ik_batch_init(&batch, IK_BATCH_ROWS, map) != 0)
		exit(1);
	batch.name = path;
	unsigned char *all = NULL;
	size_t used = 0;
	long count;
	while ((count = ik_batch_next(&batch, r, map, o->threads, o->ik.device)) > 0) {
		size_t bytes = (size_t)count * batch.cell_bytes;
		unsigned char *grown = realloc(all, (used + (size_t)count) * batch.cell_bytes);
		if (!grown)
			fail("out of memory", "");
		all = grown;
		memcpy(all + used * batch.cell_bytes, batch.cells, bytes);
		if (raw)
			for (long i = 0; i < count; i++)
				raw_rows_add(raw, map, used + (size_t)i, batch.rows[i]);
		used += (size_t)count;
	}
	if (count < 0)
		exit(1);
	if (used == 0)
		fail("no data in file ", path);
	ik_batch_free(&batch);
	libsvm_reader_close(r);
	*rows = used;
	return all;
}

static int kernel_values(const struct options *o)
{
	struct ikmap *map = load_map(o->files[0]);
	const char *x_file = o->files[1];
	const char *y_file = o->nr_files == 3 ? o->files[2] : x_file;
	size_t ny;
	/* with a raw part the kernel of the mapped rows is K + <raw x, raw y> (w already in both) */
	int has_raw = ikmap_raw_columns(map) > 0;
	struct raw_rows y_raw = {0}, x_raw = {0};
	unsigned char *y_cells = read_all_cells(y_file, map, o, &ny, has_raw ? &y_raw : NULL);
	size_t row_bytes = ikmap_cell_size(map) * (size_t)ikmap_t(map);
	struct libsvm_reader *r = open_reader(x_file);
	struct ik_batch batch;
	if (ik_batch_init(&batch, IK_BATCH_ROWS, map) != 0)
		exit(1);
	batch.name = x_file;
	long count;
	size_t nx = 0;
	while ((count = ik_batch_next(&batch, r, map, o->threads, o->ik.device)) > 0) {
		for (long i = 0; i < count; i++) {
			const void *cx = ik_batch_cells(&batch, (size_t)i);
			if (has_raw) {
				x_raw.used = 0;
				raw_rows_add(&x_raw, map, 0, batch.rows[i]);
			}
			for (size_t j = 0; j < ny; j++) {
				double k = ikmap_kernel_cells(map, cx, y_cells + j * row_bytes);
				if (has_raw)
					k += sparse_dot(x_raw.nodes, y_raw.nodes + y_raw.start[j]);
				printf(j ? " %g" : "%g", k);
			}
			putchar('\n');
		}
		nx += (size_t)count;
		finish_output();
	}
	if (count == 0 && nx == 0)
		fail("no data in file ", x_file);
	free(y_cells);
	free(y_raw.nodes);
	free(y_raw.start);
	free(x_raw.nodes);
	free(x_raw.start);
	ik_batch_free(&batch);
	libsvm_reader_close(r);
	ikmap_free(map);
	return count < 0;
}

int main(int argc, char **argv)
{
	struct options o;
	parse_command_line(argc, argv, &o);
	atomic_file_install_signal_cleanup();	/* no temporary file outlives SIGINT/SIGTERM */
	if (o.kernel_values)
		return kernel_values(&o);
	if (o.build_option_given)
		return build(&o);
	return map_stdin(&o);
}
