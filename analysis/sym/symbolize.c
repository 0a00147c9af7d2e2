/* symbolize.c - native frame names with libdwfl (see symbolize.h).
 *
 * Each recorded module is reported to the Dwfl session on the first address
 * that falls in it (dwfl_report_begin_add), so a capture listing hundreds of
 * libraries opens only those its stacks touch. Addresses are mapped to
 * modules with the recorded ranges, not dwfl_addrmodule: modules that must
 * not be named never reach libdwfl, and overlapping records stay usable.
 */
#include "analysis/sym/symbolize.h"

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/core/arena.h"
#include "analysis/sym/demangle.h"
#include "analysis/sym/dwunits.h"
#include "analysis/core/strtab.h"
#include "formats/bsearch.h"
#include "formats/grow.h"

enum { MOD_PENDING, MOD_OK, MOD_NAMELESS };

/* A function symbol: [addr, end) in process addresses. */
struct fsym {
	uint64_t addr, end, maxend; /* maxend: the largest end among syms[0..this] */
	const char *name;	    /* in libdwfl's copy of the string table */
};

struct mod {
	const char *path, *base; /* in the arena; base: what "+0x" frames show */
	uint64_t start, end, bias;
	uint64_t maxend;	 /* the largest end among mods[0..this] */
	const uint8_t *build_id;
	size_t build_id_len;
	Dwfl_Module *dm;	 /* MOD_OK only */
	unsigned char state;
	bool vdso;
	bool syms_indexed;	 /* syms built (maybe empty) */
	struct fsym *syms;
	size_t nsyms;
	struct fk_dwunits units; /* MOD_OK only */
};

/* A cached address: its frames are frames[first .. first + n). n == 0: an
 * empty slot. */
struct entry {
	uint64_t ip;
	uint32_t first;
	uint32_t n : 31, ret : 1;
};

/* The frames of one address while they are built: frame i is
 * buf[ends[i - 1] + 1 .. ends[i]) (from 0 for the first), each followed by a
 * NUL. */
struct text {
	char *buf;
	size_t len, cap;
	size_t *ends;
	size_t n, ncap;
	size_t frame_start;
	bool failed;
};

struct fk_symbolizer {
	unsigned flags;
	fk_sym_warn_fn warn;
	void *warn_ctx;
	struct mod *mods;
	size_t nmods;
	struct fk_arena arena; /* module paths and build-ids */
	Dwfl_Callbacks cb;     /* libdwfl keeps a pointer to it */
	char *debuginfo_path;  /* NULL: libdwfl's default */
	Dwfl *dwfl;
	struct entry *cache;
	size_t mask, count;
	uint32_t *frames;      /* string ids, per entry */
	size_t nframes, framecap;
	struct fk_strtab names;
	struct text t;
	char fallback[160];    /* the one frame shown when out of memory */
};

/* ---- text building ------------------------------------------------------- */

static void put(struct text *t, const char *p, size_t n)
{
	if (t->failed)
		return;
	if (n > SIZE_MAX - t->len || !FK_GROW(t->buf, t->cap, t->len + n, 256)) {
		t->failed = true;
		return;
	}
	memcpy(t->buf + t->len, p, n);
	t->len += n;
}

static void puts_(struct text *t, const char *s)
{
	put(t, s, strlen(s));
}

static void put_offset(struct text *t, const char *base, uint64_t off)
{
	char hex[24];
	puts_(t, base);
	put(t, hex, (size_t)snprintf(hex, sizeof hex, "+0x%" PRIx64, off));
}

/* A function's name, demangled to its name alone where it is mangled
 * (C++, Rust): what perf shows and stackcollapse-perf.pl keeps of it. */
static void put_name(struct text *t, const char *name, size_t len)
{
	char *plain = fk_demangle(name, len, FK_DEMANGLE_NAME);
	if (plain)
		puts_(t, plain);
	else
		put(t, name, len);
	free(plain);
}

/* " (file:line)", file as its basename. */
static void put_line(struct text *t, const char *file, int line)
{
	if (!file || line <= 0)
		return;
	const char *slash = strrchr(file, '/');
	char num[16];
	puts_(t, " (");
	puts_(t, slash && slash[1] ? slash + 1 : file);
	put(t, num, (size_t)snprintf(num, sizeof num, ":%d)", line));
}

/* Ends the frame begun after the previous one, with a NUL: ';' (the
 * folded-stack separator) becomes ':', control bytes '?'. */
