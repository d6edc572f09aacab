# t/san/san.mk -- the sanitizer builds, included by the top-level
# GNUmakefile (which defines B, CC, Q, SAN_CFLAGS, the object lists and
# the suite).
#
#   make check-asan   builds the command (build-asan/heapprof), the unit
#                     tests and the fuzz targets' drivers with ASan and
#                     UBSan (-fno-sanitize-recover) into build-asan/, next
#                     to the library and test programs of a normal build
#                     (a preloaded library cannot be instrumented: the
#                     programs it is preloaded into are not), and runs the
#                     unit tests and every test that runs the command
#                     (ASAN_TESTS) against it.  Any sanitizer report fails
#                     it, whatever the test made of the status.  The
#                     runtimes are linked statically: the command's own
#                     malloc then comes first even when a test runs it
#                     with LD_PRELOAD set (a jemalloc to pass on).
#   make check-tsan   builds the library's objects and the harness
#                     t/san/tsan-*.c with TSan into build-tsan/ and runs
#                     each harness program: threads hammering the live
#                     table, the stack table, the trigger and the helper
#                     thread's wake-up.  Any report fails it.

ASAN_B     := build-asan
ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
              -static-libasan -static-libubsan
# The unit tests, and every test that runs the command ($BIN).
ASAN_TESTS ?= t/0100-unit.t $(shell grep -l '$$BIN' t/*.t)

TSAN_B     := build-tsan
# -Wno-tsan: record/peak.c orders its atomics with fences, which TSan does
# not model; every access there is atomic, so no race can be reported
# (nor disproved) by it.
TSAN_FLAGS := -fsanitize=thread -O1 -g -fno-omit-frame-pointer -Wno-tsan
TSAN_PROGS := $(patsubst t/san/%.c,$(TSAN_B)/%,$(sort $(wildcard t/san/tsan-*.c)))

.PHONY: check-asan check-tsan san-progs

# What a sanitizer build of B makes (run with B and SAN_CFLAGS set).
san-progs: $(B)/heapprof $(UNIT_PROGS) $(FUZZ_DRIVERS)

# report DIR: prints the sanitizer logs in DIR and fails if there are any.
SAN_REPORT = if [ -n "$$(ls $(1) 2>/dev/null)" ]; then \
	  for f in $(1)/*; do echo "== $$f"; head -n 40 "$$f"; done; \
	  echo "$@: sanitizer reports above ($(1))"; exit 1; fi

check-asan:
	@$(MAKE) --no-print-directory all tprogs
	@$(MAKE) --no-print-directory B=$(ASAN_B) SAN_CFLAGS='$(ASAN_FLAGS)' san-progs
	@cp -p $(B)/libheapprof.so $(ASAN_B)/
	@for f in $(B)/t/*; do [ ! -f "$$f" ] || cp -p "$$f" $(ASAN_B)/t/; done
	@# t/0612's LeakSanitizer builds live in a folder of their own
	@[ ! -d $(B)/t/lsan ] || { mkdir -p $(ASAN_B)/t/lsan && cp -p $(B)/t/lsan/* $(ASAN_B)/t/lsan/; }
	@rm -rf $(ASAN_B)/san && mkdir -p $(ASAN_B)/san
	@st=0; ASAN_OPTIONS=log_path=$(CURDIR)/$(ASAN_B)/san/asan:detect_leaks=1:exitcode=86 \
	  UBSAN_OPTIONS=log_path=$(CURDIR)/$(ASAN_B)/san/ubsan:print_stacktrace=1:halt_on_error=1:exitcode=86 \
	  HP_SANITIZE=asan HP_BUILD=$(CURDIR)/$(ASAN_B) HP_SRC=$(CURDIR) $(PROVE) -j$(JOBS) $(ASAN_TESTS) || st=$$?; \
	  $(call SAN_REPORT,$(ASAN_B)/san); exit $$st

# ---- TSan ----------------------------------------------------------------

TSAN_LIB_OBJS := $(filter-out $(TSAN_B)/lib/intercept/% $(TSAN_B)/lib/control/lifecycle.o $(TSAN_B)/lib/control/attach.o, \
                 $(LIB_SRCS:src/lib/%.c=$(TSAN_B)/lib/%.o))

$(TSAN_B)/lib/%.o: src/lib/%.c
	@mkdir -p $(@D)
	@$(if $(Q),echo '  TSANCC  $<')
	$(Q)$(CC) $(HP_CFLAGS) $(TSAN_FLAGS) $(LIB_CFLAGS) -c -o $@ $<

$(TSAN_B)/%: t/san/%.c t/san/tsan.h $(TSAN_LIB_OBJS)
	@mkdir -p $(@D)
	@$(if $(Q),echo '  TSANCC  $<')
	$(Q)$(CC) $(HP_CFLAGS) $(TSAN_FLAGS) -pthread -Isrc/lib -Isrc -It/san -o $@ $< $(TSAN_LIB_OBJS) \
	  $(LIB_LIBS) -lm

.SECONDARY: $(TSAN_LIB_OBJS)

-include $(wildcard $(TSAN_B)/lib/*/*.d $(TSAN_B)/*.d)

check-tsan: $(TSAN_PROGS)
	@rm -rf $(TSAN_B)/san && mkdir -p $(TSAN_B)/san
	@st=0; for p in $(TSAN_PROGS); do \
	  TSAN_OPTIONS=log_path=$(CURDIR)/$(TSAN_B)/san/tsan:halt_on_error=1:exitcode=86:second_deadlock_stack=1 \
	    timeout 300 $$p || { echo "$$p: status $$?"; st=1; }; \
	done; $(call SAN_REPORT,$(TSAN_B)/san); exit $$st
