/* test_symbolize.c - analysis/symbolize.h on this very process.
 *
 * The module list comes from dl_iterate_phdr, recorded the way the capture
 * shim records it (main program path from /proc/self/exe, PT_LOAD range,
 * load bias, GNU build-id read from the PT_NOTE in memory). Covers names of
 * static functions with file:line, return addresses (ip - 1), inlined frames
 * outermost first, libc, the vdso, modules whose file is missing, not ELF or
 * of another build (one warning, "+0x" frames), addresses in no module, the
 * cache (same texts, same pointers) and odd module lists; C++ names
 * demangled (functions of this C file given mangled symbol names) and the
 * demangler (analysis/sym/demangle.h) on its own.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include <elf.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <unistd.h>

#include "analysis/sym/demangle.h"
#include "analysis/sym/symbolize.h"

/* ---- what the code under test looks at ----------------------------------- */

static void *volatile g_ret;	 /* a return address inside sym_target */
static volatile int g_call_line; /* the line of that call */
static void *volatile g_inl_ret; /* a return address inside sym_inlined, inlined into sym_outer */
static volatile int g_inl_line, g_inl_call_line;

static __attribute__((noinline)) void *return_address(void)
{
	__asm__ volatile("");
	return __builtin_return_address(0);
}

static const int target_line = __LINE__ + 1;
static __attribute__((noinline)) int sym_target(int x)
{
	g_call_line = __LINE__; g_ret = return_address();
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

static inline __attribute__((always_inline)) void sym_inlined(void)
{
	g_inl_line = __LINE__; g_inl_ret = return_address();
}

/* Two levels: sym_deep inlined into sym_middle, inlined into sym_top. */
static void *volatile g_deep_ret;
static volatile int g_deep_line, g_middle_line, g_top_line;

static inline __attribute__((always_inline)) void sym_deep(void)
{
	g_deep_line = __LINE__; g_deep_ret = return_address();
}

static inline __attribute__((always_inline)) void sym_middle(void)
{
	g_middle_line = __LINE__; sym_deep();
}

static __attribute__((noinline)) void sym_top(void)
{
	g_top_line = __LINE__; sym_middle();
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void sym_outer(void)
{
	g_inl_call_line = __LINE__; sym_inlined();
	__asm__ volatile("" ::: "memory");
}

static int (*volatile target_ptr)(int) = sym_target;

/* C functions under mangled C++ names: the symbol table holds the mangled
 * name, and DWARF gives it as the linkage name (a global function with an
 * asm label), as it would for Box<std::vector<int>>::make(unsigned long) and
 * Box::helper(int) compiled from C++. */
static void *volatile g_cxx_ret;   /* a return address inside cxx_helper, inlined into cxx_make */
static volatile int g_cxx_line, g_cxx_call_line;

void cxx_helper(void) __asm__("_ZN3Box6helperEi");
inline __attribute__((always_inline)) void cxx_helper(void)
{
	g_cxx_line = __LINE__; g_cxx_ret = return_address();
}

void cxx_make(void) __asm__("_ZN3BoxISt6vectorIiSaIiEEE4makeEm");
__attribute__((noinline)) void cxx_make(void)
{
	g_cxx_call_line = __LINE__; cxx_helper();
	__asm__ volatile("" ::: "memory");
}

/* A name that looks mangled but is not: kept as it is. */
int not_mangled(int x) __asm__("_Z_not_a_mangled_name");
__attribute__((noinline)) int not_mangled(int x)
{
	__asm__ volatile("");
	return x + 2;
}

static void (*volatile cxx_make_ptr)(void) = cxx_make;
static int (*volatile not_mangled_ptr)(int) = not_mangled;

/* ---- the recorder (what the capture shim does) ---------------------------- */

#define MAX_MODS 256

static struct fk_sym_module g_mods[MAX_MODS];
static char g_paths[MAX_MODS][PATH_MAX];
static uint8_t g_ids[MAX_MODS][64];
static size_t g_nmods;

static void record_build_id(const struct dl_phdr_info *info, const ElfW(Phdr) *ph, size_t i)
{
	const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);
	size_t left = ph->p_memsz, align = ph->p_align == 8 ? 8 : 4;
	while (left >= sizeof(ElfW(Nhdr))) {
		const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
		size_t namesz = (nh->n_namesz + align - 1) & ~(align - 1);
		size_t descsz = (nh->n_descsz + align - 1) & ~(align - 1);
		size_t total = sizeof *nh + namesz + descsz;
		if (total > left)
			return;
		if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
		    memcmp(p + sizeof *nh, "GNU", 4) == 0 && nh->n_descsz <= sizeof g_ids[i]) {
			memcpy(g_ids[i], p + sizeof *nh + namesz, nh->n_descsz);
			g_mods[i].build_id = g_ids[i];
			g_mods[i].build_id_len = nh->n_descsz;
			return;
		}
		p += total;
		left -= total;
	}
}

