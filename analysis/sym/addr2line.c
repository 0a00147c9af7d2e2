/* addr2line.c - binutils' addr2line and nm answers, from libdwfl and
 * libelf (see addr2line.h for the rules). Each file gets its own offline
 * libdwfl session, so its separate debug file is found as binutils finds
 * it, and addresses are the file's own.
 */
#include "analysis/sym/addr2line.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/sym/demangle.h"
#include "analysis/sym/dwunits.h"
#include "formats/bsearch.h"
#include "formats/grow.h"

/* A symbol as binutils' _bfd_elf_find_function meets it, walking the table
 * in order: with the last STT_FILE name seen, and whether a file symbol had
 * followed some other symbol by then (its "file_after_symbol_seen"). */
struct sym {
	uint64_t value, size;
	const char *name;
	const char *file;
	size_t shndx;
	unsigned char type, bind, vis;
	bool file_after;
};

struct symtab {
	struct sym *syms;
	size_t n;
};

struct file {
	char *path;
	const char *why;	  /* not NULL: addr2line would print nothing */
	Dwfl *dwfl;
	Dwfl_Module *dm;
	Elf *elf;		  /* the file itself */
	Dwarf_Addr bias;	  /* module address - file address */
	struct fk_dwunits units;
	struct symtab main_syms;  /* .symtab, else .dynsym: addr2line's */
	struct symtab debug_syms; /* the separate debug file's .symtab */
	bool separate;		  /* DWARF came from a separate debug file */
	bool has_symtab;	  /* the file has a .symtab (nm lists it) */
};

struct fk_a2l {
	Dwfl_Callbacks cb;	  /* libdwfl keeps a pointer to it */
	char *debuginfo_path;	  /* NULL: libdwfl's default */
	struct file *files;
	size_t nfiles, cap;
};

struct fk_a2l *fk_a2l_new(void)
{
	struct fk_a2l *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->cb.find_elf = dwfl_build_id_find_elf;
	a->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	a->cb.section_address = dwfl_offline_section_address;
	a->cb.debuginfo_path = &a->debuginfo_path;
	return a;
}

void fk_a2l_free(struct fk_a2l *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nfiles; i++) {
		struct file *f = &a->files[i];
		fk_dwunits_free(&f->units);
		free(f->main_syms.syms);
		free(f->debug_syms.syms);
		if (f->dwfl)
			dwfl_end(f->dwfl);
		free(f->path);
	}
	free(a->files);
	free(a);
}

/* ---- symbols --------------------------------------------------------------- */

static Elf_Scn *find_table(Elf *elf, GElf_Word type)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type && sh.sh_entsize > 0 &&
		    sh.sh_size / sh.sh_entsize > 1)
			return scn;
	}
	return NULL;
}

/* Every symbol but the null one, in table order (bfd's canonical table). */
static bool read_symtab(Elf *elf, Elf_Scn *scn, struct symtab *t)
{
	GElf_Shdr sh;
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!data || !gelf_getshdr(scn, &sh))
		return true;
	size_t n = sh.sh_size / sh.sh_entsize;
	t->syms = calloc(n, sizeof *t->syms);
	if (!t->syms)
		return false;
	const char *file = NULL;
	enum { NOTHING_SEEN, SYMBOL_SEEN, FILE_AFTER_SYMBOL } state = NOTHING_SEEN;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym s;
		if (!gelf_getsym(data, (int)i, &s))
			break;
		const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
		if (!name)
			name = "";
		if (GELF_ST_TYPE(s.st_info) == STT_FILE) {
			file = name;
			if (state == SYMBOL_SEEN)
				state = FILE_AFTER_SYMBOL;
			continue;
		}
		if (state == NOTHING_SEEN)
			state = SYMBOL_SEEN;
		t->syms[t->n++] = (struct sym){
			.value = s.st_value, .size = s.st_size, .name = name, .file = file,
			.shndx = s.st_shndx, .type = GELF_ST_TYPE(s.st_info),
			.bind = GELF_ST_BIND(s.st_info), .vis = GELF_ST_VISIBILITY(s.st_other),
			.file_after = state == FILE_AFTER_SYMBOL,
		};
	}
	return true;
}

/* bfd's maybe_function_sym: the size a symbol is taken to cover in the
 * section at sec_addr with index shndx, 0 when it cannot name code there. */
