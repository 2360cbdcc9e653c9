# Convenience wrapper around CMake + Ninja. The README's two commands are
# `make demo` and `make check`; everything else here supports them.

BUILD_DIR  ?= build
BUILD_TYPE ?= Release
CMAKE      ?= cmake
JOBS       ?= $(shell nproc)

# ccache keys on paths relative to the checkout, so a fresh clone elsewhere
# (CI) still hits the cache filled by an earlier build.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1
export CCACHE_MAXSIZE ?= 5G

.PHONY: all deps configure build check demo docs bench format clean

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

demo: build
	$(CMAKE) --build $(BUILD_DIR) --target npu-demo

docs: configure
	$(CMAKE) --build $(BUILD_DIR) --target npu-doc
	@echo "Generated reference docs are in $(BUILD_DIR)/docs/"

bench: build
	@bash scripts/install-deps.sh --bench
	$(CMAKE) --build $(BUILD_DIR) --target npu-bench

format:
	git ls-files '*.cpp' '*.h' | xargs clang-format -i

clean:
	rm -rf $(BUILD_DIR)
