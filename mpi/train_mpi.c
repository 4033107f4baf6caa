/*
 * train_mpi.c - train-mpi: train's Newton solvers (-s 0, 2, 11) with the
 * rows spread over MPI processes:
 *     mpirun -n P train-mpi [options] training_set_file [model_file]
 *
 * Every process runs the same steps on its own rows (dist_data.h) and the
 * same solver with the sums combined in a fixed block order
 * (dist_newton.h), so all hold the same w; rank 0 writes the model, with
 * save_model (atomically: a temporary file renamed into place). Errors:
 * one message, from one process, and exit status 1 on all, no model.
 */
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include "c_walk.h"
#include "cli_number.h"
#include "dist_data.h"
#include "dist_kernel.h"
#include "dist_newton.h"
#include "dist_train.h"
#include "dist_cv.h"
#include "dist_ksearch.h"
#include "early_read.h"
#include "tcp_nodelay.h"
#include "train_mpi.h"
#include "print.h"
#include "ik_model.h"
#include "ik_options.h"
#include "lik_internal.h"
#include "linear.h"
#include "linear_rows.h"
#include "model_shape.h"

/* Rows per block unless -b says otherwise (see the README: memory, balance). */
enum { DEFAULT_BLOCK_ROWS = 8192 };

static const char usage_text[] =
	"Usage: mpirun -n P train-mpi [options] training_set_file [model_file]\n"
	"options:\n"
	"-s type : set type of solver (default 2; only these three are distributed)\n"
	"\t 0 -- L2-regularized logistic regression (primal)\n"
	"\t 2 -- L2-regularized L2-loss support vector classification (primal)\n"
	"\t11 -- L2-regularized L2-loss support vector regression (primal)\n"
	"-c cost : set the parameter C (default 1)\n"
	"-p epsilon : set the epsilon in loss function of SVR (default 0.1)\n"
	"-e epsilon : set tolerance of termination criterion\n"
	"\t-s 0 and 2\n"
	"\t\t|f'(w)|_2 <= eps*min(pos,neg)/l*|f'(w0)|_2,\n"
	"\t\twhere f is the primal function and pos/neg are # of\n"
	"\t\tpositive/negative data (default 0.01)\n"
	"\t-s 11\n"
	"\t\t|f'(w)|_2 <= eps*|f'(w0)|_2 (default 0.0001)\n"
	"-B bias : if bias >= 0, instance x becomes [x; bias]; if < 0, no bias term added (default -1)\n"
	"-R : not regularize the bias; must with -B 1 to have the bias\n"
	"-wi weight: weights adjust the parameter C of different classes\n"
	"-v n: n-fold cross validation mode (train -v's folds, by global row number)\n"
	"-C : find parameters (C for -s 0, 2 and C, p for -s 11), as train -C; with -k, psi and C\n"
	"     as train -C -k (its walks on all rows scored by the -s solver, not its dual)\n"
	"-V 0|1, -W 0|1, -T seconds : with -C -k, as train's (every C; write the best model; budget)\n"
	"-E 0|1 : with -C -k, train's exhaustive search instead: all rows at every psi (default 0)\n"
	"-q : quiet mode (no outputs)\n"
	"-m threads : OpenMP threads per process (default: OpenMP's choice)\n"
	"-F : each process reads its own file training_set_file.RANK (RANK = 0..P-1)\n"
	"     instead of its share of training_set_file\n"
	"-b rows : rows per block, the unit of the fixed summation order (default 8192);\n"
	"     the model is the same for any P and threads at the same -b\n"
	"-k type : map the rows through a kernel first, as train -k: 1|anne, 2|iforest,\n"
	"     3|minmax, 4|acos; writes MODEL and MODEL.ik, the map the same as train's\n"
	"-t T, -g psi, -r seed, -S 0-4, -a w, -d auto|cpu|gpu : the map's options, as train's\n"
	"     (-S 2-4 gather their statistics over every process's rows, in train's order)\n";


static int g_rank;

/* Every process reaches this at the same point; rank 0 speaks for all. */
static void exit_all(int status)
{
	early_read_abandon();
	MPI_Finalize();
	exit(status);
}

static void exit_with_help(void)
{
	if (g_rank == 0)
		fputs(usage_text, stdout);
	exit_all(1);
}

static void print_null(const char *s)
{
	(void)s;
}

static double real_value(const char *option, const char *text)
{
	double v;
	if (cli_real_option(option, text, &v) != 0)
		exit_with_help();
	return v;
}

