# Convenience wrapper around CMake + Ninja. The README's two commands are
# `make demo` and `make check`; everything else here supports them.

BUILD_DIR  ?= build
BUILD_TYPE ?= Release
CMAKE      ?= cmake
JOBS       ?= $(shell nproc)
SANITIZE_BUILD_DIR ?= build-sanitize

# ccache keys on paths relative to the checkout, so a fresh clone elsewhere
# (CI) still hits the cache filled by an earlier build.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1
export CCACHE_MAXSIZE ?= 5G

.PHONY: all deps configure build check sanitize-configure check-sanitize fuzz demo docs bench format check-format clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD_DIR)/build.ninja: | deps
	$(CMAKE) -G Ninja -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE)

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	$(CMAKE) --build $(BUILD_DIR) -j $(JOBS)

check: build
	@rm -f $(BUILD_DIR)/lit-results.json
	@$(CMAKE) --build $(BUILD_DIR) -j $(JOBS) --target check-npu; \
	  status=$$?; python3 scripts/lit-summary.py $(BUILD_DIR)/lit-results.json; \
	  exit $$status

# The whole suite again, built by clang-19 with AddressSanitizer (leaks
# included) and UndefinedBehaviorSanitizer in its own build directory. The
# same build carries libFuzzer's coverage instrumentation, so `make fuzz`
# needs no build of its own.
SANITIZE_CMAKE_ARGS = -DCMAKE_C_COMPILER=clang-19 \
  -DCMAKE_CXX_COMPILER=clang++-19 -DNPU_SANITIZERS=address,undefined \
  -DNPU_ENABLE_FUZZERS=ON
FUZZ_SECONDS ?= 60

sanitize-configure:
	@bash scripts/install-deps.sh --sanitize
	@$(CMAKE) -G Ninja -S . -B $(SANITIZE_BUILD_DIR) \
	  -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(SANITIZE_CMAKE_ARGS) > /dev/null

check-sanitize: sanitize-configure
	@$(MAKE) --no-print-directory check BUILD_DIR=$(SANITIZE_BUILD_DIR)

# Each fuzz target for FUZZ_SECONDS, from a seed corpus made of test/.
fuzz: sanitize-configure
	$(CMAKE) --build $(SANITIZE_BUILD_DIR) -j $(JOBS) \
	  --target npu-opt-fuzzer npu-input-fuzzer npu-onnx-fuzzer npu-data-fuzzer
	@python3 scripts/fuzz.py $(SANITIZE_BUILD_DIR) $(FUZZ_SECONDS)

demo: build
	@bash scripts/install-deps.sh --demo
	$(CMAKE) --build $(BUILD_DIR) --target npu-demo

docs: configure
	$(CMAKE) --build $(BUILD_DIR) --target npu-doc
	@echo "Generated reference docs are in $(BUILD_DIR)/docs/"

bench: build
	@bash scripts/install-deps.sh --bench
	$(CMAKE) --build $(BUILD_DIR) --target npu-bench

# clang-format-19 (Debian) with the repository's .clang-format; CI runs
# check-format, so no commit exists only to reformat.
CLANG_FORMAT ?= clang-format-19

format:
	@bash scripts/install-deps.sh --format
	git ls-files '*.cpp' '*.h' | xargs $(CLANG_FORMAT) -i

check-format:
	@bash scripts/install-deps.sh --format
	@git ls-files '*.cpp' '*.h' | xargs $(CLANG_FORMAT) --dry-run --Werror

clean:
	rm -rf $(BUILD_DIR) $(SANITIZE_BUILD_DIR)
