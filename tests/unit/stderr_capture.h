/* stderr_capture.h - what a unit test's code under test prints on stderr,
 * as a string: capture_start(), run, capture_end() (free the result).
 * Header-only: each test is a program of its own. Include after cmocka.h.
 */
#ifndef FK_TEST_STDERR_CAPTURE_H
#define FK_TEST_STDERR_CAPTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct capture {
	int saved;
	FILE *tmp;
};

static void capture_start(struct capture *c)
{
	fflush(stderr);
	c->tmp = tmpfile();
	assert_non_null(c->tmp);
	c->saved = dup(STDERR_FILENO);
	assert_true(c->saved >= 0);
	assert_true(dup2(fileno(c->tmp), STDERR_FILENO) >= 0);
}

static char *capture_end(struct capture *c)
{
	fflush(stderr);
	assert_true(dup2(c->saved, STDERR_FILENO) >= 0);
	close(c->saved);
	long n = ftell(c->tmp);
	assert_true(n >= 0);
	rewind(c->tmp);
	char *s = calloc((size_t)n + 1, 1);
	assert_non_null(s);
	assert_int_equal(fread(s, 1, (size_t)n, c->tmp), (size_t)n);
	fclose(c->tmp);
	return s;
}

#endif
