//===- LowerBuffers.cpp - sparse buffers to flat memrefs ------------------===//
//
// npu-sparse-lower-buffers, the sparse lowering's last pass. Each
// position-level access becomes a
// memref access of the buffer's data at F(n - 1), F(i) = start of axis
// i's run under F(i - 1) plus p_i (AxisRuns' getBufferRunStart). Then the
// buffers and axes, now unused, are erased. O(accesses x rank).
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/Sparse/AxisRuns.h"
#include "npu/Dialect/Sparse/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace npu::sparse {
#define GEN_PASS_DEF_SPARSELOWERBUFFERS
#include "npu/Dialect/Sparse/Passes.h.inc"
} // namespace npu::sparse

using namespace mlir;
using namespace npu::sparse;

namespace {

/// The flat offset of `positions` in `buffer`'s data.
Value buildFlatOffset(OpBuilder &b, Location loc, BufferOp buffer,
                      ValueRange positions) {
  if (positions.empty())
    return b.create<arith::ConstantIndexOp>(loc, 0);
  Value start = getBufferRunStart(b, loc, buffer, positions.drop_back());
  return b.create<arith::AddIOp>(loc, start, positions.back());
}

struct SparseLowerBuffersPass
    : npu::sparse::impl::SparseLowerBuffersBase<SparseLowerBuffersPass> {
  void runOnOperation() override {
    SmallVector<Operation *> accesses;
    getOperation().walk([&](Operation *op) {
      if (isa<PosLoadOp, PosStoreOp, LoadOp, StoreOp, IterationOp>(op))
        accesses.push_back(op);
    });
    for (Operation *op : accesses) {
      if (isa<LoadOp, StoreOp, IterationOp>(op)) {
        op->emitOpError("must be lowered by npu-sparse-lower-iterations "
                        "before npu-sparse-lower-buffers");
        return signalPassFailure();
      }
      if (failed(lowerAccess(op)))
        return signalPassFailure();
    }
    eraseUnused();
  }

  LogicalResult lowerAccess(Operation *op) {
    Value bufferValue = op->getOperand(isa<PosLoadOp>(op) ? 0 : 1);
    auto buffer = bufferValue.getDefiningOp<BufferOp>();
    if (!buffer)
      return op->emitOpError("needs its buffer defined by sparse.buffer");
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (auto load = dyn_cast<PosLoadOp>(op)) {
      Value offset = buildFlatOffset(b, loc, buffer, load.getPositions());
      load.replaceAllUsesWith(
          b.create<memref::LoadOp>(loc, buffer.getData(), offset).getResult());
    } else {
      auto store = cast<PosStoreOp>(op);
      Value offset = buildFlatOffset(b, loc, buffer, store.getPositions());
      b.create<memref::StoreOp>(loc, store.getValue(), buffer.getData(),
                                offset);
    }
    op->erase();
    return success();
  }

  /// Buffers, then axes from the leaves up, once nothing uses them.
  void eraseUnused() {
    SmallVector<Operation *> defs;
    getOperation().walk([&](Operation *op) {
      if (isa<BufferOp, AxisOp>(op))
        defs.push_back(op);
    });
    for (Operation *op : llvm::reverse(defs))
      if (op->use_empty())
        op->erase();
  }
};

} // namespace
