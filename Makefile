# memgate: a plain Makefile, git's way.
#
# Knobs:
#   V=1            show full command lines
#   WERROR=1       turn warnings into errors (the project's own checks, `make
#                  test`, `make asan`, `make valgrind`, set it; a user's
#                  `make` does not, so a newer compiler's new warning never
#                  breaks a build)
#   -j N           build in parallel, e.g. make -j4 memgate
#   CC=clang       another compiler
#   SAN=1          build with AddressSanitizer + UBSan (what `make asan` does)
#   BUILD=dir      where objects and binaries go (default: build, or build-asan)
#   EXTRA_CFLAGS=  added to the compiler flags, e.g. to raise a limit:
#                  make EXTRA_CFLAGS=-DMG_REPORT_MAX_CANDIDATES=4096 clean memgate
#   PREFIX=/usr/local  where `make install` puts memgate (bin/, lib/,
#                  include/, share/); DESTDIR= is prepended to every path,
#                  for packagers: make install PREFIX=/usr DESTDIR=/tmp/pkg
#
# Targets: all (./memgate), test, asan, valgrind, demo, deps, bench, clean,
#          install, uninstall, install-hook, portable, fuzz-random.  `demo`
#          runs `deps` first so that it works on a fresh Debian machine;
#          `test`, `asan` and `valgrind` install nothing: they check the
#          dependencies and, when one is missing, say to run `make deps`
#          (actions/install-deps).

all::

MG_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
CC ?= cc
PKGS = libgit2 libcjson yaml-0.1 libcrypto
# Recursive (=) so pkg-config runs only once deps are installed.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS = $(shell pkg-config --libs $(PKGS)) -lm
CRIT_CFLAGS = $(shell pkg-config --cflags criterion)
CRIT_LIBS = $(shell pkg-config --libs criterion)

WARN = -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wvla
ifdef WERROR
WARN += -Werror
endif
CFLAGS ?= -O2 -g
# The layers of plugin/, one folder each, in rank order (tests/layers holds
# them to it).  Their private headers are found with -iquote, so that
# "yaml.h" is the parser's and <yaml.h> still libyaml's.
LAYERS = util git core parse insight result check render cli
LAYER_INC = $(addprefix -iquote plugin/,$(LAYERS))
ALL_CFLAGS = $(WARN) $(CFLAGS) $(EXTRA_CFLAGS) -D_POSIX_C_SOURCE=200809L -Iinclude $(LAYER_INC) $(PKG_CFLAGS)

ifdef SAN
BUILD ?= build-asan
SANFLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ALL_CFLAGS += $(SANFLAGS)
LDFLAGS += $(SANFLAGS)
else
BUILD ?= build
endif

ifndef V
QUIET_CC = @echo '   ' CC $@;
QUIET_AR = @echo '   ' AR $@;
QUIET_LINK = @echo '   ' LINK $@;
endif

# The front end (main.c, commands.c, options.c, one cmd_<name>.c per
# command) is the binary's; every other plugin/*/*.c is the library's.  An
# object is named after its source alone: module names are unique.
CLI_SOURCES = plugin/cli/main.c plugin/cli/commands.c plugin/cli/options.c \
	$(sort $(wildcard plugin/cli/cmd_*.c))
