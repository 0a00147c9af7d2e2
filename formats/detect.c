/* detect.c - input kinds from their first bytes (see detect.h). */
#include "formats/detect.h"

#include <string.h>

#include "formats/capture.h"
#include "formats/dtrace.h"

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* JSON kinds, from the first characters only: every form starts in a way
 * that stack text and perf script never do. */
static enum fk_input_kind json_kind(const char *p, const char *end)
{
	if (end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) /* a UTF-8 BOM */
		p += 3;
	p = skip_space(p, end);
	if (p == end || (*p != '[' && *p != '{'))
		return FK_KIND_STACKS;
	bool array = *p == '[';
	const char *q = skip_space(p + 1, end);
	if (array) {
		/* torch's raw rows: [[t_ns, action, bytes, category], ...], or [] */
		if (q < end && *q == '[') {
			q = skip_space(q + 1, end);
			if (q < end && (*q == '-' || (*q >= '0' && *q <= '9')))
				return FK_KIND_TORCH_MEMORY;
		} else if (q < end && *q == ']' && skip_space(q + 1, end) == end) {
			return FK_KIND_TORCH_MEMORY;
		} else if (q < end && *q == '{' && skip_space(q + 1, end) < end &&
			   *skip_space(q + 1, end) == '"') {
			return FK_KIND_CHROME_TRACE; /* the bare-array form: [{"name": ...}, ...] */
		}
		return FK_KIND_STACKS;
	}
	if (q == end || (*q != '"' && *q != '}'))
		return FK_KIND_STACKS;
	/* {"schemaVersion": 1, "deviceProperties": [...], ..., "traceEvents": [ */
	return memmem(p, (size_t)(end - p), "\"traceEvents\"", 13) ? FK_KIND_CHROME_TRACE
								    : FK_KIND_JSON;
}

static size_t trimmed_len(const char *line, size_t n, const char *trim)
{
	while (n > 0 && strchr(trim, line[n - 1]))
		n--;
	return n;
}

/* perf script: an event header "comm pid[/tid] ...: ... event:", then a
 * frame "  addr symbol (module)" (old perf: not indented). Comments and
 * blank lines before them are skipped; 200 lines at most are looked at. */
static bool looks_like_perf(const char *p, const char *end)
{
	bool header = false;
	for (int i = 0; i < 200 && p < end; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line = p;
		size_t n = (size_t)((nl ? nl : end) - p);
		p = nl ? nl + 1 : end;
		if (n == 0 || line[0] == '#')
			continue;
		if (!header) {
			size_t t = trimmed_len(line, n, " \t\r");
			header = line[0] != ' ' && line[0] != '\t' && t > 0 && line[t - 1] == ':';
			if (!header)
				return false;
			continue;
		}
		const char *q = line, *lend = line + n;
		while (q < lend && (*q == ' ' || *q == '\t'))
			q++;
		const char *hex = q;
		while (q < lend && ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f')))
			q++;
		size_t t = trimmed_len(line, n, " \r");
		return q > hex && q < lend && (*q == ' ' || *q == '\t') && t > 0 && line[t - 1] == ')';
	}
	return false;
}

enum fk_input_kind fk_detect(const char *p, size_t n)
{
	if (n == 0) /* p may be NULL then */
		return FK_KIND_STACKS;
	if (n >= 8 && memcmp(p, FK_CAP_MAGIC, 8) == 0)
		return FK_KIND_CAPTURE;
	enum fk_input_kind k = json_kind(p, p + n);
	if (k != FK_KIND_STACKS)
		return k;
	if (looks_like_perf(p, p + n))
		return FK_KIND_PERF;
	return fk_dtrace_detect(p, n) ? FK_KIND_DTRACE : FK_KIND_STACKS;
}

static const struct {
	const char *name, *description;
} kinds[] = {
	[FK_KIND_STACKS] = { "stacks", "stack text" },
	[FK_KIND_PERF] = { "perf", "perf script output" },
	[FK_KIND_CAPTURE] = { "capture", "a stackcap capture" },
	[FK_KIND_TORCH_MEMORY] = { "torch-memory", "a torch memory timeline" },
	[FK_KIND_CHROME_TRACE] = { "chrome-trace", "a Chrome/Kineto trace" },
	[FK_KIND_JSON] = { "json", "a JSON document of no known kind" },
	[FK_KIND_DTRACE] = { "dtrace", "DTrace stacks (stackcollapse.pl's input)" },
};

const char *fk_input_kind_name(enum fk_input_kind k)
{
	return kinds[k].name;
}

const char *fk_input_kind_description(enum fk_input_kind k)
{
	return kinds[k].description;
}

bool fk_input_kind_parse(const char *name, enum fk_input_kind *k)
{
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(name, kinds[i].name) == 0) {
			*k = (enum fk_input_kind)i;
			return true;
		}
	return false;
}
