# zealot — plain make. `make` builds ./zealot; `make test` runs everything:
# unit tests, CLI tests and live tests under AddressSanitizer + UBSan,
# a bounded libFuzzer run per parser, the banned-function and format checks.

# Every core unless the caller says otherwise (-j N, -j1): `make test` on a
# fresh clone compiles some 430 objects in four flavours.
ifeq ($(filter -j% j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif

CC       ?= cc
CFLAGS   ?= -O2 -g
WARN      = -std=c11 -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral
DEFS      = -D_GNU_SOURCE
# libcurl is not linked: src/base/curl_lazy.c loads it on first use (process
# start is 29 shared libraries lighter for the commands that never speak HTTP);
# nor is libcrypto: src/base/crypto_lazy.c loads it on the first SHA-256
# jansson, sqlite and zlib are linked in wherever their static archives are
# installed (their -dev packages ship them): each shared library costs every
# process its mapping and symbol binding at start, and the three cost each
# run of zealot 0.2-0.4 ms of CPU (`zealot --version` 1.13 -> 0.89 ms beside
# /bin/true's 0.73, `plan` on the bench's 250k-vocabulary header 3.57 ->
# 3.20 ms: medians of 50 runs paired with /bin/true, load 8). `make STATIC_LIBS=` links them shared, as debian/rules does:
# a package takes its libraries, and their security fixes, from the system.
STATIC_LIBS ?= jansson sqlite3 z
archive_or_l = $(or $(filter /%,$(shell $(CC) -print-file-name=lib$(1).a)),-l$(1))
LIBS     := $(foreach l,jansson sqlite3 z,$(if $(filter $(l),$(STATIC_LIBS)),$(call archive_or_l,$(l)),-l$(l))) -lm
SAN       = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

SRC_LIB  := $(filter-out src/cmd/%,$(wildcard src/*/*.c src/*/*/*.c))
SRC_CMD  := $(wildcard src/cmd/*.c) src/main.c
HDRS     := $(wildcard src/*/*.h src/*/*/*.h)
UNIT_SRC := $(wildcard tests/unit/*.c)
# The option parser is unit-tested too (with cmd_fail, which it prints with).
UNIT_CMD := src/cmd/options.c src/cmd/common.c

B = build

# Every source compiles once per flavour into its own object tree, with
# automatic header dependencies (-MMD -MP); every binary links from them:
#   build/obj   -O2 -g                 ./zealot
#   build/san   ASan + UBSan           build/zealot-san, build/unit
#   build/fuzz  clang, libFuzzer hooks the fuzz targets
FUZZCC   ?= clang
FUZZSAN   = -fsanitize=fuzzer-no-link,address,undefined
FUZZLINK  = -fsanitize=fuzzer,address,undefined

OBJ_LIB  := $(SRC_LIB:%.c=$(B)/obj/%.o)
OBJ_CMD  := $(SRC_CMD:%.c=$(B)/obj/%.o)
SAN_LIB  := $(SRC_LIB:%.c=$(B)/san/%.o)
SAN_CMD  := $(SRC_CMD:%.c=$(B)/san/%.o)
SAN_UNIT := $(UNIT_SRC:%.c=$(B)/san/%.o)
FUZ_LIB  := $(SRC_LIB:%.c=$(B)/fuzz/%.o)
FUZ_SRC  := $(wildcard tests/fuzz/fuzz_*.c)
FUZ_MAIN := $(FUZ_SRC:%.c=$(B)/fuzz/%.o)
BENCH_OBJ := $(patsubst %.c,$(B)/obj/%.o,$(wildcard bench/bench_*.c))
ALL_OBJ  := $(OBJ_LIB) $(OBJ_CMD) $(SAN_LIB) $(SAN_CMD) $(SAN_UNIT) $(FUZ_LIB) $(FUZ_MAIN) $(BENCH_OBJ) $(UNIT_CMD:%.c=$(B)/fuzz/%.o)

all: zealot

# Each command's help text is a file of doc/ (git's Documentation/, curl's
# docs/cmdline-opts); scripts/gen-doc.sh turns them into the DOC_* macros
# the commands' struct cmd_help start from.
DOCS_SRC := $(wildcard doc/zealot-*.txt)
$(B)/gen/doc.h: scripts/gen-doc.sh $(DOCS_SRC)
	@mkdir -p $(@D)
	scripts/gen-doc.sh $@ $(DOCS_SRC)
$(ALL_OBJ): | $(B)/gen/doc.h
INC = -Isrc -I$(B)/gen

$(B)/obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(WARN) $(DEFS) $(CFLAGS) $(INC) -MMD -MP -c -o $@ $<

$(B)/san/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(WARN) $(DEFS) -O1 -g $(SAN) $(INC) -MMD -MP -c -o $@ $<

$(B)/fuzz/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZCC) -std=c11 $(DEFS) -g -O1 $(FUZZSAN) $(INC) -MMD -MP -c -o $@ $<

-include $(ALL_OBJ:.o=.d)

zealot: $(OBJ_LIB) $(OBJ_CMD)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

# The same program under AddressSanitizer and UBSan, used by every test.
$(B)/zealot-san: $(SAN_LIB) $(SAN_CMD)
	$(CC) -g $(SAN) -o $@ $^ $(LIBS)

# main.c's list of the unit tests, generated from the test files (a
# test_*.c file's `void test_NAME(void)` is its test): never listed by hand.
UNIT_TESTS := $(filter tests/unit/test_%,$(UNIT_SRC))
$(B)/gen/unit_tests.h: tests/unit/gen-main.sh $(UNIT_TESTS)
	@mkdir -p $(@D)
	tests/unit/gen-main.sh $@ $(UNIT_TESTS)
$(B)/san/tests/unit/main.o: $(B)/gen/unit_tests.h

$(B)/unit: $(SAN_LIB) $(UNIT_CMD:%.c=$(B)/san/%.o) $(SAN_UNIT)
	$(CC) -g $(SAN) -o $@ $^ $(LIBS)

FUZZERS := $(patsubst tests/fuzz/%.c,$(B)/%,$(FUZ_SRC))
.SECONDARY: $(FUZ_MAIN) $(FUZ_LIB) $(BENCH_OBJ)

$(B)/fuzz_%: $(B)/fuzz/tests/fuzz/fuzz_%.o $(FUZ_LIB)
	$(FUZZCC) -g $(FUZZLINK) -o $@ $^ $(LIBS)

# `make test` replays the committed corpus and fixtures, then fuzzes each
# target for FUZZ_SECONDS; `make fuzz` is the long campaign (FUZZ_CAMPAIGN
# seconds per target, FUZZ_RUNS executions if set, whichever ends first).
FUZZ_SECONDS  ?= 2
FUZZ_CAMPAIGN ?= 300
FUZZ_RUNS     ?=

# the option parser lives in src/cmd/, outside SRC_LIB
$(B)/fuzz_options: $(B)/fuzz/tests/fuzz/fuzz_options.o $(FUZ_LIB) $(UNIT_CMD:%.c=$(B)/fuzz/%.o)
	$(FUZZCC) -g $(FUZZLINK) -o $@ $^ $(LIBS)

fuzz: $(FUZZERS)
	FUZZ_SECONDS=$(FUZZ_CAMPAIGN) FUZZ_RUNS=$(FUZZ_RUNS) tests/fuzz/run

engine:
	scripts/build-engine.sh

# Every test; the runner ends with "N passed, N failed".
test: zealot $(B)/zealot-san $(B)/unit $(FUZZERS) examples
	FUZZ_SECONDS=$(FUZZ_SECONDS) tests/run

# The flaky check: the live suites (or SUITES) N times over, round after
# round; says each suite that ever failed.
N      ?= 3
SUITES ?= live
check-flaky: zealot $(B)/zealot-san $(B)/unit examples
	tests/run --repeat $(N) $(SUITES)

# The benchmarks link the -O2 objects too.
BENCHES := $(patsubst bench/%.c,$(B)/%,$(wildcard bench/bench_*.c))

$(B)/bench_%: $(B)/obj/bench/bench_%.o $(OBJ_LIB)
	$(CC) $(CFLAGS) -o $@ $^ $(LIBS)

# Two commands timed as whole processes, alternately (bench/pairrun.c).
$(B)/pairrun: bench/pairrun.c
	@mkdir -p $(@D)
	$(CC) $(WARN) $(DEFS) -O2 -o $@ $<

bench: zealot $(BENCHES) $(B)/pairrun
	bench/run

format:
	clang-format -i $(SRC_LIB) $(SRC_CMD) $(HDRS) $(UNIT_SRC) tests/fuzz/*.c bench/*.c

clean:
	rm -rf $(B) zealot

.PHONY: all fuzz engine test check-flaky bench format clean demo examples docs man install install-built uninstall deb pictures

# The manual, rendered by the binary from the tables it parses with (each
# command's struct cmd_help and options, the endpoint key table, the laws):
# `make man` writes build/man/*.{1,5,7} for install; `make docs` rewrites the
# committed docs/cmd/*.md, docs/endpoint.md and docs/laws.md
# (tests/cli/docs.sh fails when they are stale).
# (a stamp: install reruns nothing that is up to date)
man: $(B)/man/.stamp
$(B)/man/.stamp: zealot scripts/gen-docs.sh
	@rm -rf $(B)/man
	scripts/gen-docs.sh man ./zealot $(B)/man
	@touch $@

docs: zealot
	scripts/gen-docs.sh md ./zealot docs

# docs/'s budget pictures (SVG, and PNG through headless Chromium) from the
# seeds' endpoint on its stand-ins; tests/cli/svg.sh holds the SVG fresh.
pictures: zealot examples
	scripts/pictures.sh ./zealot docs

# Install like a Debian tool: `make install PREFIX=/usr/local DESTDIR=...`;
# `make uninstall` with the same PREFIX and DESTDIR removes every file and
# every directory install made that is left empty. zsh completion goes
# where Debian's zsh looks: /usr/share/zsh/vendor-completions for a
# package's PREFIX=/usr, PREFIX/share/zsh/site-functions otherwise.
PREFIX  ?= /usr/local
BINDIR   = $(PREFIX)/bin
MANDIR   = $(PREFIX)/share/man
BASHDIR  = $(PREFIX)/share/bash-completion/completions
ZSHDIR   = $(PREFIX)/share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
INSTALL ?= install

# `sudo make install` builds nothing in a checkout root does not own: a
# build as root would leave root-owned files in the user's tree. It
# installs what `make` built, and says so when that is not up to date.
CHECKOUT_UID ?= $(shell stat -c %u . 2>/dev/null)
ifeq ($(shell id -u)$(filter-out 0,$(CHECKOUT_UID)),0$(CHECKOUT_UID))
INSTALL_NEEDS = install-built
else
INSTALL_NEEDS = zealot $(B)/man/.stamp
endif
install-built:
	@MAKEFLAGS= $(MAKE) -s -q zealot $(B)/man/.stamp || { echo "make install: zealot or its man pages are not \
built or stale; run 'make man' as the checkout's owner first (as root, install builds nothing in \
the checkout)" >&2; exit 2; }

install: $(INSTALL_NEEDS)
	$(INSTALL) -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(MANDIR)/man5" \
		"$(DESTDIR)$(MANDIR)/man7" "$(DESTDIR)$(BASHDIR)" "$(DESTDIR)$(ZSHDIR)"
	$(INSTALL) -m 755 zealot "$(DESTDIR)$(BINDIR)/zealot"
	$(INSTALL) -m 644 $(B)/man/*.1 "$(DESTDIR)$(MANDIR)/man1/"
	$(INSTALL) -m 644 $(B)/man/*.5 "$(DESTDIR)$(MANDIR)/man5/"
	$(INSTALL) -m 644 $(B)/man/*.7 "$(DESTDIR)$(MANDIR)/man7/"
	$(INSTALL) -m 644 scripts/completion/zealot.bash "$(DESTDIR)$(BASHDIR)/zealot"
	$(INSTALL) -m 644 scripts/completion/_zealot "$(DESTDIR)$(ZSHDIR)/_zealot"

# The Debian package (debian/, no debhelper), built out of tree into build/deb/.
deb:
	scripts/build-deb.sh

# The directories install made, removed when empty, deepest first: the
# ones zealot's files alone need, and under a DESTDIR (a staging tree,
# made whole by install) every one up to it; without one, PREFIX's own
# bin, share and share/man stay (hier(7)).
uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/zealot" "$(DESTDIR)$(MANDIR)/man1/zealot.1" "$(DESTDIR)$(MANDIR)/man1/"zealot-*.1 \
		"$(DESTDIR)$(MANDIR)/man5/zealot-endpoint.5" "$(DESTDIR)$(MANDIR)/man7/zealot-laws.7" \
		"$(DESTDIR)$(BASHDIR)/zealot" "$(DESTDIR)$(ZSHDIR)/_zealot"
	@for d in "$(MANDIR)/man1" "$(MANDIR)/man5" "$(MANDIR)/man7" "$(BASHDIR)" "$(dir $(BASHDIR))" \
		"$(ZSHDIR)" "$(PREFIX)/share/zsh" $(if $(DESTDIR),"$(MANDIR)" "$(BINDIR)" "$(PREFIX)/share"); do \
		[ -d "$(DESTDIR)$$d" ] && rmdir --ignore-fail-on-non-empty "$(DESTDIR)$$d"; done; \
	if [ -n "$(DESTDIR)" ]; then p="$(PREFIX)"; while [ -n "$$p" ] && [ "$$p" != / ]; do \
		[ -d "$(DESTDIR)$$p" ] && rmdir --ignore-fail-on-non-empty "$(DESTDIR)$$p"; p=$${p%/*}; done; fi; true

# The runnable example (examples/demo.env: a small synthetic llama on the
# CPU) through the five-minute walk: inspect, plan, check, serve --dry-run,
# emit unit; with the engine the tests build (or ZEALOT_ENGINE=DIR) it is
# served for real and probed, else demo says how to get one. Then the
# seeds' current endpoint (examples/history/) planned on its stand-ins.
demo: zealot examples
	scripts/demo.sh
	@echo
	./zealot plan examples/history/frank-zealot.env

# The example endpoints' payloads: synthetic stand-ins of the seeds' files
# (same geometry, custom type 142 like PQ2_0, zero weights, sparse).
EX = examples/payloads
examples: zealot $(EX)/demo-llama.gguf $(EX)/bonsai-9b-pq2.gguf $(EX)/bonsai-9b-mmproj-q8.gguf $(EX)/bonsai-9b-lora.gguf \
	$(EX)/bonsai-27b-pq2.gguf $(EX)/bonsai-27b-mmproj-q8.gguf

$(EX)/demo-llama.gguf: zealot
	@mkdir -p $(EX)
	./zealot synth llama --force -o $@
$(EX)/bonsai-9b-pq2.gguf: zealot
	@mkdir -p $(EX)
	./zealot synth --preset bonsai-9b --set type=142 --set name=Ternary-Bonsai-2-9B-PQ2_0-MTP --force -o $@
$(EX)/bonsai-9b-mmproj-q8.gguf: zealot
	@mkdir -p $(EX)
	./zealot synth clip --preset bonsai-9b-mmproj --set projection_dim=4096 --force -o $@
$(EX)/bonsai-9b-lora.gguf: zealot $(EX)/bonsai-9b-pq2.gguf
	./zealot synth lora --base $(EX)/bonsai-9b-pq2.gguf --set base_name=Ternary-Bonsai-2-9B-PTQ1_0.gguf --force -o $@
$(EX)/bonsai-27b-pq2.gguf: zealot
	@mkdir -p $(EX)
	./zealot synth --preset bonsai-27b --set type=142 --set name=Ternary-Bonsai-2-27B-PQ2_0 --force -o $@
$(EX)/bonsai-27b-mmproj-q8.gguf: zealot
	@mkdir -p $(EX)
	./zealot synth clip --preset bonsai-9b-mmproj --set projection_dim=5120 --force -o $@