static int record_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	if (g_nmods == MAX_MODS)
		return 1;
	size_t i = g_nmods;
	struct fk_sym_module *m = &g_mods[i];
	if (!info->dlpi_name || !*info->dlpi_name) {
		ssize_t n = readlink("/proc/self/exe", g_paths[i], sizeof g_paths[i] - 1);
		g_paths[i][n > 0 ? n : 0] = '\0';
	} else {
		snprintf(g_paths[i], sizeof g_paths[i], "%s", info->dlpi_name);
	}
	*m = (struct fk_sym_module){ .path = g_paths[i], .start = UINT64_MAX, .bias = info->dlpi_addr };
	for (size_t k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		if (ph->p_type == PT_LOAD) {
			uint64_t a = info->dlpi_addr + ph->p_vaddr;
			if (a < m->start)
				m->start = a;
			if (a + ph->p_memsz > m->end)
				m->end = a + ph->p_memsz;
		} else if (ph->p_type == PT_NOTE && !m->build_id) {
			record_build_id(info, ph, i);
		}
	}
	if (m->start < m->end)
		g_nmods++;
	return 0;
}

static int record_modules(void **state)
{
	g_nmods = 0;
	dl_iterate_phdr(record_one, NULL);
	return g_nmods ? 0 : -1;
}

static const struct fk_sym_module *module_of(uint64_t addr)
{
	for (size_t i = 0; i < g_nmods; i++)
		if (g_mods[i].start <= addr && addr < g_mods[i].end)
			return &g_mods[i];
	return NULL;
}

static const struct fk_sym_module *vdso_module(void)
{
	for (size_t i = 0; i < g_nmods; i++)
		if (strncmp(g_mods[i].path, "linux-vdso", 10) == 0)
			return &g_mods[i];
	return NULL;
}

/* ---- helpers ------------------------------------------------------------- */

struct frames {
	size_t n;
	char text[16][512];
	const char *ptr[16];
};

static void collect(void *ctx, const char *text, size_t len)
{
	struct frames *f = ctx;
	assert_int_equal(text[len], '\0');
	assert_int_equal(strlen(text), len);
	if (f->n < 16) {
		snprintf(f->text[f->n], sizeof f->text[f->n], "%.*s", (int)len, text);
		f->ptr[f->n] = text;
	}
	f->n++;
}

static struct frames sym(struct fk_symbolizer *s, const void *addr, bool is_return)
{
	struct frames f = { 0 };
	size_t n = fk_sym_frames(s, (uint64_t)(uintptr_t)addr, is_return, collect, &f);
	assert_true(n >= 1);
	assert_int_equal(n, f.n);
	return f;
}

struct warnings {
	int n;
	char last[1024];
};

static void count_warning(void *ctx, const char *message)
{
	struct warnings *w = ctx;
	w->n++;
	snprintf(w->last, sizeof w->last, "%s", message);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* "NAME (test_symbolize.c:LINE)" with LINE in [lo, hi]. */
static void assert_at(const char *text, const char *name, int lo, int hi)
{
	char want[256];
	int line = 0, used = 0;
	snprintf(want, sizeof want, "%s (test_symbolize.c:%%d)%%n", name);
	if (sscanf(text, want, &line, &used) != 1 || text[used] != '\0' || line < lo || line > hi) {
		fprintf(stderr, "got \"%s\", want %s (test_symbolize.c:%d..%d)\n", text, name, lo, hi);
		fail();
	}
}

/* ---- tests --------------------------------------------------------------- */

static void test_static_function(void **state)
{
	(void)target_ptr(1);
	assert_non_null(module_of((uint64_t)(uintptr_t)g_ret));
	struct fk_symbolizer *s = fk_sym_open(g_mods, g_nmods, 0, NULL, NULL);
	assert_non_null(s);
	struct frames f = sym(s, (const void *)target_ptr, false);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.text[0], "sym_target");
	f = sym(s, g_ret, true);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.text[0], "sym_target");
	fk_sym_close(s);

	s = fk_sym_open(g_mods, g_nmods, FK_SYM_LINES, NULL, NULL);
	assert_non_null(s);
	f = sym(s, (const void *)target_ptr, false);
	assert_int_equal(f.n, 1);
	assert_at(f.text[0], "sym_target", target_line, target_line + 2);
	/* ip - 1 lands in the call: exactly its line. */
	f = sym(s, g_ret, true);
	assert_int_equal(f.n, 1);
	assert_at(f.text[0], "sym_target", g_call_line, g_call_line);
	fk_sym_close(s);
}