static uint64_t function_size(const struct sym *s, size_t shndx, uint64_t sec_addr)
{
	/* bfd keeps values relative to the section: one below its start
	 * (__bss_start) is far beyond every address in it */
	if (s->shndx != shndx || s->value < sec_addr || s->type == STT_SECTION ||
	    s->type == STT_OBJECT || s->type == STT_TLS || s->type == STT_COMMON)
		return 0;
	/* annobin's hidden local zero-size labels are not functions */
	if (s->size == 0 && s->bind == STB_LOCAL && s->type == STT_NOTYPE && s->vis == STV_HIDDEN)
		return 0;
	return s->size ? s->size : 1;
}

/* _bfd_elf_find_function: the closest symbol at or below addr, the first
 * of those at one address unless a later one is larger. */
static const struct sym *find_function(const struct symtab *t, size_t shndx, uint64_t sec_addr,
				       uint64_t addr)
{
	const struct sym *best = NULL;
	uint64_t low = sec_addr, size = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct sym *s = &t->syms[i];
		uint64_t sz = function_size(s, shndx, sec_addr);
		if (sz && s->value <= addr && (s->value > low || (s->value == low && sz > size))) {
			best = s;
			low = s->value;
			size = sz;
		}
	}
	return best;
}

/* The STT_FILE name binutils gives a function found in the symbol table. */
static const char *sym_file(const struct sym *s)
{
	return s->file && (s->bind == STB_LOCAL || !s->file_after) ? s->file : NULL;
}

/* ---- files ----------------------------------------------------------------- */

static void open_file(struct fk_a2l *a, struct file *f)
{
	struct stat st;
	if (stat(f->path, &st) != 0) {
		f->why = errno == ENOENT || errno == ENOTDIR ? "no such file" : "cannot be read";
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		f->why = "not an ordinary file";
		return;
	}
	f->dwfl = dwfl_begin(&a->cb);
	if (!f->dwfl) {
		f->why = "libdwfl could not start";
		return;
	}
	dwfl_report_begin(f->dwfl);
	f->dm = dwfl_report_offline(f->dwfl, f->path, f->path, -1);
	dwfl_report_end(f->dwfl, NULL, NULL);
	if (!f->dm || !(f->elf = dwfl_module_getelf(f->dm, &f->bias))) {
		f->why = "file format not recognized";
		return;
	}
	fk_dwunits_init(&f->units, f->dm);
	Elf_Scn *symtab = find_table(f->elf, SHT_SYMTAB);
	f->has_symtab = symtab != NULL;
	if (!read_symtab(f->elf, symtab ? symtab : find_table(f->elf, SHT_DYNSYM), &f->main_syms)) {
		f->why = "out of memory";
		return;
	}
	Dwarf_Addr dwbias;
	Dwarf *dw = dwfl_module_getdwarf(f->dm, &dwbias);
	Elf *debug = dw ? dwarf_getelf(dw) : NULL;
	if (debug && debug != f->elf) {
		f->separate = true;
		Elf_Scn *dsym = find_table(debug, SHT_SYMTAB);
		if (dsym && !read_symtab(debug, dsym, &f->debug_syms))
			f->why = "out of memory";
	}
}

static struct file *get_file(struct fk_a2l *a, const char *path)
{
	for (size_t i = 0; i < a->nfiles; i++)
		if (strcmp(a->files[i].path, path) == 0)
			return &a->files[i];
	if (!FK_GROW(a->files, a->cap, a->nfiles + 1, 8))
		return NULL;
	struct file *f = &a->files[a->nfiles];
	*f = (struct file){ .path = strdup(path) };
	if (!f->path)
		return NULL;
	a->nfiles++;
	open_file(a, f);
	return f;
}

/* ---- names and text -------------------------------------------------------- */

/* DW_LANG values whose names are not mangled: binutils takes their
 * DW_AT_name as final (mangle_style() == 0). */
