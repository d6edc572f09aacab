# t/real/real.mk -- make check-real: real programs' own test suites, and
# real runtimes and a browser, bare and under the preload (t/real/*.t,
# driver.sh).  Included by the top-level GNUmakefile, which defines B, Q,
# deps, all and apt_install.
#
#   make deps-real    the Debian packages, and a deb-src entry for
#                     apt-get source
#   make real-progs   SQLite's testfixture, and zlib's and expat's test
#                     programs, built once into build/real
#   make check-real   both, then prove t/real/ (about 17 minutes; not part
#                     of make check)
#
# The suites: coreutils in loops (10), SQLite's TCL tests (20), CPython's
# regression tests (30), redis-server under redis-benchmark and a signal
# storm (40), a JVM starting 5,000 threads and java -version (50), Rust
# programs starting 20,000 threads and passing work over channels (60),
# headless Chromium's --dump-dom and --screenshot (70), a program under a
# seccomp allowlist of its own in eight modes (80).  Each runs bare, at
# the default rate and in exact mode; 50 to 80 also under heapprof check.
# heapprof attach and detach (45, 46): redis-server under redis-benchmark
# and nginx's two workers under a client's requests (nginx-light, curl),
# each started without heapprof.
# redis-server (40) runs with HEAPPROF_RUNTIME_DIR set, which its process
# title writes over.
# Results must be the bare run's; times are printed as ratios, never
# asserted (build/real/SUITE.summary).
#
# The leak gate on real test suites (90): zlib's make check and expat's
# (Debian's source packages, built here with -g), clean and with leaks
# injected (t/real/leaks/*.patch, applied by the test to a copy of the
# built tree), each under heapprof check five times; the leaked bytes are
# compared with valgrind's on the test program run directly.

# CPython's regression tests and Debian's python3.11; redis; SQLite's test
# fixture needs Tcl's headers, apt-get source needs dpkg-dev; expat's
# source package has no configure script (autoconf, automake, libtool
# make it, as Debian's build does).  The JVM (default-jdk-headless),
# rustc, chromium, python3 (which reads the screenshots and check's JSON)
# and valgrind come with make deps, which deps-real runs first.
DEB_REAL := python3.11 libpython3.11-testsuite redis-server redis-tools nginx-light curl \
            tcl8.6-dev dpkg-dev coreutils tar grep findutils \
            autoconf automake libtool

# Debian's source packages (apt-get source sqlite3): a deb-src entry of its
# own, for the release this machine runs, written once.
REAL_SRC_LIST := /etc/apt/sources.list.d/heapprof-src.sources

REAL := $(B)/real
REAL_TF := $(REAL)/sqlite/testfixture

.PHONY: deps-real real-progs check-real

deps-real: deps
	$(call apt_install,$(DEB_REAL))
	@set -e; \
	if [ ! -e $(REAL_SRC_LIST) ]; then \
	  if [ "$$(id -u)" != 0 ]; then \
	    echo "deps-real: $(REAL_SRC_LIST) is missing; as root run make deps-real"; exit 1; \
	  fi; \
	  . /etc/os-release; \
	  echo "deps-real: writing $(REAL_SRC_LIST) (deb-src, $$VERSION_CODENAME)"; \
	  printf '%s\n' 'Types: deb-src' 'URIs: http://deb.debian.org/debian' \
	    "Suites: $$VERSION_CODENAME" 'Components: main' \
	    'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' >$(REAL_SRC_LIST).tmp; \
	  mv $(REAL_SRC_LIST).tmp $(REAL_SRC_LIST); \
	  apt-get update -qq; \
	elif ! apt-cache showsrc sqlite3 2>/dev/null | grep -q '^Package: sqlite3'; then \
	  [ "$$(id -u)" = 0 ] || { echo "deps-real: as root run apt-get update"; exit 1; }; \
	  echo "deps-real: apt-get update (no source package index yet)"; \
	  apt-get update -qq; \
	fi

# Debian's sqlite3 source package with its patches applied; sqlite-src
# names its directory whatever the version.
$(REAL)/src/.sqlite3.stamp:
	@rm -rf $(REAL)/src $(REAL)/sqlite-src && mkdir -p $(REAL)/src
	@echo '  SOURCE  sqlite3 (apt-get source)'
	$(Q)cd $(REAL)/src && apt-get source -qq sqlite3 >source.log 2>&1 || \
	  { cat source.log; exit 1; }
	$(Q)ln -s src/$$(cd $(REAL)/src && ls -d sqlite3-*/ | head -n 1) $(REAL)/sqlite-src
	@touch $@

