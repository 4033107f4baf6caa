/*
 * unit.h - what every C unit test program shares.
 *
 * Contract: each tests/unit/test_NAME.c builds one Suite and ends with
 * UNIT_MAIN(NAME_suite); `make unit` builds each into its own program and
 * runs them all. run_suite() returns the process exit status: 0 only
 * when every check ran and passed.
 */
#ifndef TESTS_UNIT_H
#define TESTS_UNIT_H

#include <check.h>
#include <stdlib.h>

static inline int run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#define UNIT_MAIN(make_suite) \
	int main(void) { return run_suite(make_suite()); }

/* Directory of the shared datasets (../shared/data seen from the repo root). */
static inline const char *shared_data_dir(void)
{
	const char *d = getenv("LIBLINEAR_IK_DATA");
	return d ? d : "../shared/data";
}

#endif /* TESTS_UNIT_H */
