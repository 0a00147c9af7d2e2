# flamekit - the one build entry. See README.md.
#   make            build the commands into build/
#   make test       unit + end-to-end tests ("N passed, N failed, N skipped"); SANITIZE=1: ASan+UBSan;
#                   ONLY=pattern: only the matching cases
#   make demo       render the samples into out/
#   make bench      speed and memory figures (never a test)
#   make install    PREFIX=/usr/local DESTDIR=
#   make deps       install missing Debian packages (apt-get when root)

CC       ?= cc
PREFIX   ?= /usr/local
DESTDIR  ?=
SANITIZE ?= 0

ifeq ($(SANITIZE),1)
BUILD    := build-san
OPTFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
else
BUILD    := build
OPTFLAGS := -O2 -g
endif

WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter
# CFLAGS/LDFLAGS from the command line or environment are added, never lost.
CFLAGS   ?=
LDFLAGS  ?=
FK_CFLAGS  = -std=c11 -D_GNU_SOURCE -I. $(OPTFLAGS) $(WARN) -MMD -MP $(CFLAGS)
FK_LDFLAGS = $(filter -fsanitize=%,$(OPTFLAGS)) $(LDFLAGS)
LIBS     := -lyajl -lcairo -lfontconfig -ldw -lelf -liberty -lz -lzstd -lpcre2-8 -lm -pthread

# Debian packages needed to build, test and demo.
DEPS_PKGS := gcc make zlib1g-dev libzstd-dev zstd libxxhash-dev libpcre2-dev libcmocka-dev perl \
	     libyajl-dev libcairo2-dev libpng-dev fonts-dejavu-core python3 \
	     libunwind-dev libdw-dev libelf-dev libiberty-dev binutils g++ python3-torch \
	     golang-go musl-tools

COMMANDS := stackfold flamegraph memtimeline stackcap
MAINS    := analysis/stackfold.c render/flamegraph.c analysis/memtimeline.c capture/stackcap.c \
	    capture/stackcap_read.c
