//===- TileSupport.h - what the sparse device passes share ------*- C++ -*-===//
//
// Helpers the sparse passes onto the device share: where a memref lives,
// what a region may write (npu-sparse-stage-runs, the row compaction of
// npu-sparse-tile-positions), the loop-carried sum both tilers turn into a
// vreduce, and the tiles they allocate once per task.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_CONVERSION_SPARSETODEVICE_TILESUPPORT_H
#define NPU_LIB_CONVERSION_SPARSETODEVICE_TILESUPPORT_H

#include "npu/Dialect/NPUDev/KernelBuilder.h"
#include "npu/Dialect/NPUDev/NPUDevOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseSet.h"

namespace npu::sparse {

/// Whether `memref` lives in global memory, which DMA copies from.
inline bool isGlobal(mlir::Value memref) {
  auto type = mlir::dyn_cast<mlir::MemRefType>(memref.getType());
  return type && dev::getMemorySpace(type) == dev::MemorySpace::global;
}

/// The memrefs (view roots) something in `region` may write: targets of
/// write effects (a buffer's data for a store to the buffer), and every
/// memref operand of an op whose effects are unknown.
llvm::DenseSet<mlir::Value> getWrittenMemRefs(mlir::Region &region);

/// Whether `loop` carries nothing, or one f32 sum acc' = acc + v (or
/// v + acc: the same bits) of a value v of its body; sets `sum` and `term`
/// (v) for the latter.
inline bool matchCarriedSum(mlir::scf::ForOp loop, mlir::arith::AddFOp &sum,
                            mlir::Value &term) {
  if (loop.getInitArgs().empty())
    return true;
  if (loop.getNumRegionIterArgs() != 1 ||
      !loop.getInitArgs()[0].getType().isF32())
    return false;
  mlir::Value acc = loop.getRegionIterArgs()[0];
  mlir::Value next = loop.getBody()->getTerminator()->getOperand(0);
  sum = next.getDefiningOp<mlir::arith::AddFOp>();
  if (!sum || sum->getBlock() != loop.getBody() || !acc.hasOneUse() ||
      !next.hasOneUse() || (sum.getLhs() != acc && sum.getRhs() != acc))
    return false;
  term = sum.getLhs() == acc ? sum.getRhs() : sum.getLhs();
  return true;
}

/// A vector-memory tile allocated once per task, at the top of the launch
/// around `inside`, not per iteration of the loops around it (an alloc
/// lives to the end of its block).
inline mlir::Value allocTaskTile(mlir::OpBuilder &b, KernelBuilder &k,
                                 mlir::Operation *inside,
                                 llvm::ArrayRef<int64_t> shape,
                                 mlir::Type element) {
  mlir::OpBuilder::InsertionGuard guard(b);
  auto launch = inside->getParentOfType<dev::LaunchOp>();
  b.setInsertionPointToStart(&launch.getBody().front());
  return k.alloc(shape, element);
}

} // namespace npu::sparse

#endif // NPU_LIB_CONVERSION_SPARSETODEVICE_TILESUPPORT_H