static void test_inlined(void **state)
{
	sym_outer();
	struct fk_symbolizer *s = fk_sym_open(g_mods, g_nmods, FK_SYM_INLINE | FK_SYM_LINES, NULL, NULL);
	assert_non_null(s);
	struct frames f = sym(s, g_inl_ret, true);
	/* always_inline and -g: DWARF has the inlined_subroutine at -O1 and -O2,
	 * with gcc and clang. Outermost first. */
	assert_int_equal(f.n, 2);
	assert_at(f.text[0], "sym_outer", g_inl_call_line, g_inl_call_line);
	char inl[64];
	snprintf(inl, sizeof inl, "sym_inlined (test_symbolize.c:%d)" FK_SYM_INLINE_MARK, g_inl_line);
	assert_string_equal(f.text[1], inl);
	fk_sym_close(s);

	s = fk_sym_open(g_mods, g_nmods, FK_SYM_INLINE, NULL, NULL);
	f = sym(s, g_inl_ret, true);
	assert_int_equal(f.n, 2);
	assert_string_equal(f.text[0], "sym_outer");
	assert_string_equal(f.text[1], "sym_inlined" FK_SYM_INLINE_MARK);
	fk_sym_close(s);

	/* Without FK_SYM_INLINE: the containing function only, and its line is
	 * the call of what was inlined, not a line inside it. */
	s = fk_sym_open(g_mods, g_nmods, FK_SYM_LINES, NULL, NULL);
	f = sym(s, g_inl_ret, true);
	assert_int_equal(f.n, 1);
	assert_at(f.text[0], "sym_outer", g_inl_call_line, g_inl_call_line);
	fk_sym_close(s);

	s = fk_sym_open(g_mods, g_nmods, 0, NULL, NULL);
	f = sym(s, g_inl_ret, true);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.text[0], "sym_outer");
	fk_sym_close(s);
}

static void test_inlined_twice(void **state)
{
	sym_top();
	struct fk_symbolizer *s = fk_sym_open(g_mods, g_nmods, FK_SYM_INLINE | FK_SYM_LINES, NULL, NULL);
	assert_non_null(s);
	/* every level, outermost first, each line the call into the next */
	struct frames f = sym(s, g_deep_ret, true);
	assert_int_equal(f.n, 3);
	assert_at(f.text[0], "sym_top", g_top_line, g_top_line);
	char want[64];
	snprintf(want, sizeof want, "sym_middle (test_symbolize.c:%d)" FK_SYM_INLINE_MARK, g_middle_line);
	assert_string_equal(f.text[1], want);
	snprintf(want, sizeof want, "sym_deep (test_symbolize.c:%d)" FK_SYM_INLINE_MARK, g_deep_line);
	assert_string_equal(f.text[2], want);
	fk_sym_close(s);
}

static void *volatile g_libc_ret;

static int compare_ints(const void *a, const void *b)
{
	g_libc_ret = __builtin_return_address(0);
	return *(const int *)a - *(const int *)b;
}

