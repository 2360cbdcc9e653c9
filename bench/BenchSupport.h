//===- BenchSupport.h - timing helpers shared by the benchmarks -*- C++ -*-===//

#ifndef NPU_BENCH_BENCHSUPPORT_H
#define NPU_BENCH_BENCHSUPPORT_H

#include "npu/Device/DeviceModel.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <immintrin.h>
#include <string>
#include <thread>
#include <utility>
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

/// Best wall time of `runs` calls of fn(0) ... fn(threads - 1), all at once
/// on their own threads.
inline double bestOfOnThreads(unsigned runs, unsigned threads,
                              const std::function<void(unsigned)> &fn) {
  return bestOf(runs, [&] {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back(fn, t);
    for (std::thread &thread : pool)
      thread.join();
  });
}

/// memcpy bandwidth of `threads` threads each copying its share of
/// `bytes` at once: what this host's memory gives memory-bound work on
/// that many threads.
inline double memcpyGBpsOnThreads(unsigned runs, size_t bytes,
                                  unsigned threads) {
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  size_t share = bytes / threads;
  double t = bestOfOnThreads(runs, threads, [&](unsigned i) {
    std::memcpy(dst.data() + i * share, src.data() + i * share, share);
  });
  return share * threads / t / 1e9;
}

/// 12 independent vector FMA chains: enough to fill both FMA ports.
__attribute__((target("avx2,fma"), noinline)) inline float
fmaLoop(int64_t iters) {
  __m256 acc[12];
  for (int i = 0; i < 12; ++i)
    acc[i] = _mm256_set1_ps(0.001f * i);
  __m256 x = _mm256_set1_ps(0.999f), y = _mm256_set1_ps(0.0001f);
  for (int64_t it = 0; it < iters; ++it)
    for (int i = 0; i < 12; ++i)
      acc[i] = _mm256_fmadd_ps(acc[i], x, y);
  __m256 sum = acc[0];
  for (int i = 1; i < 12; ++i)
    sum = _mm256_add_ps(sum, acc[i]);
  return _mm256_cvtss_f32(sum);
}

/// 16 independent 512-bit FMA chains.
__attribute__((target("avx512f"), noinline)) inline float
fmaLoop512(int64_t iters) {
  __m512 acc[16];
  for (int i = 0; i < 16; ++i)
    acc[i] = _mm512_set1_ps(0.001f * i);
  __m512 x = _mm512_set1_ps(0.999f), y = _mm512_set1_ps(0.0001f);
  for (int64_t it = 0; it < iters; ++it)
    for (int i = 0; i < 16; ++i)
      acc[i] = _mm512_fmadd_ps(acc[i], x, y);
  __m512 sum = acc[0];
  for (int i = 1; i < 16; ++i)
    sum = _mm512_add_ps(sum, acc[i]);
  return _mm512_reduce_add_ps(sum);
}

/// One core's FMA rate with 256-bit and, where the host has them, 512-bit
/// vectors; the physical limit is the larger.
inline std::pair<double, double> peakFmaGFlops(unsigned runs) {
  const int64_t iters = 20000000;
  volatile float sink = 0;
  double t = bestOf(runs, [&] { sink = fmaLoop(iters); });
  double avx2 = iters * 12.0 * 8 * 2 / t / 1e9;
  double avx512 = 0;
  if (__builtin_cpu_supports("avx512f")) {
    double t512 = bestOf(runs, [&] { sink = fmaLoop512(iters); });
    avx512 = iters * 16.0 * 16 * 2 / t512 / 1e9;
  }
  (void)sink;
  return {avx2, avx512};
}

/// The FMA rate of `threads` threads running the loop of `bits`-bit vectors
/// (256 or 512) at once: the compute a host gives that many threads (less
/// than `threads` times one core's when they share a physical core).
inline double fmaGFlopsOnThreads(unsigned runs, unsigned threads,
                                 unsigned bits) {
  const int64_t iters = 20000000;
  std::vector<float> sinks(threads);
  double t = bestOfOnThreads(runs, threads, [&](unsigned i) {
    sinks[i] = bits >= 512 ? fmaLoop512(iters) : fmaLoop(iters);
  });
  double perThread = bits >= 512 ? iters * 16.0 * 16 * 2 : iters * 12.0 * 8 * 2;
  return perThread * threads / t / 1e9;
}

/// The widest vectors this host has, in bits: 512 (AVX-512F), 256 (AVX2
/// and FMA) or 128.
inline unsigned hostVectorBits() {
  if (__builtin_cpu_supports("avx512f"))
    return 512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    return 256;
  return 128;
}

/// The vectors the JIT may use under a --max-vector-bits limit (0: none).
inline unsigned effectiveVectorBits(unsigned limit) {
  unsigned host = hostVectorBits();
  return limit == 0 ? host : std::min(host, limit);
}

/// "AVX-512", "AVX2" or "SSE (no AVX)".
inline const char *describeVectorBits(unsigned bits) {
  return bits >= 512 ? "AVX-512" : bits >= 256 ? "AVX2" : "SSE (no AVX)";
}

/// "JIT kernels built for <device> (<n> tasks, <m> KiB of vector memory)"
/// for a preset or JSON description; exits if it cannot be loaded.
inline std::string describeJitDevice(llvm::StringRef device) {
  DeviceModel model = llvm::cantFail(DeviceModel::load(device));
  return "JIT kernels built for " + model.name + " (" +
         std::to_string(model.getNumCores()) + " tasks, " +
         std::to_string(model.vectorBytes / 1024) + " KiB of vector memory)";
}

/// The host's CPU model name, from /proc/cpuinfo.
inline std::string hostCpuName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0)
      return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

} // namespace npu::bench

#endif // NPU_BENCH_BENCHSUPPORT_H
