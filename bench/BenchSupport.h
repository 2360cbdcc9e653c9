//===- BenchSupport.h - timing helpers shared by the benchmarks -*- C++ -*-===//

#ifndef NPU_BENCH_BENCHSUPPORT_H
#define NPU_BENCH_BENCHSUPPORT_H

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <vector>

namespace npu::bench {

/// Best wall time of `runs` calls of `fn`, in seconds.
inline double bestOf(unsigned runs, const std::function<void()> &fn) {
  double best = 1e30;
  for (unsigned r = 0; r < runs; ++r) {
    auto start = std::chrono::steady_clock::now();
    fn();
    best = std::min(best, std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - start)
                              .count());
  }
  return best;
}

/// This machine's one-thread memcpy bandwidth over `bytes`, in GB/s: the
/// physical limit memory-bound kernels are compared with.
inline double memcpyGBps(unsigned runs, size_t bytes) {
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  double t = bestOf(runs, [&] { std::memcpy(dst.data(), src.data(), bytes); });
  return bytes / t / 1e9;
}

} // namespace npu::bench

#endif // NPU_BENCH_BENCHSUPPORT_H
