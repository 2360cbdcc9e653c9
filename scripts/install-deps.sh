#!/usr/bin/env bash
# Installs the Debian 12 packages npu-mlir needs to build and test.
# Idempotent: does nothing (and needs no network) when everything is present.
#   scripts/install-deps.sh          what the build and `make check` need
#   scripts/install-deps.sh --bench  also the benchmarks' peers (OpenBLAS;
#                                    python3-torch for FlashAttention)
#   scripts/install-deps.sh --sanitize  also clang-19 and its sanitizer and
#                                    libFuzzer runtimes (check-sanitize, fuzz)
#   scripts/install-deps.sh --format also clang-format-19, which
#                                    `make format` and `make check-format`
#                                    (run by CI) use
#   scripts/install-deps.sh --demo   also graphviz, which renders the demo's
#                                    layout picture
#   scripts/install-deps.sh --onnx-export  also python3-onnx, python3-torch
#                                    and python3-torchvision, for the scripts
#                                    that write ONNX models (never needed by
#                                    the build or `make check`)
set -euo pipefail

PACKAGES=(
  cmake ninja-build ccache g++ lld-19
  llvm-19-dev llvm-19-tools libmlir-19-dev mlir-19-tools
  libgtest-dev python3
  libonnx-dev libprotobuf-dev
)
case "${1:-}" in
  --bench) PACKAGES+=(libopenblas0-pthread python3-torch) ;;
  --sanitize) PACKAGES+=(clang-19 libclang-rt-19-dev) ;;
  --format) PACKAGES+=(clang-format-19) ;;
  --demo) PACKAGES+=(graphviz) ;;
  --onnx-export) PACKAGES+=(python3-onnx python3-torch python3-torchvision) ;;
esac

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