static int int_value(const char *option, const char *text, int min, int max)
{
	int v;
	if (cli_int_option(option, text, min, max, &v) != 0)
		exit_with_help();
	return v;
}

static void add_class_weight(struct parameter *param, const char *option, const char *text)
{
	long long label;
	if (!cli_parse_integer(option + 2, INT_MIN, INT_MAX, &label)) {
		if (g_rank == 0)
			fprintf(stderr, "ERROR: -wi needs an integer class label i right after -w, not \"%s\"\n",
				option);
		exit_with_help();
	}
	double weight = real_value(option, text);
	int n = param->nr_weight + 1;
	int *labels = realloc(param->weight_label, (size_t)n * sizeof *labels);
	double *weights = labels ? realloc(param->weight, (size_t)n * sizeof *weights) : NULL;
	if (labels)
		param->weight_label = labels;
	if (!labels || !weights) {
		fprintf(stderr, "ERROR: out of memory\n");
		exit_all(1);
	}
	param->weight = weights;
	labels[n - 1] = (int)label;
	weights[n - 1] = weight;
	param->nr_weight = n;
}

static char *default_model_file(const char *input_file)
{
	const char *slash = strrchr(input_file, '/');
	const char *base = slash ? slash + 1 : input_file;
	size_t len = strlen(base);
	char *name = malloc(len + sizeof ".model");
	if (!name) {
		fprintf(stderr, "ERROR: out of memory\n");
		exit_all(1);
	}
	memcpy(name, base, len);
	memcpy(name + len, ".model", sizeof ".model");
	return name;
}

/* Also early_read.h's guide to argv before MPI_Init. */
static bool takes_no_argument(char letter)
{
	return letter == 'q' || letter == 'R' || letter == 'F' || letter == 'C';
}

static void parse_command_line(int argc, char **argv, struct options *o)
{
	memset(o, 0, sizeof *o);
	o->param.solver_type = L2R_L2LOSS_SVC;
	o->param.C = 1;
	o->param.p = 0.1;
	o->param.eps = INFINITY;
	o->param.regularize_bias = 1;
	o->bias = -1;
	o->block_rows = DEFAULT_BLOCK_ROWS;
	o->search_budget = -1;
	ik_options_default(&o->ik);
	int i;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		char letter = argv[i][1];
		if (letter == '\0' || (argv[i][2] != '\0' && letter != 'w'))
			exit_with_help();
		if (takes_no_argument(letter)) {
			if (letter == 'q')
				o->quiet = 1;
			else if (letter == 'R')
				o->param.regularize_bias = 0;
			else if (letter == 'C')
				o->find_parameters = 1;
			else
				o->per_rank = 1;
			continue;
		}
		if (i + 1 >= argc)
			exit_with_help();
		const char *value = argv[++i];
		int ik = ik_options_parse(&o->ik, letter, value);
		if (ik < 0)
			exit_with_help();
		if (ik > 0)
			continue;
		switch (letter) {
		case 's':
			o->param.solver_type = int_value("-s", value, INT_MIN, INT_MAX);
			break;
		case 'c':
			o->param.C = real_value("-c", value);
			o->C_given = 1;
			break;
		case 'p':
			o->param.p = real_value("-p", value);
			o->p_given = 1;
			break;
		case 'e':
			o->param.eps = real_value("-e", value);
			break;
		case 'B':
			o->bias = real_value("-B", value);
			break;
		case 'w':
			add_class_weight(&o->param, argv[i - 1], value);
			break;
		case 'm':
			if (cli_thread_count(value, &o->threads) != 0)
				exit_with_help();
			break;
		case 'b':
			o->block_rows = int_value("-b", value, 1, INT_MAX);
			break;
		case 'V':
			o->search_verbose = int_value("-V", value, 0, 1);
			break;
		case 'W':
			o->search_write = int_value("-W", value, 0, 1);
			break;
		case 'E':
			o->search_exhaustive = int_value("-E", value, 0, 1);
			break;
		case 'T':
			o->search_budget = real_value("-T", value);
			if (!(o->search_budget >= 0)) {
				if (g_rank == 0)
					fprintf(stderr, "ERROR: -T needs seconds >= 0\n");
				exit_with_help();
			}
			break;
		case 'v':
			o->nr_fold = int_value("-v", value, INT_MIN, INT_MAX);
			if (o->nr_fold < 2) {
				if (g_rank == 0)
					fprintf(stderr, "n-fold cross validation: n must >= 2\n");
				exit_with_help();
			}
			break;
		default:
			if (g_rank == 0)
				fprintf(stderr, "unknown option: -%c\n", letter);
			exit_with_help();
		}
	}
	if (i >= argc || argc - i > 2)
		exit_with_help();
	int s = o->param.solver_type;
	if (s != L2R_LR && s != L2R_L2LOSS_SVC && s != L2R_L2LOSS_SVR) {
		if (g_rank == 0)
			fprintf(stderr, "ERROR: train-mpi distributes only the Newton solvers -s 0, 2 and 11;"
				" -s %d is not one of them (use train for it)\n", s);
		exit_all(1);
	}
	if (o->find_parameters && o->nr_fold == 0)
		o->nr_fold = 5;	/* train -C's default */
	if ((o->search_verbose || o->search_write || o->search_budget >= 0 || o->search_exhaustive)
		&& !(o->find_parameters && o->ik.kernel != IK_KERNEL_NONE)) {
		if (g_rank == 0)
			fprintf(stderr, "ERROR: -V, -W, -T and -E go with -C -k\n");
		exit_all(1);
	}
	if (o->search_exhaustive && (o->search_verbose || o->search_write || o->search_budget >= 0)) {
		/* train -E ignores them; here they are refused rather than ignored */
		if (g_rank == 0)
			fprintf(stderr, "ERROR: -V, -W and -T are the search's options, not -E 1's\n");
		exit_all(1);
	}
	if (isinf(o->param.eps))
		o->param.eps = s == L2R_L2LOSS_SVR ? 0.0001 : 0.01;
	o->input_file = argv[i];
	o->model_file = i + 1 < argc ? strdup(argv[i + 1]) : default_model_file(argv[i]);
	if (!o->model_file) {
		fprintf(stderr, "ERROR: out of memory\n");
		exit_all(1);
	}
}

