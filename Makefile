# zealot — plain make. `make` builds ./zealot; `make test` runs everything:
# unit tests, CLI tests and live tests under AddressSanitizer + UBSan,
# a bounded libFuzzer run per parser, the banned-function and format checks.

CC       ?= cc
CFLAGS   ?= -O2 -g
WARN      = -std=c11 -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral
DEFS      = -D_GNU_SOURCE
LIBS      = -ljansson -lcrypto -lcurl -lsqlite3 -lz -lm
SAN       = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

SRC_LIB  := $(filter-out src/cmd/%,$(wildcard src/*/*.c))
SRC_CMD  := $(wildcard src/cmd/*.c) src/main.c
HDRS     := $(wildcard src/*/*.h)
UNIT_SRC := $(wildcard tests/unit/*.c)
# The option parser is unit-tested too (with cmd_fail, which it prints with).
UNIT_CMD := src/cmd/options.c src/cmd/common.c

B = build

all: zealot

zealot: $(SRC_LIB) $(SRC_CMD) $(HDRS)
	$(CC) $(WARN) $(DEFS) $(CFLAGS) -o $@ $(SRC_LIB) $(SRC_CMD) $(LIBS)

$(B):
	mkdir -p $(B)

# The same program under AddressSanitizer and UBSan, used by every test.
$(B)/zealot-san: $(SRC_LIB) $(SRC_CMD) $(HDRS) | $(B)
	$(CC) $(WARN) $(DEFS) -O1 -g $(SAN) -o $@ $(SRC_LIB) $(SRC_CMD) $(LIBS)

$(B)/unit: $(SRC_LIB) $(UNIT_CMD) $(UNIT_SRC) $(HDRS) tests/unit/tap.h | $(B)
	$(CC) $(WARN) $(DEFS) -O1 -g $(SAN) -Isrc -o $@ $(SRC_LIB) $(UNIT_CMD) $(UNIT_SRC) $(LIBS)

FUZZERS := $(patsubst tests/fuzz/%.c,$(B)/%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_RUNS ?= 100000

$(B)/fuzz_%: tests/fuzz/fuzz_%.c $(SRC_LIB) $(HDRS) | $(B)
	clang -std=c11 $(DEFS) -g -O1 -fsanitize=fuzzer,address,undefined -Isrc -o $@ $< $(SRC_LIB) $(LIBS)

# the option parser lives in src/cmd/, outside SRC_LIB
$(B)/fuzz_options: tests/fuzz/fuzz_options.c $(SRC_LIB) $(UNIT_CMD) $(HDRS) | $(B)
	clang -std=c11 $(DEFS) -g -O1 -fsanitize=fuzzer,address,undefined -Isrc -o $@ $< $(SRC_LIB) $(UNIT_CMD) $(LIBS)

fuzz: $(FUZZERS)
	FUZZ_RUNS=$(FUZZ_RUNS) tests/fuzz/run

engine:
	scripts/build-engine.sh

# Every test; the runner ends with "N passed, N failed".
test: zealot $(B)/zealot-san $(B)/unit $(FUZZERS) examples
	FUZZ_RUNS=$(FUZZ_RUNS) tests/run

bench: zealot
	bench/run

format:
	clang-format -i $(SRC_LIB) $(SRC_CMD) $(HDRS) $(UNIT_SRC) tests/fuzz/*.c bench/*.c

clean:
	rm -rf $(B) zealot

.PHONY: all fuzz engine test bench format clean demo examples

# The main job on the built-in example: the seeds' current endpoint (9B
# hybrid + MTP + projector + adapter on an RTX 3090), its payloads made by
# synth (sparse, no download, no GPU): what the payload is, what the shape
# costs term by term, the laws, and the command line serve would exec.
demo: zealot examples
	./zealot inspect examples/payloads/bonsai-9b-pq2.gguf
	@echo
	./zealot plan examples/frank-zealot.env
	@echo
	@echo "# RUNTIME names the seeds' fork build; /bin/true stands in for it here"
	./zealot check examples/frank-zealot.env --set RUNTIME=/bin/true
	@echo
	./zealot argv examples/frank-zealot.env

# The example endpoints' payloads: synthetic stand-ins of the seeds' files
# (same geometry, custom type 142 like PQ2_0, zero weights, sparse).
EX = examples/payloads
examples: zealot $(EX)/bonsai-9b-pq2.gguf $(EX)/bonsai-9b-mmproj-q8.gguf $(EX)/bonsai-9b-lora.gguf \
	$(EX)/bonsai-27b-pq2.gguf $(EX)/bonsai-27b-mmproj-q8.gguf

$(EX)/bonsai-9b-pq2.gguf: zealot
	@mkdir -p $(EX)
	./zealot synth --preset bonsai-9b --set type=142 --set name=Ternary-Bonsai-2-9B-PQ2_0-MTP -o $@
$(EX)/bonsai-9b-mmproj-q8.gguf: zealot
	@mkdir -p $(EX)
	./zealot synth clip --preset bonsai-9b-mmproj --set projection_dim=4096 -o $@
$(EX)/bonsai-9b-lora.gguf: zealot $(EX)/bonsai-9b-pq2.gguf
	./zealot synth lora --base $(EX)/bonsai-9b-pq2.gguf --set base_name=Ternary-Bonsai-2-9B-PTQ1_0.gguf -o $@
$(EX)/bonsai-27b-pq2.gguf: zealot
	@mkdir -p $(EX)
	./zealot synth --preset bonsai-27b --set type=142 --set name=Ternary-Bonsai-2-27B-PQ2_0 -o $@
$(EX)/bonsai-27b-mmproj-q8.gguf: zealot
	@mkdir -p $(EX)
	./zealot synth clip --preset bonsai-9b-mmproj --set projection_dim=5120 -o $@
