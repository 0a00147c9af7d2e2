/* test_pyframes.c - Python frames in captures, the reading side: the
 * PYFRAMES decoder (formats/capture.h fk_cap_get_pyframe: round trip, id 0,
 * ids past 63 bits, a NUL in a name, a record cut short), frame names and
 * paths (analysis/capture/pynames.h: both forms, torch's '_' for ' ', ';',
 * '\t', '\n', empty names, the largest line, each path rule and where it
 * must not apply), the --python-* option values, and captures built here,
 * loaded and folded (analysis/capture/model.h): merged stacks named,
 * --python-only on interleaved stacks, ids out of order, an id defined
 * twice, an undefined id ([lost python frame], counted in the loss), a
 * damaged PYFRAMES chunk, META python / cwd / python_faults and the info
 * line, and allocation stacks of the memory timeline named the same way.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/capture/model.h"
#include "analysis/capture/pynames.h"
#include "analysis/sym/symbolize.h"
#include "formats/capture.h"
#include "formats/input.h"

#include "fold_text.h"

#define PY(id) (FK_CAP_IP_PYTHON | (uint64_t)(id))

/* ---- the decoder ---- */

static void put_frame(struct fk_cap_buf *b, uint64_t id, const char *file, const char *qual,
		      const char *name, uint64_t first, uint64_t line)
{
	fk_cap_put_uvarint(b, id);
	fk_cap_put_string(b, file, strlen(file));
	fk_cap_put_string(b, qual, strlen(qual));
	fk_cap_put_string(b, name, strlen(name));
	fk_cap_put_uvarint(b, first);
	fk_cap_put_uvarint(b, line);
}

static void test_decode_round_trip(void **state)
{
	(void)state;
	struct fk_cap_buf b = { 0 };
	put_frame(&b, 1, "/a/t.py", "C.f", "f", 10, 12);
	put_frame(&b, FK_CAP_IP_PYTHON - 1, "", "", "", 0, UINT64_MAX);
	struct fk_cap_cursor c = { b.p, b.p + b.len, false };
	struct fk_cap_pyframe f;
	assert_true(fk_cap_get_pyframe(&c, &f));
	assert_int_equal(f.id, 1);
	assert_int_equal(f.file_len, 7);
	assert_memory_equal(f.file, "/a/t.py", 7);
	assert_memory_equal(f.qualname, "C.f", 3);
	assert_int_equal(f.name_len, 1);
	assert_int_equal(f.first_line, 10);
	assert_int_equal(f.line, 12);
	assert_true(fk_cap_get_pyframe(&c, &f));
	assert_true(f.id == FK_CAP_IP_PYTHON - 1);
	assert_int_equal(f.file_len + f.qualname_len + f.name_len, 0);
	assert_true(f.line == UINT64_MAX);
	assert_false(fk_cap_more(&c));
	fk_cap_buf_free(&b);
}

static void expect_bad(struct fk_cap_buf *b)
{
	struct fk_cap_cursor c = { b->p, b->p + b->len, false };
	struct fk_cap_pyframe f;
	assert_false(fk_cap_get_pyframe(&c, &f));
	assert_true(c.bad);
	b->len = 0;
}

static void test_decode_invalid(void **state)
{
	(void)state;
	struct fk_cap_buf b = { 0 };
	put_frame(&b, 0, "t.py", "f", "f", 1, 1); /* ids start at 1 */
	expect_bad(&b);
	put_frame(&b, FK_CAP_IP_PYTHON, "t.py", "f", "f", 1, 1); /* past 63 bits */
	expect_bad(&b);
	fk_cap_put_uvarint(&b, 3);
	fk_cap_put_string(&b, "t\0.py", 5); /* a NUL would cut the name */
	fk_cap_put_string(&b, "f", 1), fk_cap_put_string(&b, "f", 1);
	fk_cap_put_uvarint(&b, 1), fk_cap_put_uvarint(&b, 1);
	expect_bad(&b);
	put_frame(&b, 4, "t.py", "f", "f", 1, 1);
	b.len--; /* the line cut off */
	expect_bad(&b);
	fk_cap_buf_free(&b);
}