static void end_frame(struct text *t)
{
	if (t->failed)
		return;
	for (size_t i = t->frame_start; i < t->len; i++) {
		unsigned char c = (unsigned char)t->buf[i];
		if (c == ';')
			t->buf[i] = ':';
		else if (c < 0x20 || c == 0x7f)
			t->buf[i] = '?';
	}
	put(t, "", 1);
	if (t->failed)
		return;
	if (!FK_GROW(t->ends, t->ncap, t->n + 1, 16)) {
		t->failed = true;
		return;
	}
	t->ends[t->n++] = t->len - 1;
	t->frame_start = t->len;
}

/* ---- modules ------------------------------------------------------------- */

static bool is_vdso(const char *path)
{
	if (!*path || strcmp(path, "[vdso]") == 0)
		return true;
	return !strchr(path, '/') &&
	       (strncmp(path, "linux-vdso", 10) == 0 || strncmp(path, "linux-gate", 10) == 0);
}

static int mod_cmp(const void *a, const void *b)
{
	const struct mod *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	if (x->bias != y->bias)
		return x->bias < y->bias ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* An address (uint64_t *key) against a module's start. */
static int pc_vs_mod(const void *key, const void *element)
{
	uint64_t pc = *(const uint64_t *)key, start = ((const struct mod *)element)->start;
	return pc < start ? -1 : pc > start;
}

/* The module covering pc: the one starting last among those that do. */
static struct mod *find_mod(struct fk_symbolizer *s, uint64_t pc)
{
	/* The modules that may cover pc are those starting at or below it. */
	size_t n = fk_upper_bound(s->mods, s->nmods, sizeof *s->mods, &pc, pc_vs_mod);
	for (size_t i = n; i-- > 0;) {
		if (s->mods[i].maxend <= pc)
			break;
		if (pc < s->mods[i].end)
			return &s->mods[i];
	}
	return NULL;
}

static void warn_mod(struct fk_symbolizer *s, const struct mod *m, const char *what)
{
	if (!s->warn)
		return;
	const char *fmt = "%s: %s; frames shown as %s+0x...";
	int n = snprintf(NULL, 0, fmt, m->path, what, m->base);
	if (n < 0)
		return;
	char *msg = malloc((size_t)n + 1);
	if (!msg)
		return;
	snprintf(msg, (size_t)n + 1, fmt, m->path, what, m->base);
	s->warn(s->warn_ctx, msg);
	free(msg);
}

/* Whether the file libdwfl opened for m is the one the capture saw. */
static bool same_build_id(const struct mod *m, Dwfl_Module *dm, bool *file_has_one)
{
	*file_has_one = true;
	if (!m->build_id_len)
		return true;
	GElf_Addr bias;
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int len = dwfl_module_getelf(dm, &bias) ? dwfl_module_build_id(dm, &bits, &vaddr) : -1;
	if (len <= 0) {
		*file_has_one = false;
		return false;
	}
	return (size_t)len == m->build_id_len && memcmp(bits, m->build_id, m->build_id_len) == 0;
}

/* Reports one file to the session, placed by the load bias (add_p_vaddr:
 * right for ET_DYN objects whose first PT_LOAD is not at 0 too; ET_EXEC
 * ignores it). NULL with err filled on failure; fd >= 0 is consumed on
 * success. */
static Dwfl_Module *report(struct fk_symbolizer *s, const struct mod *m, const char *file, int fd,
			   char *err, size_t errlen)
{
	dwfl_report_begin_add(s->dwfl);
	Dwfl_Module *dm = dwfl_report_elf(s->dwfl, file, file, fd, m->bias, true);
	if (!dm)
		snprintf(err, errlen, "%s", dwfl_errmsg(-1));
	dwfl_report_end(s->dwfl, NULL, NULL); /* fails only through its callback */
	return dm;
}

/* This machine's vdso image (the whole ELF file the kernel maps), or NULL. */
static const unsigned char *own_vdso(size_t *size)
{
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)(uintptr_t)getauxval(AT_SYSINFO_EHDR);
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
	    eh->e_phentsize != sizeof(ElfW(Phdr)) || eh->e_phoff > 4096 ||
	    eh->e_phnum > (4096 - eh->e_phoff) / sizeof(ElfW(Phdr)))
		return NULL;
	uint64_t end = (uint64_t)eh->e_shoff + (uint64_t)eh->e_shnum * eh->e_shentsize;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)eh + eh->e_phoff);
	for (size_t i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > end)
			end = ph[i].p_offset + ph[i].p_filesz;
	if (end < sizeof *eh || end > (1u << 20))
		return NULL;
	*size = (size_t)end;
	return (const unsigned char *)eh;
}