# SQLite's test shell (the library and its test hooks inside tclsh), with
# the extensions the chosen tests need.
$(REAL_TF): $(REAL)/src/.sqlite3.stamp
	@rm -rf $(REAL)/sqlite && mkdir -p $(REAL)/sqlite
	@echo '  BUILD   $@ (a minute or two)'
	$(Q)cd $(REAL)/sqlite && ../sqlite-src/configure \
	  --with-tcl=$$(dirname $$(ls /usr/lib/*/tcl8.6/tclConfig.sh | head -n 1)) \
	  --enable-fts3 --enable-fts4 --enable-fts5 --enable-rtree --enable-session \
	  --enable-threadsafe --disable-shared >configure.log 2>&1 || \
	  { tail -n 20 configure.log; exit 1; }
	$(Q)$(MAKE) -C $(REAL)/sqlite testfixture >$(REAL)/sqlite/make.log 2>&1 || \
	  { tail -n 20 $(REAL)/sqlite/make.log; exit 1; }

# zlib's and expat's source packages (patches applied), in a directory of
# their own (the sqlite3 rule empties src/), each built in place with
# debug information, its test programs too; build/real/zlib and
# build/real/expat name the trees.  Expat: no shared library, so that
# tests/runtests is the program itself, not a libtool wrapper script.
REAL_LS := $(REAL)/leak-src

$(REAL_LS)/.source.stamp:
	@rm -rf $(REAL_LS) $(REAL)/zlib $(REAL)/expat && mkdir -p $(REAL_LS)
	@echo '  SOURCE  zlib expat (apt-get source)'
	$(Q)cd $(REAL_LS) && apt-get source -qq zlib expat >source.log 2>&1 || \
	  { cat source.log; exit 1; }
	@touch $@

$(REAL)/zlib/.built: $(REAL_LS)/.source.stamp
	@rm -f $(REAL)/zlib
	$(Q)ln -s leak-src/$$(cd $(REAL_LS) && ls -d zlib-*/ | head -n 1 | sed 's:/$$::') $(REAL)/zlib
	@echo '  BUILD   $(REAL)/zlib'
	$(Q)cd $(REAL)/zlib && CFLAGS='-O2 -g' ./configure >configure.log 2>&1 || \
	  { tail -n 20 configure.log; exit 1; }
	$(Q)$(MAKE) -C $(REAL)/zlib all >$(REAL)/zlib/make.log 2>&1 || \
	  { tail -n 20 $(REAL)/zlib/make.log; exit 1; }
	@touch $@

$(REAL)/expat/.built: $(REAL_LS)/.source.stamp
	@rm -f $(REAL)/expat
	$(Q)ln -s leak-src/$$(cd $(REAL_LS) && ls -d expat-*/ | head -n 1)expat $(REAL)/expat
	@echo '  BUILD   $(REAL)/expat'
	$(Q)cd $(REAL)/expat && ./buildconf.sh >buildconf.log 2>&1 || \
	  { tail -n 20 buildconf.log; exit 1; }
	$(Q)cd $(REAL)/expat && CFLAGS='-O2 -g' CXXFLAGS='-O2 -g' ./configure \
	  --without-docbook --disable-shared >configure.log 2>&1 || \
	  { tail -n 20 configure.log; exit 1; }
	$(Q){ $(MAKE) -C $(REAL)/expat && \
	  $(MAKE) -C $(REAL)/expat/tests runtests runtestspp; } >$(REAL)/expat/make.log 2>&1 || \
	  { tail -n 20 $(REAL)/expat/make.log; exit 1; }
	@touch $@

real-progs: $(REAL_TF) $(REAL)/zlib/.built $(REAL)/expat/.built

# Each suite runs bare, at the default rate and in exact mode, one after
# the other (prove without -j: the times are compared).
check-real:
	@$(MAKE) --no-print-directory deps-real
	@$(MAKE) --no-print-directory all real-progs
	HP_BUILD=$(CURDIR)/$(B) $(PROVE) t/real/