/* ---- names and paths ---- */

static char text[512];

static const char *name_of(const char *file, const char *qual, const char *name, uint64_t first,
			   uint64_t line, const char *cwd, const struct fk_py_opts *o)
{
	size_t n = fk_py_frame_text(text, sizeof text, file, qual, name, first, line, cwd, o);
	assert_int_equal(n, strlen(text));
	return text;
}

static void test_names(void **state)
{
	(void)state;
	struct fk_py_opts o = { 0 };
	const char *lin = "/usr/lib/python3/dist-packages/torch/nn/modules/linear.py";
	assert_string_equal(name_of(lin, "Linear.forward", "forward", 113, 116, NULL, &o),
			    "torch/nn/modules/linear.py(116):_Linear.forward");
	o.names = FK_PY_NAMES_TORCH;
	assert_string_equal(name_of(lin, "Linear.forward", "forward", 113, 116, NULL, &o),
			    "torch/nn/modules/linear.py(113):_forward");
	/* Each of torch's four characters, in the path and the name alike. */
	o.names = FK_PY_NAMES_LINE;
	assert_string_equal(name_of("/w/my dir/a;b.py", "f\tg\nh i;j", "x", 1, 2, "/w", &o),
			    "my_dir/a_b.py(2):_f_g_h_i_j");
	/* Empty names: the name for the qualname, then "<unknown>". */
	assert_string_equal(name_of("t.py", "", "f", 1, 2, NULL, &o), "t.py(2):_f");
	assert_string_equal(name_of("", "", "", 0, 0, NULL, &o), "<unknown>(0):_<unknown>");
	o.names = FK_PY_NAMES_TORCH;
	assert_string_equal(name_of("t.py", "C.f", "", 1, 2, NULL, &o), "t.py(1):_<unknown>");
	assert_string_equal(name_of("t.py", "f", "f", UINT64_MAX, 2, NULL, &o),
			    "t.py(18446744073709551615):_f");
	/* Markup stays as it is here: the SVG and HTML writers escape it. */
	assert_string_equal(name_of("<frozen a&b>", "<lambda>", "<lambda>", 3, 4, NULL, &o),
			    "<frozen_a&b>(3):_<lambda>");
	/* Cut to fit, the whole length returned, as snprintf. */
	char small[8];
	assert_int_equal(fk_py_frame_text(small, sizeof small, "t.py", "f g", "f", 1, 2, NULL, &o),
			 10);
	assert_string_equal(small, "t.py(1)");
}

static const char *short_of(const char *path, const char *cwd, const struct fk_py_opts *o)
{
	return fk_py_short_path(path, cwd, o);
}

static void test_paths(void **state)
{
	(void)state;
	struct fk_py_opts o = { 0 };
	const char *cwd = "/home/u/proj";
	assert_string_equal(short_of("/v/lib/python3.11/site-packages/torch/a.py", cwd, &o), "torch/a.py");
	assert_string_equal(short_of("/usr/lib/python3/dist-packages/numpy/b.py", cwd, &o), "numpy/b.py");
	/* The last of them: a package vendored inside another. */
	assert_string_equal(short_of("/v/site-packages/pip/_vendor/site-packages/x.py", cwd, &o), "x.py");
	assert_string_equal(short_of("/v/dist-packages/a/site-packages/y.py", cwd, &o), "y.py");
	assert_string_equal(short_of("/usr/lib/python3.11/json/decoder.py", cwd, &o), "json/decoder.py");
	assert_string_equal(short_of("/opt/lib/python3.13t/threading.py", cwd, &o), "threading.py");
	assert_string_equal(short_of("/home/u/proj/train.py", cwd, &o), "train.py");
	assert_string_equal(short_of("/home/u/proj/sub/m.py", "/home/u/proj/", &o), "sub/m.py");
	/* Not a prefix: another directory, no version, a name's middle. */
	assert_string_equal(short_of("/home/u/project2/t.py", cwd, &o), "/home/u/project2/t.py");
	assert_string_equal(short_of("/x/lib/python/t.py", cwd, &o), "/x/lib/python/t.py");
	assert_string_equal(short_of("/x/mysite-packages/t.py", cwd, &o), "/x/mysite-packages/t.py");
	assert_string_equal(short_of("/x/lib/python3.x/t.py", cwd, &o), "/x/lib/python3.x/t.py");
	assert_string_equal(short_of("/t.py", "/", &o), "/t.py");
	assert_string_equal(short_of("/home/u/proj", cwd, &o), "/home/u/proj");
	assert_string_equal(short_of("<stdin>", cwd, &o), "<stdin>");
	assert_string_equal(short_of("/home/u/proj/t.py", NULL, &o), "/home/u/proj/t.py");
	/* --python-prefix: first, the longest that matches, and alone. */
	o.prefix[o.nprefix++] = "/v";
	o.prefix[o.nprefix++] = "/v/lib/";
	assert_string_equal(short_of("/v/lib/python3.11/site-packages/torch/a.py", cwd, &o),
			    "python3.11/site-packages/torch/a.py");
	assert_string_equal(short_of("/v/other/a.py", cwd, &o), "other/a.py");
	/* --python-paths=full: the prefixes only. */
	o.full_paths = true;
	assert_string_equal(short_of("/w/v/site-packages/a.py", cwd, &o), "/w/v/site-packages/a.py");
	assert_string_equal(short_of("/home/u/proj/t.py", cwd, &o), "/home/u/proj/t.py");
	assert_string_equal(short_of("/v/other/a.py", cwd, &o), "other/a.py");
}

