/*
 * early_read.c - the share read in a thread during MPI_Init (see
 * early_read.h). One reader thread per process, at most; its result is
 * handed over once, by early_read_take or early_read_abandon.
 */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "cli_number.h"
#include "early_read.h"

/* What the thread reads, and what it read: owned by this file until handed over. */
static struct {
	bool running;
	pthread_t thread;
	const char *path;	/* argv's training file (argv outlives the thread) */
	bool per_rank;
	int rank, size;
	atomic_int stop;
	struct share share;
	double seconds;		/* the thread's wall time, once joined */
} g_early;

/* An environment variable holding an int in [min, max]. */
static bool env_int(const char *name, int min, int max, int *value)
{
	const char *text = getenv(name);
	long long v;
	if (text == NULL || !cli_parse_integer(text, min, max, &v))
		return false;
	*value = (int)v;
	return true;
}

/* The rank and size a launcher announces (Open MPI, then MPICH/Hydra's PMI). */
static bool launcher_rank(int *rank, int *size)
{
	static const char *const names[][2] = {
		{ "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE" },
		{ "PMI_RANK", "PMI_SIZE" },
	};
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
		if (env_int(names[k][0], 0, INT_MAX - 1, rank) && env_int(names[k][1], 1, INT_MAX, size)
			&& *rank < *size)
			return true;
	return false;
}

/*
 * The training file and -F in argv, found as train_mpi.c's parser walks
 * it: options first ("-x" or "-wN"), each with one value unless
 * takes_no_value; then the file. false when argv ends first.
 */
static bool training_file(int argc, char **argv, bool (*takes_no_value)(char), const char **path,
	bool *per_rank)
{
	*per_rank = false;
	int i;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		char letter = argv[i][1];
		if (letter == 'F')
			*per_rank = true;
		if (!takes_no_value(letter))
			i++;
	}
	if (i >= argc)
		return false;
	*path = argv[i];
	return true;
}

static void *read_share(void *unused)
{
	(void)unused;
	share_read(&g_early.share, g_early.path, g_early.per_rank, g_early.rank, g_early.size,
		&g_early.stop);
	return NULL;
}

void early_read_start(int argc, char **argv, bool (*takes_no_value)(char letter))
{
	const char *off = getenv("TRAIN_MPI_EARLY_READ");
	if ((off != NULL && strcmp(off, "0") == 0) || !launcher_rank(&g_early.rank, &g_early.size)
		|| !training_file(argc, argv, takes_no_value, &g_early.path, &g_early.per_rank))
		return;
	atomic_init(&g_early.stop, 0);
	g_early.running = pthread_create(&g_early.thread, NULL, read_share, NULL) == 0;
}

struct share *early_read_take(void)
{
	if (!g_early.running)
		return NULL;
	pthread_join(g_early.thread, NULL);
	g_early.running = false;
	g_early.seconds = g_early.share.seconds;
	return &g_early.share;
}

double early_read_seconds(void)
{
	return g_early.seconds;
}

void early_read_abandon(void)
{
	if (!g_early.running)
		return;
	atomic_store(&g_early.stop, 1);
	share_free(early_read_take());
}
