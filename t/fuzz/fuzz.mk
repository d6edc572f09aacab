# t/fuzz/fuzz.mk -- the fuzz targets' rules, included by the top-level
# GNUmakefile (which defines B, CC, Q, the object lists and deps).
#
#   make fuzz          builds every target with clang's libFuzzer, ASan and
#                      UBSan into build-fuzz/ and runs each for FUZZ_SECONDS
#                      (60) from its seed corpus t/fuzz/corpus/NAME/; fails
#                      on a crash (the input is kept in build-fuzz/crashes/)
#                      and prints each target's executions and coverage.
#                      FUZZ_TARGETS="conf ini" runs some of them;
#                      FUZZ_KEEP=1 goes on from what the last run found
#                      (build-fuzz/corpus/NAME) instead of the seeds alone.
#   make tprogs        builds the same targets without libFuzzer, linked
#                      with t/fuzz/driver.c, as build/t/fuzz/NAME: the
#                      regression test t/0760-fuzz-regress.t runs them on
#                      the corpora and on t/fuzz/regress/NAME/.
#
# Targets of the library link its objects (as the unit tests do), targets
# of the report engine its objects; t/fuzz/fuzz.h says what each support
# file wraps.

FUZZ_LIB_TARGETS := conf ini suppress
FUZZ_REP_TARGETS := report trend verdict
FUZZ_TARGETS     ?= $(FUZZ_LIB_TARGETS) $(FUZZ_REP_TARGETS)
FUZZ_SECONDS     ?= 60
FUZZ_CC          ?= clang
FZ               := build-fuzz

FUZZ_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_CFLAGS := -std=gnu11 -D_GNU_SOURCE -O1 -g -fno-omit-frame-pointer -Wall -Wno-unused-parameter \
               $(FUZZ_SAN) -fsanitize=fuzzer-no-link
FUZZ_LIB_WRAP := -Wl,--wrap=hp_log
FUZZ_REP_WRAP := -Wl,--wrap=hp_util_die

# ---- the regression drivers (make tprogs, make check) ---------------------

FUZZ_DRIVERS := $(FUZZ_LIB_TARGETS:%=$(B)/t/fuzz/%) $(FUZZ_REP_TARGETS:%=$(B)/t/fuzz/%)
FUZZ_SUPPORT := t/fuzz/support.c t/fuzz/driver.c

$(FUZZ_LIB_TARGETS:%=$(B)/t/fuzz/%): $(B)/t/fuzz/%: t/fuzz/%.c t/fuzz/support-lib.c $(FUZZ_SUPPORT) \
    t/fuzz/fuzz.h $(UNIT_OBJS)
	@mkdir -p $(@D)
	@$(if $(Q),echo '  CC      $<')
	$(Q)$(CC) $(ALL_CFLAGS) -Isrc/lib -Isrc -It/fuzz -o $@ $< t/fuzz/support-lib.c $(FUZZ_SUPPORT) \
	  $(UNIT_OBJS) $(FUZZ_LIB_WRAP) $(LIB_LIBS) -lm

$(FUZZ_REP_TARGETS:%=$(B)/t/fuzz/%): $(B)/t/fuzz/%: t/fuzz/%.c t/fuzz/support-report.c $(FUZZ_SUPPORT) \
    t/fuzz/fuzz.h t/fuzz/options.h $(REP_OBJS)
	@mkdir -p $(@D)
	@$(if $(Q),echo '  CC      $<')
	$(Q)$(CC) $(ALL_CFLAGS) -Isrc/report -Isrc -It/fuzz -o $@ $< t/fuzz/support-report.c \
	  $(FUZZ_SUPPORT) $(REP_OBJS) $(FUZZ_REP_WRAP) $(CLI_LIBS)

# ---- libFuzzer (make fuzz) ------------------------------------------------

FUZZ_LIB_OBJS := $(filter-out $(FZ)/lib/intercept/% $(FZ)/lib/control/lifecycle.o,$(LIB_SRCS:src/lib/%.c=$(FZ)/lib/%.o))
FUZZ_REP_OBJS := $(REP_SRCS:src/report/%.c=$(FZ)/report/%.o)

$(FZ)/lib/%.o: src/lib/%.c
	@mkdir -p $(@D)
	@$(if $(Q),echo '  FUZZCC  $<')
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP $(filter-out -ftls-model=initial-exec,$(LIB_CFLAGS)) -c -o $@ $<

$(FZ)/report/%.o: src/report/%.c
	@mkdir -p $(@D)
	@$(if $(Q),echo '  FUZZCC  $<')
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -Isrc -c -o $@ $<