static void test_libc(void **state)
{
	void (*volatile qs)(void *, size_t, size_t, int (*)(const void *, const void *)) = qsort;
	int v[] = { 3, 1, 2 };
	qs(v, 3, sizeof v[0], compare_ints);
	assert_int_equal(v[0], 1);
	for (unsigned flags = 0; flags < 4; flags++) {
		struct warnings w = { 0 };
		struct fk_symbolizer *s = fk_sym_open(g_mods, g_nmods, flags, count_warning, &w);
		assert_non_null(s);
		struct frames f = sym(s, (const void *)qs, false);
		/* ASan's interceptor is named qsort too (or __interceptor_qsort). */
		assert_non_null(strstr(f.text[0], "qsort"));
		f = sym(s, g_libc_ret, true);
		assert_string_not_equal(f.text[0], "[unknown]");
		assert_int_equal(w.n, 0);
		fk_sym_close(s);
	}
}

static void test_wrong_files(void **state)
{
	(void)target_ptr(1);
	uint64_t fn = (uint64_t)(uintptr_t)target_ptr, ret = (uint64_t)(uintptr_t)g_ret;
	const struct fk_sym_module *exe = module_of(fn);
	assert_non_null(exe);
	assert_true(exe->build_id_len > 0);
	char want_fn[300], want_ret[300];

	/* Another build of the executable. */
	struct fk_sym_module mods[MAX_MODS];
	memcpy(mods, g_mods, g_nmods * sizeof *mods);
	struct fk_sym_module *m = &mods[exe - g_mods];
	uint8_t id[64];
	memcpy(id, exe->build_id, exe->build_id_len);
	id[exe->build_id_len - 1] ^= 0x5a;
	m->build_id = id;
	struct warnings w = { 0 };
	struct fk_symbolizer *s =
		fk_sym_open(mods, g_nmods, FK_SYM_INLINE | FK_SYM_LINES, count_warning, &w);
	assert_int_equal(w.n, 0); /* warned on first use only */
	snprintf(want_fn, sizeof want_fn, "%s+0x%" PRIx64, base_name(exe->path), fn - exe->bias);
	snprintf(want_ret, sizeof want_ret, "%s+0x%" PRIx64, base_name(exe->path), ret - exe->bias);
	struct frames f = sym(s, (const void *)target_ptr, false);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.text[0], want_fn);
	assert_int_equal(w.n, 1);
	assert_non_null(strstr(w.last, "build-id differs from the capture's"));
	assert_non_null(strstr(w.last, exe->path));
	/* The recorded address, not ip - 1. */
	f = sym(s, g_ret, true);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.text[0], want_ret);
	f = sym(s, g_inl_ret, true);
	assert_int_equal(f.n, 1);
	assert_non_null(strstr(f.text[0], "+0x"));
	assert_int_equal(w.n, 1);
	/* Other modules still named (getpid: libc's, as no sanitizer
	 * intercepts it; clang links ASan's interceptors into the executable). */
	pid_t (*volatile gp)(void) = getpid;
	assert_ptr_not_equal(module_of((uint64_t)(uintptr_t)gp), exe);
	f = sym(s, (const void *)gp, false);
	assert_non_null(strstr(f.text[0], "getpid")); /* "__getpid (syscall-template.S:91)" */
	assert_null(strstr(f.text[0], "+0x"));
	assert_int_equal(w.n, 1);
	fk_sym_close(s);

	/* A file that is gone, a directory, a file that is not ELF. */
	char notelf[] = "/tmp/flamekit-symtest-XXXXXX";
	int fd = mkstemp(notelf);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not an ELF file\n", 16), 16);
	close(fd);
	const char *paths[] = { "/nonexistent-flamekit/libgone.so.1", "/tmp", notelf };
	const char *whats[] = { "not found", "not a regular file", "cannot be read" };
	for (size_t k = 0; k < 3; k++) {
		memcpy(mods, g_mods, g_nmods * sizeof *mods);
		m->path = paths[k];
		memset(&w, 0, sizeof w);
		s = fk_sym_open(mods, g_nmods, FK_SYM_INLINE | FK_SYM_LINES, count_warning, &w);
		snprintf(want_fn, sizeof want_fn, "%s+0x%" PRIx64, base_name(paths[k]), fn - exe->bias);
		for (int rep = 0; rep < 2; rep++) {
			f = sym(s, (const void *)target_ptr, false);
			assert_int_equal(f.n, 1);
			assert_string_equal(f.text[0], want_fn);
			f = sym(s, g_ret, true);
			assert_non_null(strstr(f.text[0], "+0x"));
		}
		assert_int_equal(w.n, 1);
		assert_non_null(strstr(w.last, whats[k]));
		assert_non_null(strstr(w.last, paths[k]));
		fk_sym_close(s);
		/* No warning callback: same frames. */
		s = fk_sym_open(mods, g_nmods, 0, NULL, NULL);
		f = sym(s, (const void *)target_ptr, false);
		assert_string_equal(f.text[0], want_fn);
		fk_sym_close(s);
	}
	unlink(notelf);

	/* No recorded build-id: the file is used unchecked. */
	memcpy(mods, g_mods, g_nmods * sizeof *mods);
	m->build_id = NULL;
	m->build_id_len = 0;
	memset(&w, 0, sizeof w);
	s = fk_sym_open(mods, g_nmods, 0, count_warning, &w);
	f = sym(s, (const void *)target_ptr, false);
	assert_string_equal(f.text[0], "sym_target");
	assert_int_equal(w.n, 0);
	fk_sym_close(s);
}

