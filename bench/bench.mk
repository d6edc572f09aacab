# bench/bench.mk -- the benchmark suite's rules, included by the top-level
# GNUmakefile (which defines B, CC, CXX, Q, deps and all).
#
#   make bench-progs   the workloads and the measuring tool (make check
#                      builds them: t/0950-bench.t runs the suite once, tiny)
#   make bench         the whole suite against glibc, jemalloc, tcmalloc and
#                      heaptrack: bench/RESULTS.md and bench/results.svg;
#                      then the unwinders (bench/unwind) and the leak gate
#                      (bench/gate.sh), appended to RESULTS.md

BENCH_CFLAGS := -O2 -g -fno-omit-frame-pointer -pthread
GATE_PROGS   := $(B)/bench/forktests $(B)/bench/bigheap-lsan $(B)/bench/forktests-lsan   # bench/gate.sh
BENCH_PROGS  := $(B)/bench/measure $(B)/bench/churn $(B)/bench/cxxwork $(B)/bench/dumplat $(B)/bench/bigheap \
                $(B)/bench/tiny.i $(B)/bench/deep.i $(B)/bench/unwind $(GATE_PROGS)

bench-progs: $(BENCH_PROGS)

$(B)/bench/measure $(B)/bench/churn: $(B)/bench/%: bench/%.c
	@mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 -Wall $(BENCH_CFLAGS) -o $@ $<

$(B)/bench/cxxwork: bench/cxxwork.cc
	@mkdir -p $(@D)
	$(Q)$(CXX) -Wall $(BENCH_CFLAGS) -o $@ $<

# Distinct call sites per stack: no identical-code folding, no tail calls.
$(B)/bench/dumplat: bench/dumplat.c
	@mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 -Wall -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls \
	  -fno-ipa-icf -pthread -o $@ $< -ldl

# cc1's inputs: a small one for --tiny, a generated 1.3-second one for
# callgrind, and SQLite's amalgamation as the npm package better-sqlite3
# ships it (pinned, checked), for the timed runs.
$(B)/bench/tiny.i: bench/dumplat.c
	@mkdir -p $(@D)
	$(Q)$(CC) -E -P -o $@ $<

$(B)/bench/deep.i: bench/gen-deep.py
	@mkdir -p $(@D)
	$(Q)python3 bench/gen-deep.py --levels 10 --width 40 --stacks 100 >$(B)/bench/deep.c
	$(Q)$(CC) -E -P -o $@ $(B)/bench/deep.c

SQLITE_NPM := better-sqlite3-12.4.1.tgz
SQLITE_SHA := 14398acbf00d1e8fe0a2753df7d4f15c13138e4b874f4e6e96791f65b4536d0d
$(B)/bench/sqlite3.i:
	@mkdir -p $(@D)/sqlite
	curl -sSfL -o $(@D)/sqlite/$(SQLITE_NPM) https://registry.npmjs.org/better-sqlite3/-/$(SQLITE_NPM)
	echo '$(SQLITE_SHA)  $(@D)/sqlite/$(SQLITE_NPM)' | sha256sum -c --quiet
	tar -xzf $(@D)/sqlite/$(SQLITE_NPM) -C $(@D)/sqlite package/deps/sqlite3/sqlite3.c package/deps/sqlite3/sqlite3.h
	$(CC) -E -P -o $@.tmp $(@D)/sqlite/package/deps/sqlite3/sqlite3.c && mv $@.tmp $@

# The whole suite: about an hour on 2 cores (64 minutes for the committed
# bench/RESULTS.md).  BENCH_ARGS adds
# options (--rounds, --only, --workloads, --configs: see bench/run).
bench:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all bench-progs $(B)/bench/sqlite3.i
	HP_BUILD=$(CURDIR)/$(B) perl bench/run --results bench/RESULTS.md --svg bench/results.svg $(BENCH_ARGS)
	{ printf '\n## The unwinders: ns per frame (make bench-unwind)\n\n```\n'; $(B)/bench/unwind; \
	  printf '```\n\n## The leak gate beside LeakSanitizer and valgrind (make bench-gate)\n\n'; \
	  HP_BUILD=$(CURDIR)/$(B) sh bench/gate.sh; } >>bench/RESULTS.md

# The leak scan's benchmark (bench/leakscan.sh): not part of make bench's
# hour; make bench-leakscan runs it.
$(B)/bench/bigheap: bench/bigheap.c
	@mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 -Wall $(BENCH_CFLAGS) -o $@ $<

.PHONY: bench-leakscan
bench-leakscan: all $(B)/bench/bigheap
	HP_BUILD=$(CURDIR)/$(B) sh bench/leakscan.sh

# heapprof leaks on a running 1 GiB heap (bench/leakslive.sh): the
# threads' pause and the command's time.
.PHONY: bench-leakslive
bench-leakslive: all $(B)/bench/bigheap
	HP_BUILD=$(CURDIR)/$(B) sh bench/leakslive.sh

# The leak gate beside LeakSanitizer and valgrind (bench/gate.sh): the
# fixtures bare and built with gcc -fsanitize=leak.
$(B)/bench/forktests: bench/forktests.c
	@mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 -Wall $(BENCH_CFLAGS) -o $@ $<

$(B)/bench/bigheap-lsan $(B)/bench/forktests-lsan: $(B)/bench/%-lsan: bench/%.c
	@mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 -Wall $(BENCH_CFLAGS) -fsanitize=leak -o $@ $<

.PHONY: bench-gate
bench-gate: all $(B)/bench/measure $(B)/bench/bigheap $(GATE_PROGS)
	HP_BUILD=$(CURDIR)/$(B) sh bench/gate.sh

# heapprof check against valgrind on the same runs (bench/check-vs-valgrind.sh).
.PHONY: bench-check
bench-check: all $(B)/bench/bigheap
	HP_BUILD=$(CURDIR)/$(B) sh bench/check-vs-valgrind.sh

# The unwinders' micro-benchmark (bench/unwind.c): ns per frame of a
# frame-pointer walk, libunwind, and heapprof's unwinder with and without
# its walk memo, at depths 8, 32 and 128.  It links the library's objects
# as the unit tests do; frame pointers and real calls in its recursion.
$(B)/bench/unwind: bench/unwind.c $(UNIT_OBJS)
	@mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -O2 -fno-omit-frame-pointer -fno-optimize-sibling-calls -fno-ipa-icf \
	  -Isrc/lib -Isrc -o $@ $< $(UNIT_OBJS) $(LIB_LIBS) -lm

.PHONY: bench-unwind
bench-unwind: $(B)/bench/unwind
	$(B)/bench/unwind

# What the peak snapshot and the temporary counts cost, in callgrind
# instructions against the library before them (bench/peakcost.sh).
.PHONY: bench-peakcost
bench-peakcost: all $(B)/bench/churn
	HP_BUILD=$(CURDIR)/$(B) sh bench/peakcost.sh