CLI_OBJS = $(addprefix $(BUILD)/obj/,$(notdir $(CLI_SOURCES:.c=.o)))
LIB_SOURCES = $(filter-out $(CLI_SOURCES),$(sort $(wildcard $(LAYERS:%=plugin/%/*.c))))
LIB_OBJS = $(addprefix $(BUILD)/obj/,$(notdir $(LIB_SOURCES:.c=.o)))
LIB = $(BUILD)/libmemgate.a
PROG = $(BUILD)/memgate
TEST_SOURCES = $(sort $(wildcard tests/test_*.c))
TEST_PROGS = $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SOURCES)) $(BUILD)/tests/test_digest_evp \
	$(BUILD)/tests/test_sshsig_legacy
FUZZ_SOURCES = $(sort $(wildcard tests/fuzz/fuzz_*.c))
REPLAY_PROGS = $(patsubst tests/fuzz/fuzz_%.c,$(BUILD)/fuzz/replay_%,$(FUZZ_SOURCES))
HEADERS = $(wildcard include/memgate/*.h include/*.h $(LAYERS:%=plugin/%/*.h))

all:: memgate

memgate: $(PROG)
ifndef SAN
	@cp $(PROG) memgate.tmp && mv -f memgate.tmp memgate
endif

# Rebuild everything when the flags change (git's GIT-CFLAGS): a `make
# test` after a plain `make` recompiles with -Werror.
$(BUILD)/CFLAGS: FORCE
	@mkdir -p $(BUILD)
	@flags='$(subst ','\'',$(CC) $(ALL_CFLAGS) $(LDFLAGS))'; \
	 if test x"$$flags" != x"`cat $@ 2>/dev/null`"; then echo "$$flags" >$@; fi

# One pattern rule per layer's folder: make takes the one whose source exists.
define obj_rule
$$(BUILD)/obj/%.o: plugin/$(1)/%.c $$(HEADERS) $$(BUILD)/CFLAGS
	@mkdir -p $$(dir $$@)
	$$(QUIET_CC)$$(CC) $$(ALL_CFLAGS) -c -o $$@ $$<
endef
$(foreach l,$(LAYERS),$(eval $(call obj_rule,$(l))))

$(LIB): $(LIB_OBJS)
	$(QUIET_AR)rm -f $@ && ar rcs $@ $^

$(PROG): $(CLI_OBJS) $(LIB)
	$(QUIET_LINK)$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(BUILD)/tests/%: tests/%.c tests/helpers.h tests/approved-read.h tests/fixture.h tests/demo-repo.h tests/json-agree.h $(LIB) $(HEADERS) $(BUILD)/CFLAGS
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(CRIT_CFLAGS) -Itests -DMG_SOURCE_DIR='"$(CURDIR)"' -DMG_BUILD_DIR='"$(CURDIR)/$(BUILD)"' \
		$(LDFLAGS) -o $@ $< $(LIB) $(PKG_LIBS) $(CRIT_LIBS)

# plugin/util/digest.c once more as an OpenSSL without its deprecated functions
# builds it (the EVP path), so that both of its paths are tested.
$(BUILD)/tests/test_digest_evp: tests/test_digest.c plugin/util/digest.c tests/helpers.h $(LIB) $(HEADERS) $(BUILD)/CFLAGS
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(CRIT_CFLAGS) -Itests -DOPENSSL_NO_DEPRECATED \
		-DMG_SOURCE_DIR='"$(CURDIR)"' -DMG_BUILD_DIR='"$(CURDIR)/$(BUILD)"' \
		$(LDFLAGS) -o $@ tests/test_digest.c plugin/util/digest.c $(LIB) $(PKG_LIBS) $(CRIT_LIBS)

# plugin/parse/sshkey.c once more with OpenSSL 1.1.1's way of building keys (the
# EC_KEY and RSA objects), so that both of its paths are tested.
$(BUILD)/tests/test_sshsig_legacy: tests/test_sshsig.c plugin/parse/sshkey.c tests/helpers.h $(LIB) $(HEADERS) $(BUILD)/CFLAGS
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(CRIT_CFLAGS) -Itests -DMG_SSHKEY_LEGACY \
		-DMG_SOURCE_DIR='"$(CURDIR)"' -DMG_BUILD_DIR='"$(CURDIR)/$(BUILD)"' \
		$(LDFLAGS) -o $@ tests/test_sshsig.c plugin/parse/sshkey.c $(LIB) $(PKG_LIBS) $(CRIT_LIBS)

.PHONY: all deps check-deps test asan valgrind demo bench clean install uninstall \
	install-hook build-tests run-tests portable FORCE

deps:
	@./actions/install-deps

# What the suite needs (the packages `make deps` installs), checked: the
# suite never installs anything, so that it runs the same every time.
TEST_PYTHON_MODULES = jsonschema yaml
check-deps:
	@missing=; \
	 for p in $(PKGS) criterion; do \
		pkg-config --exists $$p 2>/dev/null || missing="$$missing $$p"; \
	 done; \
	 command -v $(PORTABLE_CC) >/dev/null 2>&1 || missing="$$missing $(PORTABLE_CC)"; \
	 command -v mandoc >/dev/null 2>&1 || missing="$$missing mandoc"; \
	 command -v groff >/dev/null 2>&1 || missing="$$missing groff-base"; \
	 command -v xmllint >/dev/null 2>&1 || missing="$$missing libxml2-utils"; \
	 command -v jq >/dev/null 2>&1 || missing="$$missing jq"; \
	 for m in $(TEST_PYTHON_MODULES); do \
		python3 -c "import $$m" 2>/dev/null || missing="$$missing python3-$$m"; \
	 done; \
	 if test -n "$$missing"; then \
		echo "make: missing what the tests need:$$missing" >&2; \
		echo "make: run 'make deps' (actions/install-deps) first" >&2; \
		exit 1; \
	 fi

$(BUILD)/tests/jsonget: tests/jsonget.c $(BUILD)/CFLAGS
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(PKG_LIBS)

$(BUILD)/tests/sshsig-check: tests/sshsig-check.c $(LIB) $(HEADERS) $(BUILD)/CFLAGS
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(PKG_LIBS)

# What memgate makes of an evidence.inputs entry, for the differential test
# against git diff (it reads the git layer's private header).
$(BUILD)/tests/pathspec-check: tests/pathspec-check.c $(LIB) $(HEADERS) $(BUILD)/CFLAGS
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(PKG_LIBS)

# The core's vocabularies and the commands' option tables as JSON, for
# tests/check-vocabulary: it links the front end, but main.o.
$(BUILD)/tests/vocabulary: tests/vocabulary.c $(filter-out %/main.o,$(CLI_OBJS)) $(LIB) $(HEADERS) $(BUILD)/CFLAGS
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(filter-out %/main.o,$(CLI_OBJS)) \
		$(LIB) $(PKG_LIBS)

# The core's rank test and change-point method on series from stdin, for
# tests/noise/run against its independent reference.
$(BUILD)/tests/noise-check: tests/noise-check.c $(LIB) $(HEADERS) $(BUILD)/CFLAGS
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(PKG_LIBS)

$(BUILD)/tests/maxrss: tests/maxrss.c $(BUILD)/CFLAGS
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $<

build-tests: $(PROG) $(TEST_PROGS) $(REPLAY_PROGS) $(BUILD)/tests/jsonget \
	$(BUILD)/tests/maxrss $(BUILD)/tests/vocabulary $(BUILD)/tests/sshsig-check \
	$(BUILD)/tests/pathspec-check $(BUILD)/tests/noise-check $(BUILD)/bench/gen

# Each fuzz target built with the project's compiler and a main() that
# replays its committed corpus once, without libFuzzer (tests/fuzz/replay.c).
$(BUILD)/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/json-agree.h $(LIB) $(HEADERS) $(BUILD)/CFLAGS
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< tests/fuzz/replay.c \
		$(LIB) $(PKG_LIBS)

# Unit tests (one Criterion binary per module), the fuzz corpus replayed,
# then the end-to-end tests that run the binary on fixture repositories
# built with the real git (t_layout also holds the objects of $(BUILD)/obj
# to their layers, tests/layers).  Deterministic: no installing, no random
# fuzzing.
run-tests: build-tests
	@MG_BUILD_DIR=$(CURDIR)/$(BUILD) ./tests/run-unit $(TEST_PROGS)
	@./tests/fuzz/run-replay $(REPLAY_PROGS)
	@MEMGATE=$(CURDIR)/$(PROG) MG_BUILD_DIR=$(CURDIR)/$(BUILD) $(if $(SAN),MG_SANITIZED=1) \
		./tests/e2e/run

# run-suite MAKE-ARGS: run-tests with those arguments, then how long it took.
run-suite = start=$$(date +%s); \
	$(MAKE) --no-print-directory WERROR=1 $(1) run-tests; rc=$$?; \
	echo "test: the suite took $$(($$(date +%s) - start)) s"; exit $$rc

# The whole suite (about 5 minutes on 2 cores).  Random fuzzing is its own
# target, fuzz-random, which .ci/run runs.
test: check-deps
	@$(call run-suite,portable)

asan: check-deps
	@$(call run-suite,SAN=1)

valgrind: check-deps
	@$(MAKE) --no-print-directory WERROR=1 $(PROG) $(BUILD)/tests/jsonget $(BUILD)/tests/maxrss \
		$(BUILD)/tests/vocabulary $(BUILD)/tests/sshsig-check $(BUILD)/tests/pathspec-check \
		$(BUILD)/bench/gen
	@MEMGATE=$(CURDIR)/$(PROG) MEMGATE_WRAP=$(CURDIR)/tests/valgrind-wrap ./tests/e2e/run

demo: deps
	@$(MAKE) --no-print-directory memgate
	@./fixtures/demo/run ./memgate

# The generator of the benchmark's repositories, the runner and the two
# floors (linked with every library memgate links), then tests/bench/run.
BENCH_TOOLS = $(BUILD)/bench/gen $(BUILD)/bench/measure $(BUILD)/bench/floor-read \
	$(BUILD)/bench/floor-parse $(BUILD)/bench/floor-many $(BUILD)/bench/floor-history

$(BUILD)/bench/gen $(BUILD)/bench/measure: $(BUILD)/bench/%: tests/bench/%.c $(BUILD)/CFLAGS
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(WARN) $(CFLAGS) $(EXTRA_CFLAGS) -o $@ $<

$(BUILD)/bench/floor-read: tests/bench/floor.c $(BUILD)/CFLAGS
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) -DFLOOR_PARSE=0 -o $@ $< $(PKG_LIBS)

$(BUILD)/bench/floor-parse: tests/bench/floor.c $(BUILD)/CFLAGS
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) -DFLOOR_PARSE=1 -o $@ $< $(PKG_LIBS)

$(BUILD)/bench/floor-many: tests/bench/floor-many.c tests/bench/floor-parse.h $(BUILD)/CFLAGS
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) -o $@ $< $(PKG_LIBS)

$(BUILD)/bench/floor-history: tests/bench/floor-history.c tests/bench/floor-parse.h $(BUILD)/CFLAGS
	@mkdir -p $(dir $@)
	$(QUIET_LINK)$(CC) $(ALL_CFLAGS) -o $@ $< $(PKG_LIBS)

bench: deps
	@$(MAKE) --no-print-directory memgate $(BENCH_TOOLS)
	@./tests/bench/run ./memgate $(BUILD)/bench

# From any repository: make -f /path/to/memgate/Makefile install-hook.
# An existing, different pre-push hook is left alone (memgate's is installed
# beside it as pre-push.memgate, with the line that chains it); FORCE=1
# replaces it, keeping it as pre-push.old.  It then says whether the hook
# will find memgate (MEMGATE, else PATH; $(bindir) is where make install
# puts it) and, when not, how to make it.
install-hook:
	@FORCE='$(FORCE)' MG_INSTALLED='$(bindir)/memgate' sh $(MG_DIR)actions/install-hook \
		$(MG_DIR)actions/pre-push

# Installing: the binary; the pre-push hook, the release gate and
# install-hook in share/memgate (install-hook beside the hook installs it);
# the JSON Schemas of the policy, the record and the approval in
# share/memgate/schema, for editors and validators; the man page when there
# is one; the public headers, libmemgate.a and memgate.pc, so that
# `pkg-config --cflags --libs memgate` links a C program against the
# library.
PREFIX = /usr/local
bindir = $(PREFIX)/bin
libdir = $(PREFIX)/lib
includedir = $(PREFIX)/include
datadir = $(PREFIX)/share
mandir = $(datadir)/man
pkgconfigdir = $(libdir)/pkgconfig
INSTALL = install
MAN_PAGE = $(wildcard plugin/cli/memgate.1)
PUBLIC_HEADERS = $(wildcard include/memgate/*.h)
SCRIPTS = actions/pre-push actions/release-gate actions/install-hook
SCHEMAS = $(wildcard include/memgate/schema/*.json)
VERSION = $(shell sed -n 's/^\#define MG_VERSION "\(.*\)"/\1/p' include/memgate/version.h)

$(BUILD)/memgate.pc: include/memgate/version.h $(BUILD)/CFLAGS FORCE
	@mkdir -p $(dir $@)
	@{ echo 'prefix=$(PREFIX)'; echo 'libdir=$(libdir)'; echo 'includedir=$(includedir)'; \
	   echo; echo 'Name: memgate'; \
	   echo 'Description: GPU memory budget gate: policy, evidence, decision, renderers'; \
	   echo 'Version: $(VERSION)'; echo 'Requires: $(PKGS)'; \
	   echo 'Libs: -L$${libdir} -lmemgate -lm'; echo 'Cflags: -I$${includedir}'; } >$@+ && \
	 if cmp -s $@+ $@; then rm -f $@+; else mv -f $@+ $@; fi

install: $(PROG) $(LIB) $(BUILD)/memgate.pc
	$(INSTALL) -d $(DESTDIR)$(bindir) $(DESTDIR)$(datadir)/memgate \
		$(DESTDIR)$(datadir)/memgate/schema \
		$(DESTDIR)$(includedir)/memgate $(DESTDIR)$(libdir) $(DESTDIR)$(pkgconfigdir)
	$(INSTALL) -m 755 $(PROG) $(DESTDIR)$(bindir)/memgate
	$(INSTALL) -m 755 $(SCRIPTS) $(DESTDIR)$(datadir)/memgate/
	$(INSTALL) -m 644 $(SCHEMAS) $(DESTDIR)$(datadir)/memgate/schema/
	$(INSTALL) -m 644 include/memgate.h $(DESTDIR)$(includedir)/memgate.h
	$(INSTALL) -m 644 $(PUBLIC_HEADERS) $(DESTDIR)$(includedir)/memgate/
	$(INSTALL) -m 644 $(LIB) $(DESTDIR)$(libdir)/libmemgate.a
	$(INSTALL) -m 644 $(BUILD)/memgate.pc $(DESTDIR)$(pkgconfigdir)/memgate.pc
ifneq ($(MAN_PAGE),)
	$(INSTALL) -d $(DESTDIR)$(mandir)/man1
	$(INSTALL) -m 644 $(MAN_PAGE) $(DESTDIR)$(mandir)/man1/memgate.1
endif

uninstall:
	rm -f $(DESTDIR)$(bindir)/memgate $(DESTDIR)$(includedir)/memgate.h \
		$(DESTDIR)$(libdir)/libmemgate.a $(DESTDIR)$(pkgconfigdir)/memgate.pc \
		$(DESTDIR)$(mandir)/man1/memgate.1 \
		$(addprefix $(DESTDIR)$(datadir)/memgate/,$(notdir $(SCRIPTS))) \
		$(addprefix $(DESTDIR)$(datadir)/memgate/schema/,$(notdir $(SCHEMAS))) \
		$(addprefix $(DESTDIR)$(includedir)/memgate/,$(notdir $(PUBLIC_HEADERS)))
	-rmdir $(DESTDIR)$(includedir)/memgate $(DESTDIR)$(datadir)/memgate/schema \
		$(DESTDIR)$(datadir)/memgate 2>/dev/null

# Portability: the library and the binary once more, as strictly as C11 and
# POSIX.1-2008 allow (no _GNU_SOURCE or _DEFAULT_SOURCE: glibc then hides
# what is Linux- or GNU-only), with clang's portability warnings, and only
# headers that C11, POSIX or the linked libraries define
# (tests/portable-headers): what a macOS or BSD build would trip on.
PORTABLE_BUILD = build-portable
PORTABLE_CC = clang
PORTABLE_CFLAGS = -std=c11 -O1 -Werror -Wall -Wextra -pedantic -Wgnu -Wundef -Wcast-align \
	-Wnewline-eof -Wformat=2 -Wno-format-nonliteral -Wshorten-64-to-32 -Wpointer-arith \
	-Wvla -Wmissing-prototypes -Wstrict-prototypes -Wimplicit-fallthrough -Wextra-semi

portable:
	@./tests/portable-headers $(LAYERS:%=plugin/%/*.[ch]) include/*.h include/memgate/*.h
	@$(MAKE) --no-print-directory CC=$(PORTABLE_CC) BUILD=$(PORTABLE_BUILD) \
		WARN= CFLAGS= EXTRA_CFLAGS='$(PORTABLE_CFLAGS)' $(PORTABLE_BUILD)/memgate
	@echo "portable: memgate builds with $(PORTABLE_CC) -std=c11 -D_POSIX_C_SOURCE=200809L"

clean:
	rm -rf build build-asan build-fuzz build-portable build-arm64 memgate

# Fuzzing (libFuzzer, clang)
#
#   make fuzz         build every tests/fuzz/fuzz_*.c into build-fuzz/ (needs clang
#                     and its libFuzzer runtime: install-deps --fuzz)
#   make fuzz-random  run each target for about 20 s (FUZZ_TIME) on a copy of
#                     its corpus (fixtures/fuzz-corpus/<target>/); fails on a
#                     crash, leak or timeout.  Not part of `make test`, which
#                     replays the corpus without mutation (run-replay).
#
# Run one target longer by hand, e.g.:
#   build-fuzz/fuzz_policy -max_len=65536 -timeout=5 fixtures/fuzz-corpus/policy
# (that adds what it finds to the corpus: use a copy to keep it clean).

FUZZ_CC = clang
FUZZ_BUILD = build-fuzz
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS = $(WARN) -g -O1 $(EXTRA_CFLAGS) -D_POSIX_C_SOURCE=200809L -Iinclude $(LAYER_INC) $(PKG_CFLAGS)
FUZZ_PROGS = $(patsubst tests/fuzz/%.c,$(FUZZ_BUILD)/%,$(FUZZ_SOURCES))
FUZZ_LIB_OBJS = $(addprefix $(FUZZ_BUILD)/obj/,$(notdir $(LIB_SOURCES:.c=.o)))
FUZZ_LIB = $(FUZZ_BUILD)/libmemgate.a

.PHONY: fuzz fuzz-build fuzz-random fuzz-smoke

$(FUZZ_BUILD)/CFLAGS: FORCE
	@mkdir -p $(FUZZ_BUILD)
	@flags='$(subst ','\'',$(FUZZ_CC) $(FUZZ_CFLAGS))'; \
	 if test x"$$flags" != x"`cat $@ 2>/dev/null`"; then echo "$$flags" >$@; fi

define fuzz_obj_rule
$$(FUZZ_BUILD)/obj/%.o: plugin/$(1)/%.c $$(HEADERS) $$(FUZZ_BUILD)/CFLAGS
	@mkdir -p $$(dir $$@)
	$$(QUIET_CC)$$(FUZZ_CC) $$(FUZZ_CFLAGS) $$(FUZZ_SAN) -fsanitize=fuzzer-no-link -c -o $$@ $$<
endef
$(foreach l,$(LAYERS),$(eval $(call fuzz_obj_rule,$(l))))

$(FUZZ_LIB): $(FUZZ_LIB_OBJS)
	$(QUIET_AR)rm -f $@ && ar rcs $@ $^

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/json-agree.h $(FUZZ_LIB) $(HEADERS) $(FUZZ_BUILD)/CFLAGS
	$(QUIET_LINK)$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer \
		-o $@ $< $(FUZZ_LIB) $(PKG_LIBS)

fuzz-build: $(FUZZ_PROGS)

fuzz:
	@./actions/install-deps --fuzz
	@$(MAKE) --no-print-directory fuzz-build

fuzz-random: fuzz
	@./tests/fuzz/run-smoke $(FUZZ_PROGS)

# The former name of fuzz-random.
fuzz-smoke: fuzz-random