/*
 * Ranks other than 0 parse the command line with stderr on /dev/null: the
 * parsers print why a value is bad, and one process speaks for all.
 */
static void parse_quietly_unless_rank_0(int argc, char **argv, struct options *o)
{
	int saved = -1;
	if (g_rank != 0) {
		int null = open("/dev/null", O_WRONLY);
		saved = null >= 0 ? dup(2) : -1;
		if (saved >= 0)
			dup2(null, 2);
		if (null >= 0)
			close(null);
	}
	parse_command_line(argc, argv, o);
	if (saved >= 0) {
		dup2(saved, 2);
		close(saved);
	}
}

/* The map's options, checked before any data is read. */
static int kernel_options(MPI_Comm comm, const struct options *o, struct lik_map_params *kernel)
{
	*kernel = ik_options_kernel(&o->ik, o->threads);
	struct lik_error err;
	char msg[600] = "";
	int ok = 1;
	if (lik_map_params_check(kernel, &err) != 0) {
		snprintf(msg, sizeof msg, "ERROR: %s", err.message);
		ok = 0;
	} else if (g_rank == 0 && (o->find_parameters ? o->search_write : o->nr_fold == 0)
		&& ik_model_check_outputs(o->model_file, &err) != 0) {
		/* MODEL and MODEL.ik must be files we may replace: refused before any work */
		snprintf(msg, sizeof msg, "ERROR: %s", err.message);
		ok = 0;
	}
	return dist_agree(comm, ok, msg) ? 0 : -1;
}

/* Rank 0 writes the model (with its map: MODEL.ik, then MODEL, each atomically). */
static int save_on_rank_0(const struct model *m, const struct lik_map *map, const char *path)
{
	if (map == NULL) {
		if (save_model(path, m) == 0)
			return 0;
		fprintf(stderr, "can't save model to file %s\n", path);
		return -1;
	}
	struct lik_error err;
	struct lik_model *pair = lik_model_assemble(m, map, &err);
	int rc = pair != NULL ? lik_model_save(path, pair, &err) : -1;
	if (rc != 0)
		lik_error_print(&err);
	lik_model_free(&pair);
	return rc;
}

/*
 * Where a run's wall time goes, for TRAIN_MPI_STATS: the moments main()
 * passed each phase (seconds of CLOCK_MONOTONIC; the same clock on every
 * process of one machine).
 */
enum phase { PHASE_START, PHASE_INIT, PHASE_READ, PHASE_MAP, PHASE_TRAIN, PHASE_END, PHASES };
static double g_phase_at[PHASES];
/* CPU seconds of the main thread in MPI_Init: is it working or waiting? */
static double g_init_cpu;
/* Per process, gathered: the phases' seconds, then these. */
enum { STAT_READER = PHASES - 1, STAT_INIT_CPU, STATS };

