"""Run-time options for a sanitized build (make check-sanitize), shared by
the lit suites in test/ and test/unittests/."""


# LLVM's headers poison BumpPtrAllocator slabs when compiled with ASan, but
# the uninstrumented MLIR libraries never unpoison them: user poisoning would
# only give false reports. Leaks are checked. scripts/fuzz.py uses these too.
ASAN_OPTIONS = "allow_user_poisoning=0:detect_leaks=1"
UBSAN_OPTIONS = "print_stacktrace=1"


def configure(config, sanitizers):
    """Set the sanitizer runtime options of every test run by `config`."""
    if not sanitizers:
        return
    kinds = sanitizers.split(",")
    if "address" in kinds:
        config.available_features.add("asan")
        config.environment["ASAN_OPTIONS"] = ASAN_OPTIONS
    if "undefined" in kinds:
        config.available_features.add("ubsan")
        config.environment["UBSAN_OPTIONS"] = UBSAN_OPTIONS