#define BOX_MAKE "Box<std::vector<int, std::allocator<int> > >::make"

static void test_demangled(void **state)
{
	cxx_make_ptr();
	(void)not_mangled_ptr(1);
	struct fk_symbolizer *s = fk_sym_open(g_mods, g_nmods, 0, NULL, NULL);
	assert_non_null(s);
	/* The symbol's name, demangled without its argument list. */
	struct frames f = sym(s, (const void *)cxx_make_ptr, false);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.text[0], BOX_MAKE);
	f = sym(s, g_cxx_ret, true);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.text[0], BOX_MAKE);
	f = sym(s, (const void *)not_mangled_ptr, false);
	assert_string_equal(f.text[0], "_Z_not_a_mangled_name");
	fk_sym_close(s);

	/* Inlined frames: DWARF's linkage name, demangled the same way. */
	s = fk_sym_open(g_mods, g_nmods, FK_SYM_INLINE | FK_SYM_LINES, NULL, NULL);
	assert_non_null(s);
	f = sym(s, g_cxx_ret, true);
	assert_int_equal(f.n, 2);
	assert_at(f.text[0], BOX_MAKE, g_cxx_call_line, g_cxx_call_line);
	char want[128];
	snprintf(want, sizeof want, "Box::helper (test_symbolize.c:%d)" FK_SYM_INLINE_MARK, g_cxx_line);
	assert_string_equal(f.text[1], want);
	fk_sym_close(s);
}