$(FZ)/t/%.o: t/fuzz/%.c
	@mkdir -p $(@D)
	@$(if $(Q),echo '  FUZZCC  $<')
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -Isrc/lib -Isrc/report -Isrc -It/fuzz -c -o $@ $<

$(FUZZ_LIB_TARGETS:%=$(FZ)/fuzz-%): $(FZ)/fuzz-%: $(FZ)/t/%.o $(FZ)/t/support-lib.o $(FZ)/t/support.o \
    $(FUZZ_LIB_OBJS)
	@$(if $(Q),echo '  FUZZLD  $@')
	$(Q)$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(FUZZ_LIB_WRAP) $(LIB_LIBS) -lm

$(FUZZ_REP_TARGETS:%=$(FZ)/fuzz-%): $(FZ)/fuzz-%: $(FZ)/t/%.o $(FZ)/t/support-report.o $(FZ)/t/support.o \
    $(FUZZ_REP_OBJS)
	@$(if $(Q),echo '  FUZZLD  $@')
	$(Q)$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(FUZZ_REP_WRAP) $(CLI_LIBS)

-include $(wildcard $(FZ)/*/*.d $(FZ)/*/*/*.d)

# Dictionaries: t/fuzz/NAME.dict, and for the configuration targets every
# option name of options.def.
FUZZ_DICT_conf     := t/fuzz/conf.dict
FUZZ_DICT_ini      := t/fuzz/conf.dict t/fuzz/ini.dict
FUZZ_DICT_suppress := t/fuzz/suppress.dict
FUZZ_DICT_report   := t/fuzz/report.dict
FUZZ_DICT_trend    := t/fuzz/report.dict
FUZZ_DICT_verdict  := t/fuzz/verdict.dict

$(FZ)/%.dict: src/lib/conf/options.def t/fuzz/conf.dict t/fuzz/ini.dict t/fuzz/suppress.dict \
    t/fuzz/report.dict t/fuzz/verdict.dict
	@mkdir -p $(@D)
	$(Q)cat $(FUZZ_DICT_$*) >$@
	$(Q)case $* in conf|ini) sed -n 's/^HP_OPT(\([a-z_0-9]*\),.*/"\1"/p' $< >>$@;; esac

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_TARGETS:%=$(FZ)/fuzz-%) $(FUZZ_TARGETS:%=$(FZ)/%.dict)

# Each target from its seeds (what it finds goes to build-fuzz/corpus/NAME,
# emptied first unless FUZZ_KEEP=1), one after the other: 2 cores are
# shared.
fuzz: fuzz-build
	@mkdir -p $(FZ)/crashes $(FZ)/log $(FZ)/tmp
	@fail=; printf '%-9s %10s %8s %8s %7s  %s\n' target execs exec/s cov ft corpus; \
	for t in $(FUZZ_TARGETS); do \
	  [ -n "$(FUZZ_KEEP)" ] || rm -rf $(FZ)/corpus/$$t; mkdir -p $(FZ)/corpus/$$t; \
	  HP_SRC=$(CURDIR) TMPDIR=$(CURDIR)/$(FZ)/tmp $(FZ)/fuzz-$$t -max_total_time=$(FUZZ_SECONDS) \
	    -print_final_stats=1 -close_fd_mask=3 -timeout=20 -rss_limit_mb=2048 -dict=$(FZ)/$$t.dict \
	    -artifact_prefix=$(FZ)/crashes/$$t- $(FZ)/corpus/$$t t/fuzz/corpus/$$t \
	    >$(FZ)/log/$$t.log 2>&1; st=$$?; \
	  execs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $(FZ)/log/$$t.log); \
	  rate=$$(sed -n 's/^stat::average_exec_per_sec: *//p' $(FZ)/log/$$t.log); \
	  last=$$(grep -E '^#[0-9]+' $(FZ)/log/$$t.log | tail -n 1); \
	  cov=$$(printf '%s\n' "$$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p'); \
	  ft=$$(printf '%s\n' "$$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p'); \
	  corp=$$(printf '%s\n' "$$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p'); \
	  printf '%-9s %10s %8s %8s %7s  %s\n' $$t "$${execs:-?}" "$${rate:-?}" "$${cov:-?}" "$${ft:-?}" "$${corp:-?}"; \
	  if [ $$st != 0 ]; then \
	    fail="$$fail $$t"; \
	    echo "fuzz: $$t failed (status $$st): $(FZ)/log/$$t.log; inputs in $(FZ)/crashes/:"; \
	    grep -E 'ERROR|runtime error|fuzz: |Test unit written' $(FZ)/log/$$t.log | head -n 5; \
	  fi; \
	done; \
	[ -z "$$fail" ] || { echo "fuzz: crashes in:$$fail"; exit 1; }