static bool unmangled_language(Dwarf_Die *die)
{
	Dwarf_Die cu;
	Dwarf_Attribute at;
	Dwarf_Word lang;
	if (!dwarf_diecu(die, &cu, NULL, NULL) ||
	    dwarf_formudata(dwarf_attr(&cu, DW_AT_language, &at), &lang) != 0)
		return false;
	switch (lang) {
	case DW_LANG_C89: case DW_LANG_C: case DW_LANG_Cobol74: case DW_LANG_Cobol85:
	case DW_LANG_Fortran77: case DW_LANG_Pascal83: case DW_LANG_PLI: case DW_LANG_C99:
	case DW_LANG_UPC: case DW_LANG_C11: case DW_LANG_Mips_Assembler:
	case 0x8765 /* DW_LANG_Upc */: /* DW_LANG_HP_Basic91 is 0x8001, Mips_Assembler */
	case 0x8006 /* DW_LANG_HP_IMS_Basic */: case 0x8007 /* DW_LANG_HP_Assembler */:
		return true;
	default:
		return false;
	}
}

/* Names as addr2line -C prints them: bfd_demangle with DMGL_PARAMS |
 * DMGL_ANSI. */
static void put_name(FILE *out, const char *name)
{
	if (!name || !*name) {
		fputs("??", out);
		return;
	}
	char *plain = fk_demangle(name, strlen(name), FK_DEMANGLE_FULL);
	fputs(plain ? plain : name, out);
	free(plain);
}

static void put_place(FILE *out, const char *file, int line, unsigned discriminator)
{
	const char *slash = file ? strrchr(file, '/') : NULL;
	fprintf(out, "%s:", slash ? slash + 1 : file ? file : "??");
	if (line > 0 && discriminator)
		fprintf(out, "%d (discriminator %u)\n", line, discriminator);
	else if (line > 0)
		fprintf(out, "%d\n", line);
	else
		fputs("?\n", out);
}

/* Rows of a line table (sorted by address) before an address. */
struct rows_before {
	Dwarf_Lines *lines;
	Dwarf_Addr at;
};

static bool row_before(const void *ctx, size_t i)
{
	const struct rows_before *q = ctx;
	Dwarf_Addr a;
	return dwarf_lineaddr(dwarf_onesrcline(q->lines, i), &a) == 0 && a < q->at;
}

/* The file of a line-table row as binutils 2.40 reads it: it starts each
 * DWARF 5 sequence with file entry 0 where the standard (and libdw) says
 * entry 1, so rows before the sequence's first DW_LNS_set_file name the
 * unit's primary file (glibc: "libc-start.c" where libdw says
 * "libc_start_call_main.h"). */
static const char *row_file(Dwarf_Die *cu, Dwarf_Line *row)
{
	const char *name = dwarf_linesrc(row, NULL, NULL);
	Dwarf_Half version;
	Dwarf_Files *files;
	size_t idx, n;
	Dwarf_Lines *lines;
	Dwarf_Addr at;
	if (dwarf_cu_info(cu->cu, &version, NULL, NULL, NULL, NULL, NULL, NULL) != 0 ||
	    version < 5 || dwarf_line_file(row, &files, &idx) != 0 || idx != 1 ||
	    dwarf_getsrclines(cu, &lines, &n) != 0 || dwarf_lineaddr(row, &at) != 0)
		return name;
	/* The first row at the row's address. */
	size_t lo = fk_partition_point(n, &(struct rows_before){ lines, at }, row_before);
	while (lo < n && dwarf_onesrcline(lines, lo) != row)
		lo++;
	for (size_t i = lo; i-- > 0;) { /* back to the sequence's start */
		Dwarf_Line *prev = dwarf_onesrcline(lines, i);
		bool end;
		size_t f;
		if (dwarf_lineendsequence(prev, &end) != 0 || end)
			break;
		if (dwarf_line_file(prev, &files, &f) != 0 || f != 1)
			return name; /* a DW_LNS_set_file came first */
	}
	const char *first = lo < n ? dwarf_filesrc(files, 0, NULL, NULL) : NULL;
	return first ? first : name;
}

/* The length of die's range that holds addr (a DWARF address); 0: none. */
static Dwarf_Addr range_holding(Dwarf_Die *die, Dwarf_Addr addr)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
		if (lo <= addr && addr < hi)
			return hi - lo;
	return 0;
}

/* binutils takes the function whose range holding addr is the shortest,
 * the later one in the unit on a tie; the DIE nesting finds the first.
 * They differ where subprograms overlap: assembler aliases (glibc's
 * memmove and memcpy are one body, each with its DW_TAG_subprogram). */