/* The vdso has no file: when the capture's build-id is this machine's own
 * vdso's, its in-memory image (copied to a memfd) names the frames. */
static void prepare_vdso(struct fk_symbolizer *s, struct mod *m)
{
	size_t size;
	const unsigned char *img;
	if (!m->build_id_len || !s->dwfl || !(img = own_vdso(&size)))
		return;
	int fd = memfd_create("flamekit-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return;
	size_t done = 0;
	while (done < size) {
		/* write, not a read of the mapping: pages that are not there give
		 * EFAULT, not a crash. */
		ssize_t w = write(fd, img + done, size - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			return;
		}
		done += (size_t)w;
	}
	char err[256];
	Dwfl_Module *dm = report(s, m, "[vdso]", fd, err, sizeof err);
	if (!dm) {
		close(fd);
		return;
	}
	bool has;
	if (same_build_id(m, dm, &has)) {
		m->dm = dm;
		fk_dwunits_init(&m->units, dm);
		m->state = MOD_OK;
	}
}

/* Decides, on the first address in m, whether its file may name frames. */
static void prepare(struct fk_symbolizer *s, struct mod *m)
{
	m->state = MOD_NAMELESS;
	if (s->flags & FK_SYM_NO_FILES)
		return; /* "module+0x...", as asked: no file is opened */
	if (m->vdso) {
		prepare_vdso(s, m); /* no file to miss: no warning */
		return;
	}
	struct stat st;
	if (stat(m->path, &st) != 0) {
		warn_mod(s, m, errno == ENOENT || errno == ENOTDIR ? "not found" : strerror(errno));
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		warn_mod(s, m, "not a regular file");
		return;
	}
	char err[256] = "libdwfl could not start";
	Dwfl_Module *dm = s->dwfl ? report(s, m, m->path, -1, err, sizeof err) : NULL;
	if (!dm) {
		char what[300];
		snprintf(what, sizeof what, "cannot be read (%s)", err);
		warn_mod(s, m, what);
		return;
	}
	bool has;
	if (!same_build_id(m, dm, &has)) {
		warn_mod(s, m, has ? "build-id differs from the capture's"
				   : "build-id differs from the capture's (the file has none)");
		return;
	}
	m->dm = dm;
	fk_dwunits_init(&m->units, dm);
	m->state = MOD_OK;
}

/* ---- symbols ------------------------------------------------------------- */

/* While sorting: which of the symbols at one address names it. Sized before
 * sizeless, functions before untyped labels, global before weak before
 * local, then the shortest name with leading underscores counting thrice
 * ("malloc", not "__libc_malloc"; "write", not "__write"; "sprintf", not
 * "_IO_sprintf"), then the symbol table's order. */
struct fsym_sort {
	struct fsym s;
	uint32_t rank;
	int index;
};

static int fsym_cmp(const void *a, const void *b)
{
	const struct fsym_sort *x = a, *y = b;
	if (x->s.addr != y->s.addr)
		return x->s.addr < y->s.addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static bool in_code(Elf *elf, GElf_Word shndx)
{
	GElf_Shdr mem, *sh;
	Elf_Scn *scn = elf && shndx < SHN_LORESERVE ? elf_getscn(elf, shndx) : NULL;
	return scn && (sh = gelf_getshdr(scn, &mem)) && (sh->sh_flags & SHF_EXECINSTR);
}

/* The module's function symbols sorted by address, one per address.
 * dwfl_module_addrinfo scans the whole symbol table on every call (160 us
 * an address in libc): this is a binary search. */
static void index_syms(struct mod *m)
{
	m->syms_indexed = true;
	int n = dwfl_module_getsymtab(m->dm);
	if (n <= 0)
		return;
	struct fsym_sort *v = malloc((size_t)n * sizeof *v);
	if (!v)
		return;
	size_t k = 0;
	for (int i = 0; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf = NULL;
		const char *name = dwfl_module_getsym_info(m->dm, i, &sym, &addr, &shndx, &elf, NULL);
		/* "$x"/"$d": ARM mapping symbols; ".L": assembler locals. */
		if (!name || !*name || *name == '$' || strncmp(name, ".L", 2) == 0 ||
		    shndx == SHN_UNDEF || shndx == (GElf_Word)-1 || shndx == SHN_ABS)
			continue;
		int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
		bool func = type == STT_FUNC || type == STT_GNU_IFUNC;
		if (!func && !(type == STT_NOTYPE && in_code(elf, shndx)))
			continue;
		size_t under = strspn(name, "_"), len = strcspn(name, "@") + 2 * under;
		uint32_t rank = (sym.st_size ? 0u : 1u) << 19 | (func ? 0u : 1u) << 18 |
				(bind == STB_GLOBAL ? 0u : bind == STB_WEAK ? 1u : 2u) << 16 |
				(uint32_t)(len < 0xffff ? len : 0xffff);
		v[k++] = (struct fsym_sort){
			.s = { .addr = addr, .end = addr + sym.st_size, .name = name },
			.rank = rank,
			.index = i,
		};
	}
	if (k)
		qsort(v, k, sizeof *v, fsym_cmp);
	struct fsym *syms = k ? malloc(k * sizeof *syms) : NULL;
	size_t out = 0;
	for (size_t i = 0; syms && i < k; i++)
		if (!out || syms[out - 1].addr != v[i].s.addr)
			syms[out++] = v[i].s;
	free(v);
	for (size_t i = 0; i < out; i++) {
		/* A sizeless symbol reaches the next one (or the module's end). */
		if (syms[i].end == syms[i].addr)
			syms[i].end = i + 1 < out ? syms[i + 1].addr : m->end;
		if (syms[i].end < syms[i].addr)
			syms[i].end = syms[i].addr;
		syms[i].maxend = i && syms[i - 1].maxend > syms[i].end ? syms[i - 1].maxend : syms[i].end;
	}
	m->syms = syms;
	m->nsyms = out;
}

/* An address (uint64_t *key) against a symbol's start. */
static int pc_vs_sym(const void *key, const void *element)
{
	uint64_t pc = *(const uint64_t *)key, addr = ((const struct fsym *)element)->addr;
	return pc < addr ? -1 : pc > addr;
}

/* The symbol containing pc, the nearest-starting one where symbols nest. */
static const char *sym_name(struct mod *m, uint64_t pc)
{
	if (!m->syms_indexed)
		index_syms(m);
	/* The symbols that may contain pc are those starting at or below it. */
	size_t n = fk_upper_bound(m->syms, m->nsyms, sizeof *m->syms, &pc, pc_vs_sym);
	for (size_t i = n, steps = 0; i-- > 0 && steps < 256; steps++) {
		if (m->syms[i].maxend <= pc)
			break;
		if (pc < m->syms[i].end)
			return m->syms[i].name;
	}
	return NULL;
}

/* The frames of pc in a module whose file is trusted. */
static void name_frames(struct fk_symbolizer *s, struct mod *m, uint64_t ip, uint64_t pc)
{
	struct text *t = &s->t;
	bool inl = s->flags & FK_SYM_INLINE, lines = s->flags & FK_SYM_LINES;
	const char *fname = sym_name(m, pc);

	/* scopes: the inlined functions, innermost first, then the subprogram */
	Dwarf_Die *scopes = NULL, cu;
	Dwarf_Addr bias = 0;
	int nscopes = 0;
	bool have_cu = (inl || lines || !fname) && fk_dwunits_find(&m->units, pc, &cu, &bias);
	if (have_cu)
		nscopes = fk_dw_functions(&cu, pc - bias, &scopes);
	int ninl = 0, sub = -1;
	while (ninl < nscopes && dwarf_tag(&scopes[ninl]) == DW_TAG_inlined_subroutine)
		ninl++;
	if (ninl < nscopes)
		sub = ninl;
	if (!fname && sub >= 0)
		fname = fk_dw_name(&scopes[sub], NULL);

	const char *file = NULL;
	int line = 0;
	if (ninl)
		fk_dw_call_site(&scopes[ninl - 1], &file, &line);
	else if (lines && have_cu)
		fk_dw_src_line(&cu, pc - bias, &file, &line);
	if (fname && *fname) {
		/* "clock_gettime@@GLIBC_2.17" in a .symtab is "clock_gettime" in
		 * .dynsym: the same name whether debug info is installed or not. */
		const char *at = strchr(fname + 1, '@');
		put_name(t, fname, at ? (size_t)(at - fname) : strlen(fname));
	} else
		put_offset(t, m->base, ip - m->bias);
	if (lines)
		put_line(t, file, line);
	end_frame(t);

	for (int j = inl ? ninl - 1 : -1; j >= 0; j--) {
		const char *n = fk_dw_name(&scopes[j], NULL);
		if (n && *n)
			put_name(t, n, strlen(n));
		else
			puts_(t, "[unknown]");
		if (lines) {
			if (j > 0)
				fk_dw_call_site(&scopes[j - 1], &file, &line);
			else
				fk_dw_src_line(&cu, pc - bias, &file, &line);
			put_line(t, file, line);
		}
		puts_(t, FK_SYM_INLINE_MARK);
		end_frame(t);
	}
	free(scopes);
}

/* ---- the cache ----------------------------------------------------------- */

static size_t slot_of(uint64_t ip, bool ret, size_t mask)
{
	uint64_t h = ip ^ (ret ? 0x9E3779B97F4A7C15ull : 0);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return (size_t)h & mask;
}

static struct entry *cache_find(struct fk_symbolizer *s, uint64_t ip, bool ret)
{
	if (!s->cache)
		return NULL;
	for (size_t i = slot_of(ip, ret, s->mask);; i = (i + 1) & s->mask) {
		struct entry *e = &s->cache[i];
		if (!e->n)
			return NULL;
		if (e->ip == ip && e->ret == ret)
			return e;
	}
}

/* Room for one more entry at a load under one half. */
static bool cache_reserve(struct fk_symbolizer *s)
{
	if (s->cache && (s->count + 1) * 2 <= s->mask + 1)
		return true;
	size_t n = s->cache ? (s->mask + 1) * 2 : 64; /* small captures stay small */
	struct entry *c = calloc(n, sizeof *c);
	if (!c)
		return false;
	for (size_t i = 0; s->cache && i <= s->mask; i++) {
		struct entry *e = &s->cache[i];
		if (!e->n)
			continue;
		size_t j = slot_of(e->ip, e->ret, n - 1);
		while (c[j].n)
			j = (j + 1) & (n - 1);
		c[j] = *e;
	}
	free(s->cache);
	s->cache = c;
	s->mask = n - 1;
	return true;
}

/* Interns the frames in s->t as the entry for (ip, ret); NULL when out of
 * memory (nothing is kept then). */
static struct entry *cache_add(struct fk_symbolizer *s, uint64_t ip, bool ret)
{
	struct text *t = &s->t;
	if (t->n > UINT32_MAX / 2 || s->nframes > UINT32_MAX - t->n || !cache_reserve(s))
		return NULL;
	if (!FK_GROW(s->frames, s->framecap, s->nframes + t->n, 64))
		return NULL;
	for (size_t i = 0; i < t->n; i++) {
		size_t from = i ? t->ends[i - 1] + 1 : 0;
		uint32_t id = fk_strtab_intern(&s->names, t->buf + from, t->ends[i] - from, NULL);
		if (id == FK_STRTAB_NONE)
			return NULL; /* the interned strings stay, unused: harmless */
		s->frames[s->nframes + i] = id;
	}
	size_t i = slot_of(ip, ret, s->mask);
	while (s->cache[i].n)
		i = (i + 1) & s->mask;
	struct entry *e = &s->cache[i];
	*e = (struct entry){ .ip = ip, .first = (uint32_t)s->nframes, .n = (uint32_t)t->n, .ret = ret };
	s->nframes += t->n;
	s->count++;
	return e;
}

/* ---- public ---------------------------------------------------------------- */

struct fk_symbolizer *fk_sym_open(const struct fk_sym_module *mods, size_t n, unsigned flags,
				  fk_sym_warn_fn warn, void *warn_ctx)
{
	struct fk_symbolizer *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->flags = flags;
	s->warn = warn;
	s->warn_ctx = warn_ctx;
	if (n && mods) {
		s->mods = calloc(n, sizeof *s->mods);
		if (!s->mods)
			goto oom;
	}
	for (size_t i = 0; s->mods && i < n; i++) {
		const struct fk_sym_module *r = &mods[i];
		if (r->end <= r->start)
			continue;
		struct mod *m = &s->mods[s->nmods];
		const char *path = r->path ? r->path : "";
		char *p = fk_arena_dup(&s->arena, path, strlen(path));
		if (!p)
			goto oom;
		m->path = p;
		m->vdso = is_vdso(p);
		const char *slash = strrchr(p, '/');
		m->base = m->vdso ? "[vdso]" : slash && slash[1] ? slash + 1 : p;
		m->start = r->start;
		m->end = r->end;
		m->bias = r->bias;
		if (r->build_id && r->build_id_len) {
			uint8_t *b = fk_arena_alloc(&s->arena, r->build_id_len);
			if (!b)
				goto oom;
			memcpy(b, r->build_id, r->build_id_len);
			m->build_id = b;
			m->build_id_len = r->build_id_len;
		}
		s->nmods++;
	}
	if (s->nmods)
		qsort(s->mods, s->nmods, sizeof *s->mods, mod_cmp);
	/* The same record twice would make libdwfl refuse the second. */
	size_t kept = 0;
	for (size_t i = 0; i < s->nmods; i++) {
		if (kept && mod_cmp(&s->mods[kept - 1], &s->mods[i]) == 0)
			continue;
		s->mods[kept] = s->mods[i];
		s->mods[kept].maxend = kept && s->mods[kept - 1].maxend > s->mods[i].end
					       ? s->mods[kept - 1].maxend
					       : s->mods[i].end;
		kept++;
	}
	s->nmods = kept;

	s->cb.find_elf = dwfl_build_id_find_elf;
	s->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	s->cb.debuginfo_path = &s->debuginfo_path;
	/* NULL: every module is nameless. No session when no file may be
	 * opened: starting one costs more than naming a small capture. */
	if (!(flags & FK_SYM_NO_FILES))
		s->dwfl = dwfl_begin(&s->cb);
	return s;
oom:
	fk_sym_close(s);
	return NULL;
}

size_t fk_sym_frames(struct fk_symbolizer *s, uint64_t ip, bool is_return, fk_sym_emit_fn emit,
		     void *emit_ctx)
{
	static const char unknown[] = "[unknown]";
	if (!s) {
		if (emit)
			emit(emit_ctx, unknown, sizeof unknown - 1);
		return 1;
	}
	struct entry *e = cache_find(s, ip, is_return);
	if (!e) {
		uint64_t pc = is_return && ip ? ip - 1 : ip;
		struct text *t = &s->t;
		t->len = t->n = t->frame_start = 0;
		t->failed = false;
		struct mod *m = find_mod(s, pc);
		if (m && m->state == MOD_PENDING)
			prepare(s, m);
		if (m && m->state == MOD_OK) {
			name_frames(s, m, ip, pc);
		} else {
			if (m)
				put_offset(t, m->base, ip - m->bias);
			else
				puts_(t, unknown);
			end_frame(t);
		}
		if (!t->failed)
			e = cache_add(s, ip, is_return);
		if (!e) {
			/* Out of memory: what was built, else one frame. */
			if (t->failed || !t->n) {
				if (m)
					snprintf(s->fallback, sizeof s->fallback, "%s+0x%" PRIx64,
						 m->base, ip - m->bias);
				else
					snprintf(s->fallback, sizeof s->fallback, "%s", unknown);
				if (emit)
					emit(emit_ctx, s->fallback, strlen(s->fallback));
				return 1;
			}
			for (size_t i = 0; emit && i < t->n; i++) {
				size_t from = i ? t->ends[i - 1] + 1 : 0;
				emit(emit_ctx, t->buf + from, t->ends[i] - from);
			}
			return t->n;
		}
	}
	for (uint32_t i = 0; emit && i < e->n; i++) {
		const struct fk_str *str = fk_strtab_get(&s->names, s->frames[e->first + i]);
		emit(emit_ctx, str->p, str->len);
	}
	return e->n;
}

size_t fk_sym_cached(const struct fk_symbolizer *s)
{
	return s ? s->count : 0;
}

void fk_sym_close(struct fk_symbolizer *s)
{
	if (!s)
		return;
	if (s->dwfl)
		dwfl_end(s->dwfl);
	fk_strtab_free(&s->names);
	fk_arena_free(&s->arena);
	for (size_t i = 0; i < s->nmods; i++) {
		free(s->mods[i].syms);
		fk_dwunits_free(&s->mods[i].units);
	}
	free(s->mods);
	free(s->cache);
	free(s->frames);
	free(s->t.buf);
	free(s->t.ends);
	free(s);
}
