//===- IntegerSemantics.h - integer ops as LLVM computes them ---*- C++ -*-===//
//
// Private to lib/Simulator: the one definition of integer arithmetic, used
// by the arith ops and by the vector unit's integer ops alike. Operands
// are held sign-extended from `bits`; a result comes back the same way
// once the caller wraps it to its width.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_SIMULATOR_INTEGERSEMANTICS_H
#define NPU_LIB_SIMULATOR_INTEGERSEMANTICS_H

#include <cstdint>

namespace npu::sim {

/// A result, or why LLVM would give none (poison or a trap).
struct IntResult {
  int64_t value = 0;
  const char *error = nullptr;
};

using IntBinaryFn = IntResult (*)(int64_t, int64_t, unsigned bits);

/// The low `bits` of `v`, zero-extended.
uint64_t asUnsigned(int64_t v, unsigned bits);
/// The most negative integer of `bits`.
int64_t minSigned(unsigned bits);

IntResult addI(int64_t a, int64_t b, unsigned bits);
IntResult subI(int64_t a, int64_t b, unsigned bits);
IntResult mulI(int64_t a, int64_t b, unsigned bits);
IntResult divSI(int64_t a, int64_t b, unsigned bits);
IntResult remSI(int64_t a, int64_t b, unsigned bits);
IntResult ceilDivSI(int64_t a, int64_t b, unsigned bits);
IntResult floorDivSI(int64_t a, int64_t b, unsigned bits);
IntResult divUI(int64_t a, int64_t b, unsigned bits);
IntResult remUI(int64_t a, int64_t b, unsigned bits);
IntResult ceilDivUI(int64_t a, int64_t b, unsigned bits);
IntResult maxSI(int64_t a, int64_t b, unsigned bits);
IntResult minSI(int64_t a, int64_t b, unsigned bits);
IntResult maxUI(int64_t a, int64_t b, unsigned bits);
IntResult minUI(int64_t a, int64_t b, unsigned bits);
IntResult andI(int64_t a, int64_t b, unsigned bits);
IntResult orI(int64_t a, int64_t b, unsigned bits);
IntResult xorI(int64_t a, int64_t b, unsigned bits);
IntResult shlI(int64_t a, int64_t b, unsigned bits);
IntResult shrSI(int64_t a, int64_t b, unsigned bits);
IntResult shrUI(int64_t a, int64_t b, unsigned bits);

} // namespace npu::sim

#endif // NPU_LIB_SIMULATOR_INTEGERSEMANTICS_H