static void test_demangle_forms(void **state)
{
	static const struct {
		const char *in;
		enum fk_demangle_form form;
		const char *out; /* NULL: not demangled */
	} cases[] = {
		{ "_ZN3BoxISt6vectorIiSaIiEEE4makeEm", FK_DEMANGLE_FULL,
		  "Box<std::vector<int, std::allocator<int> > >::make(unsigned long)" },
		{ "_ZN3BoxISt6vectorIiSaIiEEE4makeEm", FK_DEMANGLE_NAME, BOX_MAKE },
		{ "_ZNK3Box3getEv", FK_DEMANGLE_FULL, "Box::get() const" },
		{ "_ZNK3Box3getEv", FK_DEMANGLE_NAME, "Box::get" },
		{ "_Z3fooIiEvT_", FK_DEMANGLE_NAME, "foo<int>" },
		{ "_ZZ4mainENKUliE_clEi", FK_DEMANGLE_NAME, "main::{lambda(int)#1}::operator()" },
		{ "_ZN3Box4makeEm.cold", FK_DEMANGLE_FULL, "Box::make(unsigned long) [clone .cold]" },
		{ "_ZN3Box4makeEm.cold", FK_DEMANGLE_NAME, "Box::make" },
		/* bfd_demangle's prefixes and version suffixes, set aside */
		{ "._ZN2ns6mangleEi", FK_DEMANGLE_FULL, ".ns::mangle(int)" },
		{ "_ZNSt6thread6_StateD2Ev@@GLIBCXX_3.4.22", FK_DEMANGLE_NAME,
		  "std::thread::_State::~_State@@GLIBCXX_3.4.22" },
		/* not mangled, or not demangled: the caller keeps the name */
		{ "main", FK_DEMANGLE_FULL, NULL },
		{ "__libc_start_main@@GLIBC_2.34", FK_DEMANGLE_NAME, NULL },
		{ "_Z_not_a_mangled_name", FK_DEMANGLE_NAME, NULL },
		{ "_Z", FK_DEMANGLE_FULL, NULL },
		{ "", FK_DEMANGLE_FULL, NULL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *got = fk_demangle(cases[i].in, strlen(cases[i].in), cases[i].form);
		if (cases[i].out) {
			assert_non_null(got);
			assert_string_equal(got, cases[i].out);
		} else {
			assert_null(got);
		}
		free(got);
	}
	/* The length bounds the name: a version cut off before the call. */
	const char *v = "_ZN2ns6mangleEi@@V1";
	char *got = fk_demangle(v, strlen(v) - 4, FK_DEMANGLE_FULL);
	assert_non_null(got);
	assert_string_equal(got, "ns::mangle(int)");
	free(got);
	assert_null(fk_demangle(NULL, 0, FK_DEMANGLE_FULL));
}

static void test_unknown(void **state)
{
	struct fk_symbolizer *s = fk_sym_open(g_mods, g_nmods, FK_SYM_INLINE | FK_SYM_LINES, NULL, NULL);
	const uint64_t ips[] = { 0, 1, 0x10, UINT64_MAX };
	for (size_t i = 0; i < 4; i++)
		for (int ret = 0; ret < 2; ret++) {
			struct frames f = sym(s, (const void *)(uintptr_t)ips[i], ret);
			assert_int_equal(f.n, 1);
			assert_string_equal(f.text[0], "[unknown]");
		}
	fk_sym_close(s);

	/* No modules at all. */
	s = fk_sym_open(NULL, 0, FK_SYM_INLINE | FK_SYM_LINES, NULL, NULL);
	assert_non_null(s);
	struct frames f = sym(s, (const void *)target_ptr, false);
	assert_string_equal(f.text[0], "[unknown]");
	assert_int_equal(fk_sym_frames(s, 42, true, NULL, NULL), 1);
	fk_sym_close(s);
	fk_sym_close(NULL);
}

static void test_cache(void **state)
{
	sym_outer();
	const struct fk_sym_module *exe = module_of((uint64_t)(uintptr_t)target_ptr);
	struct fk_symbolizer *s = fk_sym_open(g_mods, g_nmods, FK_SYM_INLINE | FK_SYM_LINES, NULL, NULL);
	struct frames a = sym(s, g_inl_ret, true), b = sym(s, g_inl_ret, true);
	assert_int_equal(a.n, b.n);
	for (size_t i = 0; i < a.n; i++) {
		assert_string_equal(a.text[i], b.text[i]);
		assert_ptr_equal(a.ptr[i], b.ptr[i]);
	}
	assert_int_equal(fk_sym_cached(s), 1);
	/* is_return is part of the key. */
	sym(s, g_inl_ret, false);
	assert_int_equal(fk_sym_cached(s), 2);

	/* Thousands of addresses across the executable (the cache grows), each
	 * asked twice. */
	enum { N = 5000 };
	static struct frames first[N];
	uint64_t step = (exe->end - exe->start) / N;
	if (step == 0)
		step = 1;
	size_t before = fk_sym_cached(s);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < N; i++) {
			uint64_t ip = exe->start + i * step;
			struct frames f = { 0 };
			fk_sym_frames(s, ip, i & 1, collect, &f);
			if (pass == 0) {
				first[i] = f;
				continue;
			}
			assert_int_equal(f.n, first[i].n);
			for (size_t k = 0; k < f.n && k < 16; k++) {
				assert_string_equal(f.text[k], first[i].text[k]);
				assert_ptr_equal(f.ptr[k], first[i].ptr[k]);
			}
		}
	assert_true(fk_sym_cached(s) >= before + N - 2);
	assert_true(fk_sym_cached(s) <= before + N);
	fk_sym_close(s);
}

