/* gen.c - deterministic generator of a large torch-style stack file for
 * `make bench`: deep Python-like stacks ("file.py(LINE):_func;...;<built-in
 * method ...>"), a fixed set of unique stacks repeated with a skewed
 * distribution, integer microsecond values. Same bytes on every run.
 *
 * Usage: gen BYTES [UNIQUE_STACKS [MIN_DEPTH MAX_DEPTH [uniform|once]]] > file
 * (defaults: 100000 unique stacks, depth 20..40, skewed choice; once: each
 * unique stack on one line, in a shuffled order, BYTES ignored: the worst
 * case for memory, nothing repeats)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state = 0x9E3779B97F4A7C15ull;

static uint64_t next(void) /* xorshift64*: small, fast, reproducible */
{
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 2685821657736338717ull;
}

static uint64_t below(uint64_t n) { return next() % n; }

static const char *const dirs[] = { "torch/nn/modules", "torch/nn", "torch/optim", "torch/autograd",
				    "torch/utils/data", "transformers/models/llama", "train", "model" };
static const char *const files[] = { "linear.py", "activation.py", "container.py", "module.py",
				     "functional.py", "optimizer.py", "adam.py", "dataloader.py",
				     "modeling_llama.py", "attention.py", "mlp.py", "step.py" };
static const char *const funcs[] = { "forward", "_call_impl", "_wrapped_call_impl", "backward",
				     "step", "zero_grad", "__next__", "_next_data", "gelu", "linear",
				     "softmax", "layer_norm", "matmul", "dropout", "apply_rotary" };

#define NAMES 4096

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: gen BYTES [UNIQUE_STACKS]\n");
		return 2;
	}
	unsigned long long target = strtoull(argv[1], NULL, 10);
	unsigned long unique = argc > 2 ? strtoul(argv[2], NULL, 10) : 100000;
	unsigned min_depth = argc > 4 ? (unsigned)atoi(argv[3]) : 20;
	unsigned max_depth = argc > 4 ? (unsigned)atoi(argv[4]) : 40;
	int uniform = argc > 5 && strcmp(argv[5], "uniform") == 0;
	int once = argc > 5 && strcmp(argv[5], "once") == 0;
	if (unique == 0)
		unique = 1;
	if (min_depth < 1 || max_depth < min_depth || max_depth > 255) {
		fprintf(stderr, "gen: depth must be 1 <= MIN <= MAX <= 255\n");
		return 2;
	}

	static char names[NAMES][96];
	for (int i = 0; i < NAMES; i++) {
		if (i % 16 == 15)
			snprintf(names[i], sizeof names[i], "nn.Module:_%s_%d", funcs[below(15)], (int)below(64));
		else if (i % 16 == 14)
			snprintf(names[i], sizeof names[i], "<built-in_method_%s_of_type_object_at_0x7f%010llx>",
				 funcs[below(15)], (unsigned long long)below(1ull << 40));
		else
			snprintf(names[i], sizeof names[i], "%s/%s(%d):_%s", dirs[below(8)], files[below(12)],
				 (int)(1 + below(2000)), funcs[below(15)]);
	}
	/* Unique stacks share prefixes like real call trees: each extends a
	 * prefix of an earlier one. */
	uint16_t **stacks = malloc(unique * sizeof *stacks);
	uint8_t *depth = malloc(unique);
	if (!stacks || !depth)
		return 1;
	for (unsigned long u = 0; u < unique; u++) {
		depth[u] = (uint8_t)(min_depth + below(max_depth - min_depth + 1));
		stacks[u] = malloc(depth[u] * sizeof **stacks);
		if (!stacks[u])
			return 1;
		unsigned keep = 0;
		if (u > 0) {
			unsigned long parent = below(u);
			keep = (unsigned)below(depth[parent] < depth[u] ? depth[parent] : depth[u]);
			memcpy(stacks[u], stacks[parent], keep * sizeof **stacks);
		}
		for (unsigned d = keep; d < depth[u]; d++)
			stacks[u][d] = (uint16_t)below(NAMES);
	}
	static char buf[1 << 16];
	setvbuf(stdout, buf, _IOFBF, sizeof buf);
	unsigned long long written = 0;
	unsigned long *order = NULL;
	if (once) { /* a permutation: stacks that share prefixes are not neighbours */
		target = ~0ull;
		if (!(order = malloc(unique * sizeof *order)))
			return 1;
		for (unsigned long i = 0; i < unique; i++)
			order[i] = i;
		for (unsigned long i = unique - 1; i > 0; i--) {
			unsigned long j = (unsigned long)below(i + 1), t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
	}
	for (unsigned long line = 0; written < target && (!once || line < unique); line++) {
		/* Skewed choice: small ids are much more frequent. */
		uint64_t r = below(unique);
		unsigned long u = once ? order[line]
				  : uniform ? (unsigned long)r : (unsigned long)(r * below(unique) / unique);
		int n = 0;
		for (unsigned d = 0; d < depth[u]; d++)
			n += printf("%s%s", d ? ";" : "", names[stacks[u][d]]);
		n += printf(" %llu\n", (unsigned long long)(1 + below(1000)));
		written += (unsigned long long)n;
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