static void test_option_values(void **state)
{
	(void)state;
	struct fk_py_opts o = { 0 };
	assert_null(fk_py_option(&o, FK_PY_OPT_NAMES, "torch"));
	assert_int_equal(o.names, FK_PY_NAMES_TORCH);
	assert_null(fk_py_option(&o, FK_PY_OPT_NAMES, "line"));
	assert_int_equal(o.names, FK_PY_NAMES_LINE);
	assert_non_null(fk_py_option(&o, FK_PY_OPT_NAMES, "qualname"));
	assert_null(fk_py_option(&o, FK_PY_OPT_PATHS, "full"));
	assert_true(o.full_paths);
	assert_null(fk_py_option(&o, FK_PY_OPT_PATHS, "short"));
	assert_false(o.full_paths);
	assert_non_null(fk_py_option(&o, FK_PY_OPT_PATHS, "long"));
	assert_non_null(fk_py_option(&o, FK_PY_OPT_PREFIX, "/"));
	assert_non_null(fk_py_option(&o, FK_PY_OPT_PREFIX, ""));
	for (int i = 0; i < FK_PY_PREFIX_MAX; i++)
		assert_null(fk_py_option(&o, FK_PY_OPT_PREFIX, "/p"));
	assert_non_null(fk_py_option(&o, FK_PY_OPT_PREFIX, "/p"));
	assert_null(fk_py_option(&o, FK_PY_OPT_ONLY, NULL));
	assert_true(o.only);
	struct option opts[FK_PY_NOPTS];
	fk_py_options(opts, 500);
	assert_string_equal(opts[FK_PY_OPT_ONLY].name, "python-only");
	assert_int_equal(opts[FK_PY_OPT_PREFIX].val, 500 + FK_PY_OPT_PREFIX);
}

/* ---- captures built here ---- */

struct cap {
	struct fk_cap_buf file, p;
	uint64_t seq;
	size_t pyframes_at, pyframes_len; /* where the first PYFRAMES chunk is */
};

static void chunk(struct cap *k, uint16_t type)
{
	if (type == FK_CAP_PYFRAMES && !k->pyframes_at)
		k->pyframes_at = k->file.len, k->pyframes_len = k->p.len;
	assert_true(fk_cap_chunk_encode_stored(&k->file, type, k->seq++, k->p.p, k->p.len));
	k->p.len = 0;
}

static void meta(struct cap *k, const char *key, const char *value)
{
	fk_cap_put_string(&k->p, key, strlen(key));
	fk_cap_put_string(&k->p, value, strlen(value));
}