static void prefer_later_alias(Dwarf_Die *func, Dwarf_Addr addr)
{
	Dwarf_Addr best = range_holding(func, addr);
	Dwarf_Die next = *func;
	while (best && dwarf_siblingof(&next, &next) == 0) {
		if (dwarf_tag(&next) != DW_TAG_subprogram)
			continue;
		Dwarf_Addr len = range_holding(&next, addr);
		if (len && len <= best) {
			*func = next;
			best = len;
		}
	}
}

/* One section's attempt (binutils' find_address_in_section): false when
 * neither DWARF nor a symbol knows addr. */
static bool describe(struct file *f, size_t shndx, uint64_t sec_addr, uint64_t addr, FILE *out)
{
	Dwarf_Die cu, *funcs = NULL;
	Dwarf_Addr dwbias = 0;
	int nfuncs = 0;
	const char *file = NULL;
	int line = 0;
	unsigned discriminator = 0;
	if (fk_dwunits_find(&f->units, addr + f->bias, &cu, &dwbias)) {
		Dwarf_Line *row = dwarf_getsrc_die(&cu, addr + f->bias - dwbias);
		if (row && dwarf_lineno(row, &line) == 0)
			file = row_file(&cu, row);
		if (row)
			dwarf_linediscriminator(row, &discriminator);
		nfuncs = fk_dw_functions(&cu, addr + f->bias - dwbias, &funcs);
		if (nfuncs == 1)
			prefer_later_alias(&funcs[0], addr + f->bias - dwbias);
	}
	const char *name = NULL;
	bool linkage = false;
	if (nfuncs > 0) {
		name = fk_dw_name(&funcs[0], &linkage);
		linkage |= name && unmangled_language(&funcs[0]);
	}
	const struct sym *s = NULL;
	if (!linkage) {
		/* Without a final DWARF name, the symbol table's function
		 * names it, wherever that symbol starts. */
		s = find_function(f->separate ? &f->debug_syms : &f->main_syms, shndx, sec_addr, addr);
		if (s)
			name = s->name;
		if (s && !file)
			file = sym_file(s);
	}
	if (nfuncs == 0 && !file && !s) {
		free(funcs);
		return false;
	}
	put_name(out, name);
	fputc('\n', out);
	put_place(out, file, line, discriminator);
	/* -i: the functions it was inlined into, each with the call's place
	 * (and, as addr2line prints it, the first line's discriminator) */
	for (int i = 1; i < nfuncs; i++) {
		fk_dw_call_site(&funcs[i - 1], &file, &line);
		put_name(out, fk_dw_name(&funcs[i], NULL));
		fputc('\n', out);
		put_place(out, file, line, discriminator);
	}
	free(funcs);
	return true;
}

char *fk_a2l_text(struct fk_a2l *a, const char *path, uint64_t addr, const char **why)
{
	*why = "out of memory";
	struct file *f = get_file(a, path);
	if (!f)
		return NULL;
	if (f->why) {
		*why = f->why;
		return NULL;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	if (!out)
		return NULL;
	bool found = false;
	size_t shndx = 0;
	for (Elf_Scn *scn = elf_nextscn(f->elf, NULL); scn && !found; scn = elf_nextscn(f->elf, scn)) {
		GElf_Shdr sh;
		shndx = elf_ndxscn(scn);
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) && addr >= sh.sh_addr &&
		    addr - sh.sh_addr < sh.sh_size)
			found = describe(f, shndx, sh.sh_addr, addr, out);
	}
	if (!found)
		fputs("??\n??:0\n", out);
	if (fclose(out) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

bool fk_a2l_nm(struct fk_a2l *a, const char *path, const char *name, uint64_t *value)
{
	struct file *f = get_file(a, path);
	if (!f || f->why || !f->has_symtab)
		return false;
	/* nm's listing is sorted by name with a stable sort: the first defined
	 * symbol of that name in table order comes first. */
	for (size_t i = 0; i < f->main_syms.n; i++) {
		const struct sym *s = &f->main_syms.syms[i];
		if (s->shndx != SHN_UNDEF && s->type != STT_SECTION && strcmp(s->name, name) == 0) {
			*value = s->value;
			return true;
		}
	}
	return false;
}
