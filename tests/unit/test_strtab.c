/* test_strtab.c - interned names: a name is found again by its bytes, and
 * names that share a hash are told apart by every byte of them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/core/strtab.h"

static void test_found_again(void **state)
{
	(void)state;
	struct fk_strtab t = { 0 };
	static const char *const names[] = { "", "a", "forward", "torch/nn/modules/linear.py(125):forward" };
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(fk_strtab_intern(&t, names[i], strlen(names[i]), NULL), i);
	for (uint32_t i = 0; i < 4; i++) {
		bool added = true;
		assert_int_equal(fk_strtab_intern(&t, names[i], strlen(names[i]), &added), i);
		assert_false(added);
		assert_int_equal(fk_strtab_find(&t, names[i], strlen(names[i])), i);
		assert_int_equal(fk_strtab_intern_hashed(&t, names[i], strlen(names[i]),
							 fk_strtab_hash(names[i], strlen(names[i])), NULL),
				 i);
	}
	assert_int_equal(fk_strtab_find(&t, "forwarD", 7), FK_STRTAB_NONE);
	fk_strtab_free(&t);
}

/* Names of every length up to 40 under one hash, each also with one byte
 * changed at every place: all are different names. */
static void test_same_hash_told_apart(void **state)
{
	(void)state;
	struct fk_strtab t = { 0 };
	char names[41 * 41][41];
	size_t lens[41 * 41];
	uint32_t n = 0;
	for (size_t len = 0; len <= 40; len++) {
		for (size_t k = 0; k < len; k++)
			names[n][k] = (char)('a' + k % 26);
		lens[n++] = len;
		for (size_t pos = 0; pos < len; pos++) {
			memcpy(names[n], names[n - 1 - pos], len);
			names[n][pos] = '#';
			lens[n++] = len;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		bool added = false;
		assert_int_equal(fk_strtab_intern_hashed(&t, names[i], lens[i], 42, &added), i);
		assert_true(added);
	}
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(fk_strtab_intern_hashed(&t, names[i], lens[i], 42, NULL), i);
	fk_strtab_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_found_again),
		cmocka_unit_test(test_same_hash_told_apart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