/* Stacks, root first (native addresses have no module: "[unknown]"):
 *   1 0x10  2 py1  3 0x20  4 py2  5 0x30  6 py3  7 0x40  8 0x50
 *   9 under 2: py9 (defined nowhere)
 * Samples: 8 (weight 5), 6 (2), 4 (1), 9 (1), 1 (1); allocations from 8
 * (4096 bytes) and 4 (100 bytes). Python frames 3 (before 1 and 2: out of
 * order), 1, 2, and 2 again (a bad record). */
static struct cap build(bool with_python_meta)
{
	struct cap k = { 0 };
	struct fk_cap_header h = { .version = FK_CAP_VERSION, .pid = 7, .sample_hz = 1000,
				   .flags = FK_CAP_HDR_ALLOCS, .start_mono_ns = 1000,
				   .start_real_ns = 5000 };
	uint8_t hdr[FK_CAP_HEADER_SIZE];
	fk_cap_header_encode(hdr, &h);
	fk_cap_put_bytes(&k.file, hdr, sizeof hdr);
	meta(&k, "command", "python3 train.py");
	if (with_python_meta) {
		meta(&k, "python", "CPython 3.11.2: frames on");
		meta(&k, "cwd", "/home/u/proj");
		meta(&k, "python_faults", "12");
	}
	chunk(&k, FK_CAP_META);
	put_frame(&k.p, 3, "/v/lib/python3.11/site-packages/torch/nn/modules/linear.py",
		  "Linear.forward", "forward", 113, 116);
	put_frame(&k.p, 1, "/home/u/proj/train.py", "<module>", "<module>", 1, 30);
	put_frame(&k.p, 2, "/home/u/proj/train.py", "Model.step", "step", 10, 14);
	chunk(&k, FK_CAP_PYFRAMES);
	put_frame(&k.p, 2, "/elsewhere.py", "no", "no", 1, 1); /* defined twice: bad */
	chunk(&k, FK_CAP_PYFRAMES);
	static const uint64_t ips[] = { 0x10, PY(1), 0x20, PY(2), 0x30, PY(3), 0x40, 0x50 };
	fk_cap_put_uvarint(&k.p, 1);
	for (size_t i = 0; i < 8; i++)
		fk_cap_put_uvarint(&k.p, i), fk_cap_put_uvarint(&k.p, ips[i]);
	fk_cap_put_uvarint(&k.p, 2), fk_cap_put_uvarint(&k.p, PY(9));
	chunk(&k, FK_CAP_STACKS);
	static const uint32_t samples[][2] = { { 8, 5 }, { 6, 2 }, { 4, 1 }, { 9, 1 }, { 1, 1 } };
	fk_cap_put_uvarint(&k.p, 2000);
	for (size_t i = 0; i < 5; i++) {
		fk_cap_put_uvarint(&k.p, 42), fk_cap_put_uvarint(&k.p, samples[i][0]);
		fk_cap_put_uvarint(&k.p, samples[i][1]), fk_cap_put_svarint(&k.p, 10);
	}
	chunk(&k, FK_CAP_SAMPLES);
	fk_cap_put_uvarint(&k.p, 2000);
	fk_cap_put_u8(&k.p, FK_CAP_ALLOC), fk_cap_put_svarint(&k.p, 5);
	fk_cap_put_uvarint(&k.p, 42), fk_cap_put_uvarint(&k.p, 0x9000);
	fk_cap_put_uvarint(&k.p, 4096), fk_cap_put_uvarint(&k.p, 8);
	fk_cap_put_u8(&k.p, FK_CAP_ALLOC), fk_cap_put_svarint(&k.p, 5);
	fk_cap_put_uvarint(&k.p, 42), fk_cap_put_uvarint(&k.p, 0xa000);
	fk_cap_put_uvarint(&k.p, 100), fk_cap_put_uvarint(&k.p, 4);
	chunk(&k, FK_CAP_ALLOCS);
	for (int i = 0; i < 4; i++)
		fk_cap_put_uvarint(&k.p, 0);
	chunk(&k, FK_CAP_END);
	return k;
}

static void load(struct cap *k, struct fk_capture *c, struct fk_diag *d)
{
	fk_diag_init(d, "test");
	d->quiet = true;
	struct fk_input in;
	assert_true(fk_input_open_memory(&in, "t.cap", k->file.p, k->file.len, d));
	assert_true(fk_capture_load_input(&in, c, false, d));
	fk_input_close(&in);
}