static void test_vdso(void **state)
{
	const struct fk_sym_module *vdso = vdso_module();
	if (!vdso)
		skip();
	struct fk_sym_module mods[MAX_MODS];
	memcpy(mods, g_mods, g_nmods * sizeof *mods);
	struct fk_sym_module *m = &mods[vdso - g_mods];
	for (int variant = 0; variant < 3; variant++) {
		uint8_t id[64];
		if (variant == 1) { /* not this machine's vdso */
			assert_true(vdso->build_id_len > 0);
			memcpy(id, vdso->build_id, vdso->build_id_len);
			id[0] ^= 1;
			m->build_id = id;
		} else if (variant == 2) { /* no build-id recorded */
			m->build_id = NULL;
			m->build_id_len = 0;
		}
		struct warnings w = { 0 };
		struct fk_symbolizer *s = fk_sym_open(mods, g_nmods, FK_SYM_LINES, count_warning, &w);
		int named = 0, timefn = 0;
		for (uint64_t ip = vdso->start; ip < vdso->end; ip += 4) {
			struct frames f = { 0 };
			fk_sym_frames(s, ip, false, collect, &f);
			assert_int_equal(f.n, 1);
			if (strncmp(f.text[0], "[vdso]+0x", 9) != 0)
				named++;
			if (strstr(f.text[0], "time"))
				timefn++;
		}
		if (variant == 0) {
			assert_true(named > 0);
			assert_true(timefn > 0);
		} else {
			assert_int_equal(named, 0);
		}
		assert_int_equal(w.n, 0);
		fk_sym_close(s);
	}
}

static void test_odd_lists(void **state)
{
	(void)target_ptr(1);
	uint64_t fn = (uint64_t)(uintptr_t)target_ptr;
	const struct fk_sym_module *exe = module_of(fn);
	static const uint8_t none[1] = { 0 };
	struct fk_sym_module mods[] = {
		*exe,
		*exe, /* the same record twice */
		{ .path = exe->path, .start = exe->end, .end = exe->start, .bias = exe->bias }, /* empty */
		{ .path = NULL, .start = 0x1000, .end = 0x2000 },
		{ .path = "/tmp", .start = 0x3000, .end = 0x3000 },
		{ .path = exe->path, .start = 0x5000, .end = 0x6000, .bias = 0x5000, .build_id = none,
		  .build_id_len = 0 },
		/* ';' would split a folded stack, '\n' its line. */
		{ .path = "/nonexistent-flamekit/lib;odd\n.so", .start = 0x7000, .end = 0x8000,
		  .bias = 0x7000 },
		/* Overlapping the executable, starting later: wins from there. */
		{ .path = "/nonexistent-flamekit/overlay.so", .start = fn + 1, .end = fn + 0x100,
		  .bias = fn },
	};
	struct warnings w = { 0 };
	struct fk_symbolizer *s =
		fk_sym_open(mods, sizeof mods / sizeof mods[0], FK_SYM_INLINE | FK_SYM_LINES,
			    count_warning, &w);
	struct frames f = sym(s, (const void *)target_ptr, false);
	assert_at(f.text[0], "sym_target", target_line, target_line + 2);
	f = sym(s, (const void *)(uintptr_t)(fn + 1), false);
	assert_string_equal(f.text[0], "overlay.so+0x1");
	assert_int_equal(w.n, 1);
	f = sym(s, (const void *)(uintptr_t)(fn + 0x100), false); /* past the overlay */
	assert_int_not_equal(strncmp(f.text[0], "overlay.so", 10), 0);
	f = sym(s, (const void *)(uintptr_t)0x1800, false);
	assert_string_equal(f.text[0], "[vdso]+0x1800");
	f = sym(s, (const void *)(uintptr_t)0x7010, true);
	assert_string_equal(f.text[0], "lib:odd?.so+0x10");
	assert_int_equal(w.n, 2);
	f = sym(s, (const void *)(uintptr_t)0x3000, false);
	assert_string_equal(f.text[0], "[unknown]");
	/* The executable's file at a made-up place: whatever is there, no crash. */
	f = sym(s, (const void *)(uintptr_t)0x5800, true);
	assert_true(f.n >= 1);
	fk_sym_close(s);
}

int main(void)
{
	unsetenv("DEBUGINFOD_URLS"); /* never the network in tests */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_static_function),
		cmocka_unit_test(test_inlined),
		cmocka_unit_test(test_inlined_twice),
		cmocka_unit_test(test_libc),
		cmocka_unit_test(test_wrong_files),
		cmocka_unit_test(test_demangled),
		cmocka_unit_test(test_demangle_forms),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_vdso),
		cmocka_unit_test(test_odd_lists),
	};
	return cmocka_run_group_tests(tests, record_modules, NULL);
}
