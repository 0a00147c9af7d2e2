/* scratch_dir.h - a unit test's scratch directory: scratch_make() in the
 * group setup, path_of() for files in it, write_file(), scratch_remove() in
 * the teardown. Header-only: each test is a program of its own. Include
 * after cmocka.h.
 */
#ifndef FK_TEST_SCRATCH_DIR_H
#define FK_TEST_SCRATCH_DIR_H

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[256];

/* $TMPDIR/<prefix>_XXXXXX, created; also reopens a closed standard input
 * (pipe() would take fd 0). 0 or -1, as cmocka's setups return. */
static int scratch_make(const char *prefix)
{
	if (fcntl(STDIN_FILENO, F_GETFD) < 0 && open("/dev/null", O_RDONLY) != STDIN_FILENO)
		return -1;
	const char *base = getenv("TMPDIR");
	if (!base || !*base || strlen(base) > sizeof tmpdir - 64)
		base = "/tmp";
	snprintf(tmpdir, sizeof tmpdir, "%s/%s_XXXXXX", base, prefix);
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int scratch_rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	return remove(p);
}

static int scratch_remove(void)
{
	return nftw(tmpdir, scratch_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* A path in the scratch directory (the last 4 stay valid). */
static const char *path_of(const char *name)
{
	static char buf[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
	return buf[k];
}

__attribute__((unused)) static void write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

#endif
