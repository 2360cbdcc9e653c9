//===- L2Cache.h - the L2 between global memory and the cores ---*- C++ -*-===//
//
// A set-associative, write-back cache of global memory shared by every
// core: lines of `l2_line_bytes`, `l2_ways` per set, least recently used
// replaced first. A read that misses fetches the line from HBM; a write
// allocates the line without fetching it (DMA writes whole bursts) and
// marks it dirty; a dirty line goes back to HBM when it is replaced. An
// access costs O(lines x ways).
//
// Addresses are the simulator's device addresses (Buffer::address), given
// out in allocation order, so which set a line falls in, and therefore
// every hit and miss, is the same run after run.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SIMULATOR_L2CACHE_H
#define NPU_SIMULATOR_L2CACHE_H

#include <cstdint>
#include <cstdlib>
#include <memory>

namespace npu::sim {

class L2Cache {
public:
  /// What one access did, in lines.
  struct Outcome {
    int64_t hits = 0, misses = 0;
    /// Dirty lines replaced (written back to HBM).
    int64_t writebacks = 0;
  };

  /// An empty cache of `bytes` (rounded down to whole sets); `bytes` 0 is
  /// no cache at all.
  L2Cache(int64_t bytes, int64_t lineBytes, int64_t ways);

  bool isEnabled() const { return numSets != 0; }
  int64_t getLineBytes() const { return lineBytes; }

  /// Reads or writes the bytes [address, address + size).
  void access(uint64_t address, int64_t size, bool write, Outcome &outcome);

  /// Dirty lines still held.
  int64_t countDirty() const;

  /// One way of a set; all zero is an empty way.
  struct Line {
    uint64_t tag;
    uint64_t lastUse;
    bool valid, dirty;
  };

private:
  void accessLine(uint64_t set, uint64_t tag, bool write, Outcome &outcome);

  struct FreeLines {
    void operator()(Line *lines) const { std::free(lines); }
  };

  int64_t lineBytes, ways, numSets;
  /// Set after set, zeroed by calloc: the pages of sets never touched are
  /// never faulted in, so a small kernel does not pay for a 192 MB L2.
  std::unique_ptr<Line[], FreeLines> lines;
  uint64_t useClock = 0;
};

} // namespace npu::sim

#endif // NPU_SIMULATOR_L2CACHE_H