LIB_SRCS := $(filter-out $(MAINS) render/embed.c,$(wildcard formats/*.c analysis/*.c analysis/*/*.c render/*.c)) capture/launch.c
# The capture shim: preloaded into programs, so position-independent and
# never sanitized (a sanitizer runtime must come first in a process).
# Its CUDA side is built against the toolkit's headers when they are there
# (libcupti itself is loaded at run time); without them, nocuda.c.
CUDA_HOME ?= /usr/local/cuda
HAVE_CUPTI := $(wildcard $(CUDA_HOME)/include/cupti.h)
SHIM_SRCS := capture/shim.c capture/writer.c capture/alloc.c capture/expgap.c capture/freefilter.c capture/sampleset.c capture/shimheap.c capture/cfi.c capture/cfiunwind.c capture/stackbounds.c formats/capwrite.c \
	     capture/window.c capture/togglesig.c capture/cudaprof.c formats/capwindow.c capture/sigmask.c \
	     capture/python.c capture/pyguard.c capture/pycache.c capture/pystack.c capture/pyframes.c capture/stackmemo.c \
	     $(if $(HAVE_CUPTI),capture/cupti.c capture/gpurec.c capture/nvtx.c,capture/nocuda.c)
SHIM_OBJS := $(SHIM_SRCS:%.c=$(BUILD)/pic/%.o)
SHIM_CFLAGS = -std=c11 -D_GNU_SOURCE -I. -O2 -g -fPIC -fvisibility=default -fno-omit-frame-pointer $(WARN) -MMD -MP \
	      $(if $(HAVE_CUPTI),-I$(CUDA_HOME)/include) $(CFLAGS)
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/gen/assets.o
BINS     := $(COMMANDS:%=$(BUILD)/%)

.PHONY: all test run-tests demo bench fuzz install clean deps
# Sample programs with known answers (stackcap's tests and demo): built
# plainly, never sanitized, with frame pointers and no sibling calls so
# every function keeps its frame.
SAMPLE_PROGS := $(patsubst samples/capture/%.c,$(BUILD)/samples/%,$(wildcard samples/capture/*.c))
SAMPLE_CFLAGS = -std=c11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls \
	$(WARN) -pthread

# CUDA samples, when nvcc is there (they need a GPU to run, not to build).
NVCC ?= $(CUDA_HOME)/bin/nvcc
HAVE_NVCC := $(wildcard $(NVCC))
CUDA_SAMPLES := $(if $(HAVE_NVCC),$(patsubst samples/cuda/%.cu,$(BUILD)/samples/cuda/%,$(wildcard samples/cuda/*.cu)))

all: $(BINS) $(BUILD)/stackcap-read $(BUILD)/libstackcap.so $(SAMPLE_PROGS) $(CUDA_SAMPLES)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(FK_CFLAGS) -c $< -o $@

# The viewer's JS and CSS are real files, embedded at build time.
$(BUILD)/embed: render/embed.c
	@mkdir -p $(dir $@)
	$(CC) $(FK_CFLAGS) $< -o $@
$(BUILD)/gen/assets.c: $(BUILD)/embed render/flamegraph.js render/flamegraph.css
	@mkdir -p $(dir $@)
	$(BUILD)/embed $@ fk_asset_flamegraph_js=render/flamegraph.js fk_asset_flamegraph_css=render/flamegraph.css
$(BUILD)/gen/assets.o: $(BUILD)/gen/assets.c
	$(CC) $(FK_CFLAGS) -Irender -c $< -o $@

$(BUILD)/libflamekit.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/stackfold: $(BUILD)/analysis/stackfold.o $(BUILD)/libflamekit.a
	$(CC) $(FK_LDFLAGS) $^ $(LIBS) -o $@
$(BUILD)/flamegraph: $(BUILD)/render/flamegraph.o $(BUILD)/libflamekit.a
	$(CC) $(FK_LDFLAGS) $^ $(LIBS) -o $@
$(BUILD)/memtimeline: $(BUILD)/analysis/memtimeline.o $(BUILD)/libflamekit.a
	$(CC) $(FK_LDFLAGS) $^ $(LIBS) -o $@
# The launcher every capture starts with links libc alone, statically: no
# dynamic loader's work before it execs the program (0.5-1.3 ms of each
# capture on the AMD VM). With musl when musl-gcc is there: glibc's static
# start reads the CPU's features with cpuid (each a VM exit on a VM) and
# touches more pages: stackcap --version 1.13 ms and 27 page faults, on
# musl 0.50 ms and 7; an empty capture 0.3 ms less. stackcap info and
# export exec stackcap-read, which has the readers' libraries. The
# sanitizers' runtimes are shared libraries: a sanitized launcher links
# dynamically (as-needed: libc).
LAUNCHER_SRCS := capture/stackcap.c capture/launch.c formats/capwindow.c formats/cli.c \
		 formats/diag.c formats/num.c formats/outfile.c
MUSL_CC := $(if $(filter 1,$(SANITIZE)),,$(shell command -v musl-gcc 2>/dev/null))
ifeq ($(SANITIZE),1)
$(BUILD)/stackcap: $(BUILD)/capture/stackcap.o $(BUILD)/libflamekit.a
	$(CC) $(FK_LDFLAGS) $^ -Wl,--as-needed $(LIBS) -o $@
else ifneq ($(MUSL_CC),)
$(BUILD)/stackcap: $(LAUNCHER_SRCS:%.c=$(BUILD)/musl/%.o)
	$(MUSL_CC) $(LDFLAGS) -static $^ -o $@
$(BUILD)/musl/%.o: %.c
	@mkdir -p $(dir $@)
	$(MUSL_CC) $(FK_CFLAGS) -c $< -o $@
else
$(BUILD)/stackcap: $(BUILD)/capture/stackcap.o $(BUILD)/libflamekit.a
	$(CC) $(FK_LDFLAGS) $^ -static -o $@
endif
$(BUILD)/stackcap-read: $(BUILD)/capture/stackcap_read.o $(BUILD)/libflamekit.a
	$(CC) $(FK_LDFLAGS) $^ $(LIBS) -o $@

$(BUILD)/samples/%: samples/capture/%.c
	@mkdir -p $(dir $@)
	$(CC) $(SAMPLE_CFLAGS) $< -o $@

$(BUILD)/samples/cuda/%: samples/cuda/%.cu samples/cuda/check.cuh
	@mkdir -p $(dir $@)
	$(NVCC) -O2 -g -lineinfo -o $@ $<

$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(SHIM_CFLAGS) -c $< -o $@
# Its exports: capture/libstackcap.map (the injection entry points in it
# exist only when built with CUPTI: --undefined-version, or lld refuses).
# zstd and zlib are linked in when their static archives are there
# (Debian's -dev packages ship them, position-independent): two libraries
# fewer for the loader of every traced process, 0.27 ms of its start on
# the VM; the version script keeps their symbols the shim's own.
# libunwind's archive is not position-independent: it stays a library.
SHIM_STATIC := $(and $(filter /%,$(shell $(CC) -print-file-name=libzstd.a)),$(filter /%,$(shell $(CC) -print-file-name=libz.a)))
SHIM_COMPRESS_STATIC := -Wl,-Bstatic -lzstd -lz -Wl,-Bdynamic
SHIM_COMPRESS := $(if $(SHIM_STATIC),$(SHIM_COMPRESS_STATIC),-lzstd -lz)
$(BUILD)/libstackcap.so: $(SHIM_OBJS) capture/libstackcap.map
	$(CC) -shared -Wl,-z,defs -Wl,--version-script=capture/libstackcap.map -Wl,--undefined-version \
		$(LDFLAGS) $(SHIM_OBJS) $(SHIM_COMPRESS) -lunwind -ldl -pthread -o $@

# Unit tests: one cmocka program per tests/unit/test_*.c.
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libflamekit.a
	@mkdir -p $(dir $@)
	$(CC) $(FK_CFLAGS) -Wno-missing-prototypes $(FK_LDFLAGS) $< $(BUILD)/libflamekit.a $(LIBS) -lpng -lcmocka -o $@
# test_stackset makes the library's reallocs fail (its out-of-memory paths).
$(BUILD)/tests/test_stackset: FK_LDFLAGS += -Wl,--wrap=realloc
# test_folded_write makes an output block's malloc fail.
$(BUILD)/tests/test_folded_write: FK_LDFLAGS += -Wl,--wrap=malloc
$(BUILD)/tests/test_load_oom: FK_LDFLAGS += -Wl,--wrap=malloc,--wrap=realloc,--wrap=calloc

# The CUDA side's record layer, against real libcupti (no GPU needed).
ifneq ($(HAVE_CUPTI),)
CUDA_TESTS := $(BUILD)/tests/test_gpurec
endif
$(BUILD)/tests/test_gpurec: tests/unit/cuda/test_gpurec.c capture/gpurec.c $(BUILD)/libflamekit.a
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(FK_CFLAGS)) -Wno-missing-prototypes -I$(CUDA_HOME)/include $(FK_LDFLAGS) \
		tests/unit/cuda/test_gpurec.c capture/gpurec.c $(BUILD)/libflamekit.a $(LIBS) -ldl -lcmocka -o $@

# The shim's pure functions: Python frames (line tables, the merge, names),
# the sampled-address set, the shim's own heap, the writer's stack memo,
# the event ring, the sampled allocations' gaps (held against libm) and the
# main thread's stack bounds (held against pthread_getattr_np).
CAPTURE_TESTS := $(BUILD)/tests/test_pystack $(BUILD)/tests/test_sampleset $(BUILD)/tests/test_shimheap \
		 $(BUILD)/tests/test_stackmemo $(BUILD)/tests/test_ring $(BUILD)/tests/test_cfiunwind \
		 $(BUILD)/tests/test_expgap $(BUILD)/tests/test_stackbounds
# Each is its test program and the one file it tests (ring.h: a header;
# the unwinder: its rules too, and libunwind to hold it against; the
# sampled set and the shim's heap: the free hook's filter they count in).
$(BUILD)/tests/test_ring: capture/ring.h
$(BUILD)/tests/test_cfiunwind: capture/cfi.c
$(BUILD)/tests/test_sampleset $(BUILD)/tests/test_shimheap: capture/freefilter.c
$(BUILD)/tests/test_cfiunwind: TEST_LIBS := -lunwind -pthread
$(BUILD)/tests/test_expgap: TEST_LIBS := -lm
$(BUILD)/tests/test_sampleset $(BUILD)/tests/test_stackbounds: TEST_LIBS := -pthread
$(filter-out %/test_ring,$(CAPTURE_TESTS)): $(BUILD)/tests/test_%: capture/%.c
$(CAPTURE_TESTS): $(BUILD)/tests/test_%: tests/unit/capture/test_%.c
	@mkdir -p $(dir $@)
	$(CC) $(filter-out -MMD -MP,$(FK_CFLAGS)) -Wno-missing-prototypes $(FK_LDFLAGS) $(filter %.c,$^) -lcmocka $(TEST_LIBS) -o $@

# deps first, then the build (which may run in parallel).
test: deps
	@$(MAKE) --no-print-directory run-tests
run-tests: all $(UNIT_BINS) $(CUDA_TESTS) $(CAPTURE_TESTS) $(BUILD)/bench-gen $(BUILD)/bench-genmem \
	   $(BUILD)/bench-gencap
	@BUILD=$(BUILD) sh tests/run.sh

$(BUILD)/bench-gen: tests/bench/gen.c
	@mkdir -p $(dir $@)
	$(CC) $(FK_CFLAGS) $< -o $@
$(BUILD)/bench-genmem: tests/bench/genmem.c
	@mkdir -p $(dir $@)
	$(CC) $(FK_CFLAGS) $< -o $@
$(BUILD)/bench-mallocloop: tests/bench/mallocloop.c
	@mkdir -p $(dir $@)
	$(CC) $(FK_CFLAGS) -fno-omit-frame-pointer $< -o $@
$(BUILD)/bench-interposer.so: tests/bench/interposer.c
	@mkdir -p $(dir $@)
	$(CC) $(FK_CFLAGS) -fPIC -shared $< -ldl -o $@
$(BUILD)/bench-gencap: tests/bench/gencap.c $(BUILD)/libflamekit.a
	@mkdir -p $(dir $@)
	$(CC) $(FK_CFLAGS) $(FK_LDFLAGS) $< $(BUILD)/libflamekit.a $(LIBS) -o $@

demo: deps
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) sh tests/demo.sh

bench: deps
	@$(MAKE) --no-print-directory all $(BUILD)/bench-gen $(BUILD)/bench-genmem $(BUILD)/bench-gencap \
		$(BUILD)/bench-mallocloop $(BUILD)/bench-interposer.so
	@BUILD=$(BUILD) sh tests/bench/bench.sh

# Fuzzing (clang's libFuzzer): the whole pipeline on arbitrary bytes, in
# memory. Each harness starts from committed seeds (copied: libFuzzer adds
# what it finds to its first corpus directory), mutates with its format's
# tokens (tests/fuzz/dict/) and prints its execs/s.
FUZZ_SECONDS ?= 60
FUZZ_HARNESSES := stacks capture chunks
FUZZ_SEEDS_stacks := tests/e2e/data/*.txt samples/torch/stacks_gelu_fused.txt
FUZZ_SEEDS_capture := tests/fuzz/corpus/capture/* samples/torch/memory_documented_example.raw.json \
		      tests/e2e/perf/*.perf.txt tests/e2e/trace/*.json tests/e2e/dtrace/odd.stacks
FUZZ_SEEDS_chunks := tests/fuzz/corpus/chunks/*
# The library keeps libFuzzer's comparison tracing: it halves the execs/s
# but finds more of the code in the same minute (README, Tests).
fuzz:
	@$(MAKE) --no-print-directory CC=clang SANITIZE=1 BUILD=build-fuzz CFLAGS="-fsanitize=fuzzer-no-link -O2" build-fuzz/libflamekit.a
	@for h in $(FUZZ_HARNESSES); do \
	  clang -std=c11 -D_GNU_SOURCE -I. -g -O2 -fsanitize=fuzzer,address,undefined $(WARN) \
		tests/fuzz/fuzz_$$h.c build-fuzz/libflamekit.a $(LIBS) -o build-fuzz/fuzz_$$h || exit 1; \
	done
	@set -e; \
	$(foreach h,$(FUZZ_HARNESSES),rm -rf build-fuzz/corpus-$(h); mkdir -p build-fuzz/corpus-$(h); \
	  cp $(FUZZ_SEEDS_$(h)) build-fuzz/corpus-$(h)/;) \
	for h in $(FUZZ_HARNESSES); do \
	  echo "fuzz: $$h for $(FUZZ_SECONDS) s"; \
	  build-fuzz/fuzz_$$h -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -print_final_stats=1 \
		-dict=tests/fuzz/dict/$$h.dict -artifact_prefix=build-fuzz/$$h- \
		build-fuzz/corpus-$$h > build-fuzz/fuzz_$$h.log 2>&1 || { tail -60 build-fuzz/fuzz_$$h.log; exit 1; }; \
	  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' build-fuzz/fuzz_$$h.log | \
		sed "s/^/fuzz: $$h: /"; \
	done

install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BINS) $(DESTDIR)$(PREFIX)/bin/
	install -d $(DESTDIR)$(PREFIX)/lib/flamekit
	install -m 755 $(BUILD)/libstackcap.so $(BUILD)/stackcap-read $(DESTDIR)$(PREFIX)/lib/flamekit/

clean:
	rm -rf build build-san build-fuzz out

# Installs what is missing, and only that; waits up to 10 minutes for
# another apt holding the dpkg lock. Not root: print the command.
DEPS_RETRY_SECONDS ?= 10
deps:
	@missing=""; for p in $(DEPS_PKGS); do \
	  dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "make deps: installing$$missing"; \
	  tries=0; until DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -q; do \
	    tries=$$((tries + 1)); [ $$tries -lt 60 ] || exit 1; \
	    echo "make deps: apt is busy (another apt or dpkg?); trying again in $(DEPS_RETRY_SECONDS) s"; sleep $(DEPS_RETRY_SECONDS); \
	  done; \
	  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q \
		--no-install-recommends $$missing; \
	else \
	  echo "make deps: missing Debian packages. Run:"; \
	  echo "  sudo apt-get install -y$$missing"; exit 1; \
	fi

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