static void free_cap(struct cap *k)
{
	fk_cap_buf_free(&k->file);
	fk_cap_buf_free(&k->p);
}

static void test_capture_frames(void **state)
{
	(void)state;
	struct cap k = build(true);
	struct fk_capture c;
	struct fk_diag d;
	load(&k, &c, &d);
	assert_int_equal(c.npyframes, 3);
	assert_int_equal(c.pyframes[0].id, 1); /* kept in id order */
	assert_int_equal(c.pyframes[2].id, 3);
	assert_string_equal(fk_capture_python_frame(&c, 2)->file, "/home/u/proj/train.py");
	assert_null(fk_capture_python_frame(&c, 9));
	assert_int_equal(c.bad_records, 1); /* id 2 defined again */
	assert_int_equal(c.missing_pyframes, 1);
	assert_string_equal(c.python_status, "CPython 3.11.2: frames on");
	assert_string_equal(c.cwd, "/home/u/proj");
	assert_int_equal(c.python_faults, 12);
	char loss[400];
	assert_true(fk_capture_loss(&c, loss, sizeof loss));
	assert_non_null(strstr(loss, "1 stack frame names a Python frame no chunk defined"));

	struct fk_cap_fold_opts o = { .metric = FK_METRIC_SAMPLES };
	char *out = fold_text(&c, &o);
	assert_string_equal(out,
		"[unknown] 1\n"
		"[unknown];train.py(30):_<module>;[lost python frame] 1\n"
		"[unknown];train.py(30):_<module>;[unknown];train.py(14):_Model.step 1\n"
		"[unknown];train.py(30):_<module>;[unknown];train.py(14):_Model.step;[unknown];"
		"torch/nn/modules/linear.py(116):_Linear.forward 2\n"
		"[unknown];train.py(30):_<module>;[unknown];train.py(14):_Model.step;[unknown];"
		"torch/nn/modules/linear.py(116):_Linear.forward;[unknown];[unknown] 5\n");
	free(out);
	/* --python-only: no native frame above or between Python frames; those
	 * below the innermost kept; a stack without Python frames unchanged. */
	o.python.only = true;
	o.python.names = FK_PY_NAMES_TORCH;
	out = fold_text(&c, &o);
	assert_string_equal(out,
		"[unknown] 1\n"
		"train.py(1):_<module>;[lost python frame] 1\n"
		"train.py(1):_<module>;train.py(10):_step 1\n"
		"train.py(1):_<module>;train.py(10):_step;torch/nn/modules/linear.py(113):_forward 2\n"
		"train.py(1):_<module>;train.py(10):_step;torch/nn/modules/linear.py(113):_forward;"
		"[unknown];[unknown] 5\n");
	free(out);
	/* Allocation stacks: the same names (the memory timeline's stacks too). */
	o = (struct fk_cap_fold_opts){ .metric = FK_METRIC_ALLOC_BYTES };
	o.python.only = true;
	out = fold_text(&c, &o);
	assert_string_equal(out,
		"train.py(30):_<module>;train.py(14):_Model.step 100\n"
		"train.py(30):_<module>;train.py(14):_Model.step;"
		"torch/nn/modules/linear.py(116):_Linear.forward;[unknown];[unknown] 4096\n");
	free(out);
	struct fk_mem_timeline tl;
	fk_mem_init(&tl);
	o.python.names = FK_PY_NAMES_TORCH;
	assert_true(fk_capture_memory_opts(&c, &o, &tl, &d));
	assert_int_equal(tl.count, 2);
	struct fk_mem_event ev;
	fk_mem_get(&tl, 1, &ev);
	assert_int_equal(ev.bytes, 100);
	assert_string_equal(fk_mem_stack_text(&tl, ev.stack)->p,
			    "train.py(1):_<module>;train.py(10):_step");
	fk_mem_free(&tl);
	/* stackcap info */
	char *info = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&info, &len);
	fk_capture_info(f, "t.cap", &c);
	fclose(f);
	assert_non_null(strstr(info, "\npython:      CPython 3.11.2: frames on; 3 distinct Python "
				     "frames; 12 walks stopped by the fault guard\n"));
	free(info);
	fk_capture_free(&c);
	free_cap(&k);
}

