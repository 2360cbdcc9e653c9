//===- L2Cache.cpp - the L2 between global memory and the cores -----------===//

#include "npu/Simulator/L2Cache.h"

#include "llvm/Support/ErrorHandling.h"

#include <algorithm>

using namespace npu::sim;

L2Cache::L2Cache(int64_t bytes, int64_t lineBytes, int64_t ways)
    : lineBytes(lineBytes), ways(ways), numSets(bytes / (lineBytes * ways)),
      lines(static_cast<Line *>(
          std::calloc(std::max<int64_t>(numSets * ways, 1), sizeof(Line)))) {
  if (!lines)
    llvm::report_fatal_error("cannot allocate the simulated L2's lines");
}

void L2Cache::access(uint64_t address, int64_t size, bool write,
                     Outcome &outcome) {
  if (size <= 0)
    return;
  uint64_t first = address / lineBytes;
  uint64_t last = (address + size - 1) / lineBytes;
  // Consecutive lines fall in consecutive sets: no division per line.
  uint64_t set = first % numSets, tag = first / numSets;
  for (uint64_t line = first; line <= last; ++line) {
    accessLine(set, tag, write, outcome);
    if (++set == static_cast<uint64_t>(numSets)) {
      set = 0;
      ++tag;
    }
  }
}

/// An invalid way is replaced before any valid one, then the least
/// recently used.
static bool isBetterVictim(const L2Cache::Line &way,
                           const L2Cache::Line &victim) {
  if (!victim.valid)
    return false;
  return !way.valid || way.lastUse < victim.lastUse;
}

void L2Cache::accessLine(uint64_t setIndex, uint64_t tag, bool write,
                         Outcome &outcome) {
  Line *set = &lines[setIndex * ways];
  ++useClock;
  Line *victim = nullptr;
  for (Line *way = set; way != set + ways; ++way) {
    if (way->valid && way->tag == tag) {
      ++outcome.hits;
      way->lastUse = useClock;
      way->dirty |= write;
      return;
    }
    if (!victim || isBetterVictim(*way, *victim))
      victim = way;
  }
  ++outcome.misses;
  if (victim->valid && victim->dirty)
    ++outcome.writebacks;
  *victim = Line{tag, useClock, /*valid=*/true, /*dirty=*/write};
}

int64_t L2Cache::countDirty() const {
  return std::count_if(lines.get(), lines.get() + numSets * ways,
                       [](const Line &l) { return l.valid && l.dirty; });
}
