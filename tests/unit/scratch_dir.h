/*
 * scratch_dir.h - a fresh folder under /tmp for a test that makes files.
 *
 * Contract: scratch_dir_make(name) creates /tmp/NAME.XXXXXX (the test
 * fails if it cannot); scratch_path("x") is "that folder/x" (four
 * rotating buffers, so up to four paths can be used at once);
 * scratch_dir_remove() deletes the folder with all it holds.
 */
#ifndef TESTS_SCRATCH_DIR_H
#define TESTS_SCRATCH_DIR_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char scratch_dir[96];

static inline void scratch_dir_make(const char *name)
{
	snprintf(scratch_dir, sizeof scratch_dir, "/tmp/%s.XXXXXX", name);
	ck_assert_ptr_nonnull(mkdtemp(scratch_dir));
}

static inline const char *scratch_path(const char *name)
{
	static char paths[4][160];
	static int next;
	char *path = paths[next++ % 4];
	snprintf(path, sizeof paths[0], "%s/%s", scratch_dir, name);
	return path;
}

static inline void scratch_dir_remove(void)
{
	char command[128];
	snprintf(command, sizeof command, "rm -rf '%s'", scratch_dir);
	ck_assert_int_eq(system(command), 0);
}

#endif /* TESTS_SCRATCH_DIR_H */