/* A capture of a program that is not Python: no python line. */
static void test_info_without_python(void **state)
{
	(void)state;
	struct cap k = { 0 };
	struct fk_cap_header h = { .version = FK_CAP_VERSION, .pid = 7, .sample_hz = 1000 };
	uint8_t hdr[FK_CAP_HEADER_SIZE];
	fk_cap_header_encode(hdr, &h);
	fk_cap_put_bytes(&k.file, hdr, sizeof hdr);
	meta(&k, "command", "./a.out");
	chunk(&k, FK_CAP_META);
	struct fk_capture c;
	struct fk_diag d;
	load(&k, &c, &d);
	char *info = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&info, &len);
	fk_capture_info(f, "t.cap", &c);
	fclose(f);
	assert_null(strstr(info, "python:"));
	free(info);
	fk_capture_free(&c);
	free_cap(&k);
}

/* The PYFRAMES chunk damaged: its frames are lost, the stacks naming them
 * say so, and the loss says why. */
static void test_damaged_pyframes_chunk(void **state)
{
	(void)state;
	struct cap k = build(false);
	k.file.p[k.pyframes_at + FK_CAP_CHUNK_HEADER_SIZE + k.pyframes_len / 2] ^= 0x10;
	struct fk_capture c;
	struct fk_diag d;
	load(&k, &c, &d);
	assert_int_equal(c.status.damaged, 1);
	assert_int_equal(c.npyframes, 1); /* the second chunk's id 2 */
	assert_int_equal(c.missing_pyframes, 3);
	assert_null(c.python_status);
	char loss[400];
	assert_true(fk_capture_loss(&c, loss, sizeof loss));
	assert_non_null(strstr(loss, "1 damaged chunk skipped"));
	assert_non_null(strstr(loss, "3 stack frames name a Python frame no chunk defined"));
	struct fk_cap_fold_opts o = { .metric = FK_METRIC_SAMPLES };
	o.python.only = true;
	char *out = fold_text(&c, &o);
	assert_string_equal(out,
		"[lost python frame];/elsewhere.py(1):_no 1\n"
		"[lost python frame];/elsewhere.py(1):_no;[lost python frame] 2\n"
		"[lost python frame];/elsewhere.py(1):_no;[lost python frame];[unknown];[unknown] 5\n"
		"[lost python frame];[lost python frame] 1\n"
		"[unknown] 1\n");
	free(out);
	fk_capture_free(&c);
	free_cap(&k);
}

/* The script's directory, torch's sys.path[0]: from the command and cwd. */
static void test_script_dir(void **state)
{
	(void)state;
	static const struct {
		const char *command, *cwd, *want;
	} cases[] = {
		{ "/usr/bin/python3 /work/samples/mlp.py", "/tmp", "/work/samples" },
		{ "python3 sub/x.py --steps 3", "/tmp", "/tmp/sub" },
		{ "python3 x.py", "/home/u", "/home/u" },
		{ "python3 -u ./train.py", "/srv", "/srv/." },
		{ "python3 -m pkg.train", "/srv", NULL },
		{ "python3 x.py", NULL, NULL },   /* relative, and no cwd recorded */
		{ "/opt/app", "/srv", NULL },     /* not Python at all */
		{ "python3 .py", "/srv", NULL },  /* no name before ".py" */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct fk_capture c;
		memset(&c, 0, sizeof c);
		c.command = (char *)cases[i].command;
		c.cwd = (char *)cases[i].cwd;
		char *dir = fk_capture_script_dir(&c);
		if (!cases[i].want)
			assert_null(dir);
		else
			assert_string_equal(dir, cases[i].want);
		free(dir);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_round_trip),
		cmocka_unit_test(test_decode_invalid),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_option_values),
		cmocka_unit_test(test_capture_frames),
		cmocka_unit_test(test_info_without_python),
		cmocka_unit_test(test_damaged_pyframes_chunk),
		cmocka_unit_test(test_script_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