static double clock_seconds(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void mark_phase(enum phase p)
{
	g_phase_at[p] = clock_seconds(CLOCK_MONOTONIC);
}

static bool stats_asked(void)
{
	const char *ask = getenv("TRAIN_MPI_STATS");
	return ask != NULL && strcmp(ask, "1") == 0;
}

/*
 * TRAIN_MPI_STATS=1 in the environment: rank 0 prints each process's
 * bytes sent in combining sums, the number of sums, and the seconds of
 * each phase (MPI_Init, reading, the map, training (with -v and -C: the
 * folds' training; with -C -k its whole search, maps too), the end) to
 * stderr, with the main thread's CPU seconds in MPI_Init, and the seconds
 * the share's reader thread took (early_read.h; 0 without one), which
 * ran during MPI_Init and the reading phase's start. After MPI_Finalize,
 * main() adds rank 0's seconds in it.
 */
static void print_stats_if_asked(MPI_Comm comm)
{
	if (!stats_asked())
		return;
	int size;
	MPI_Comm_size(comm, &size);
	mark_phase(PHASE_END);
	long long mine[2] = { dist_bytes_sent(), dist_sums_taken() };
	double took[STATS];
	for (int p = 0; p + 1 < PHASES; p++)
		took[p] = g_phase_at[p + 1] - g_phase_at[p];
	took[STAT_READER] = early_read_seconds();
	took[STAT_INIT_CPU] = g_init_cpu;
	long long *all = g_rank == 0 ? malloc((size_t)size * sizeof mine) : NULL;
	double *times = g_rank == 0 ? malloc((size_t)size * sizeof took) : NULL;
	int ok = g_rank != 0 || (all != NULL && times != NULL);
	if (!dist_agree(comm, ok, "train-mpi: out of memory for TRAIN_MPI_STATS")) {
		free(all);
		free(times);
		return;
	}
	MPI_Gather(mine, 2, MPI_LONG_LONG, all, 2, MPI_LONG_LONG, 0, comm);
	MPI_Gather(took, STATS, MPI_DOUBLE, times, STATS, MPI_DOUBLE, 0, comm);
	for (int r = 0; g_rank == 0 && r < size; r++) {
		const double *t = times + (size_t)r * STATS;
		fprintf(stderr, "train-mpi: rank %d sent %lld bytes in %lld sums\n", r, all[2 * r],
			all[2 * r + 1]);
		fprintf(stderr, "train-mpi: rank %d seconds: MPI_Init %.3f (CPU %.3f), reading %.3f,"
			" map %.3f, training %.3f, saving %.3f; reader thread %.3f\n", r, t[0],
			t[STAT_INIT_CPU], t[1], t[2], t[3], t[4], t[STAT_READER]);
	}
	free(all);
	free(times);
}

int main(int argc, char **argv)
{
	mark_phase(PHASE_START);
	/*
	 * MPI_Init mostly waits: the share is read meanwhile, in a thread that
	 * makes no MPI call (early_read.h). FUNNELED: threads (that one, and
	 * OpenMP's when training), only the main one calling MPI.
	 */
	early_read_start(argc, argv, takes_no_argument);
	int provided;
	g_init_cpu = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
	int init = MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	g_init_cpu = clock_seconds(CLOCK_THREAD_CPUTIME_ID) - g_init_cpu;
	if (init != MPI_SUCCESS) {
		early_read_abandon();
		fprintf(stderr, "train-mpi: MPI_Init failed\n");
		return 1;
	}
	/* MPI_Finalize's fence would otherwise wait 40 ms on Nagle (tcp_nodelay.h) */
	int nodelay_sockets = tcp_nodelay_all();
	MPI_Comm comm = MPI_COMM_WORLD;
	MPI_Comm_rank(comm, &g_rank);
	mark_phase(PHASE_INIT);
	struct options o;
	parse_quietly_unless_rank_0(argc, argv, &o);
	if (o.quiet || g_rank != 0) {
		set_print_string_function(print_null);
		lik_set_print_string_function(print_null);
	}
#ifdef _OPENMP
	if (o.threads > 0)
		omp_set_num_threads(o.threads);
#endif
	int kernel = o.ik.kernel != IK_KERNEL_NONE;
	struct lik_map_params kernel_params;
	if (kernel && kernel_options(comm, &o, &kernel_params) != 0)
		exit_all(1);
	/* the map reads rows without the bias node; the mapped rows get their own */
	struct dist_data d;
	if (dist_data_read(comm, o.input_file, o.per_rank, o.block_rows, kernel ? -1 : o.bias,
			early_read_take(), &d) != 0)
		exit_all(1);
	mark_phase(PHASE_READ);
	struct problem checked = { .l = (int)(d.total_rows < INT_MAX ? d.total_rows : INT_MAX),
		.n = d.n + (kernel && o.bias >= 0 ? 1 : 0), .bias = o.bias };
	const char *error = check_parameter(&checked, &o.param);
	if (error) {
		if (g_rank == 0)
			fprintf(stderr, "ERROR: %s\n", error);
		exit_all(1);
	}
	int *block_begin = malloc((size_t)(d.nr_blocks + 1) * sizeof *block_begin);
	if (!dist_agree(comm, block_begin != NULL, "ERROR: out of memory"))
		exit_all(1);
	for (int k = 0; k <= d.nr_blocks; k++)
		block_begin[k] = dist_block_begin(&d, k);
	struct row_set X = rows_sparse(d.l, d.n, d.x);
	struct dist_rows rows = { comm, &X, d.nr_blocks, block_begin, d.first_block_of_rank };
	struct job j = { comm, &d, &rows, &o.param };
	struct classes c;
	if (classes_of(&j, &o, &c) != 0)
		exit_all(1);
	const struct classes *classes = o.param.solver_type == L2R_L2LOSS_SVR ? NULL : &c;
	/* -C -k: the search chooses psi and C (and with -W 1 the model is trained at them) */
	int ok = 1, writes = !o.find_parameters && o.nr_fold == 0;
	struct lik_map *map = NULL;
	void *cells = NULL;
	if (kernel && o.find_parameters && o.search_exhaustive) {
		mark_phase(PHASE_MAP);	/* the search's maps count as its training */
		ok = ksearch_exhaustive(&j, &o, classes, &kernel_params) == 0;
		writes = 0;
	} else if (kernel && o.find_parameters) {
		mark_phase(PHASE_MAP);	/* the search's maps count as its training */
		int psi;
		double C, p;
		ok = ksearch_run(&j, &o, classes, &kernel_params, o.search_write, &psi, &C, &p, &map) == 0;
		writes = ok && o.search_write;
		if (writes) {
			o.param.C = C;
			if (classes == NULL)
				o.param.p = p;
		}
	} else if (kernel) {
		map = dist_map_build(comm, &d, &kernel_params, o.input_file, o.per_rank);
		if (map == NULL)
			exit_all(1);
	}
	if (map != NULL && (writes || !o.find_parameters)) {
		/* each process maps its own rows, on its threads (and GPU, -d) */
		struct lik_error err;
		cells = lik_map_row_set(map->map, d.x, (size_t)d.l, o.bias, kernel_params.device,
			kernel_params.threads, &X, &err);
		char msg[600] = "";
		if (cells == NULL)
			snprintf(msg, sizeof msg, "ERROR: %s", err.message);
		if (!dist_agree(comm, cells != NULL, msg))
			exit_all(1);
	}
	if (g_phase_at[PHASE_MAP] == 0)
		mark_phase(PHASE_MAP);
	struct model *m = NULL;
	if (o.find_parameters && !kernel) {
		ok = find_parameters_dist(&j, &o, classes) == 0;
	} else if (o.nr_fold > 0 && !o.find_parameters) {
		ok = cross_validate(&j, &o, classes, o.nr_fold) == 0;
	} else if (ok && writes) {
		m = train_distributed(&j, &o, classes, NULL, NULL, NULL);
		ok = m != NULL;
		mark_phase(PHASE_TRAIN);
		if (ok && g_rank == 0 && save_on_rank_0(m, map, o.model_file) != 0)
			ok = 0;
		if (ok && g_rank == 0 && o.find_parameters)
			printf("written: %s\n", o.model_file);
	}
	if (g_phase_at[PHASE_TRAIN] == 0)
		mark_phase(PHASE_TRAIN);	/* -v and -C: their folds' training */
	classes_free(&c);
	print_stats_if_asked(comm);
	/* every process exits with rank 0's verdict on the model file */
	MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
	if (m)
		free_and_destroy_model(&m);
	free(cells);
	lik_map_free(&map);
	free(block_begin);
	dist_data_free(&d);
	destroy_param(&o.param);
	free(o.model_file);
	double finalize = clock_seconds(CLOCK_MONOTONIC);
	MPI_Finalize();
	if (g_rank == 0 && stats_asked())
		fprintf(stderr, "train-mpi: rank 0 seconds: MPI_Finalize %.3f (TCP_NODELAY set on %d sockets)\n",
			clock_seconds(CLOCK_MONOTONIC) - finalize, nodelay_sockets);
	return ok ? 0 : 1;
}
