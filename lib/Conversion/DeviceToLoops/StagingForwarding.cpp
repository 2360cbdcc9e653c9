//===- StagingForwarding.cpp - matmuls read staged inputs in place --------===//
//
// On the device a matmul input reaches the cube through on-chip memory: a
// DMA fills a buffer, the matmul reads it. On the host that copy is pure
// cost, and the runtime's kernel reads (and packs) any strided view anyway.
// So where a buffer only stages matmul inputs, its copies go: the buffer is
// reached through views (subview, cast) only, each last view is written
// whole by one DMA from global memory and otherwise only read, as A or B,
// by matmuls after it (in its block, or in scf.if branches nested there),
// and nothing between the DMA and such a matmul can write global memory or
// fill another view of the buffer. Each
// matmul's kernel call then reads the DMAs' sources, and the DMAs, the
// views and the buffer go. Nothing else read the buffer, so nothing can
// tell; the values the kernel sees, and so the bits, are the same. (A
// branch runs at most once, so of its ops only those before the matmul run
// in between; a loop body's would run again.) The device-level IR is
// unchanged: this runs only in the JIT's lowering. One walk; per reading
// matmul, a scan of the ops between it and its DMA: linear in the block
// size.
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "npu/Dialect/NPUDev/NPUDevDialect.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace npu::dev;

bool npu::dev::leavesGlobalMemoryAlone(Operation *op) {
  if (isMemoryEffectFree(op) || isa<AllocOp>(op))
    return true;
  auto dma = dyn_cast<DmaOp>(op);
  return dma && isInSpace(cast<MemRefType>(dma.getTarget().getType()),
                          {MemorySpace::vector, MemorySpace::cube,
                           MemorySpace::shared});
}

namespace {

/// Appends to `views` the last views of the chains of views (subview, cast)
/// of `buffer`: values used other than as a view's source.
void collectLastViews(Value buffer, SmallVectorImpl<Value> &views) {
  bool onlyViewed = !buffer.use_empty() &&
                    llvm::all_of(buffer.getUsers(), [](Operation *user) {
                      return isa<memref::SubViewOp, memref::CastOp>(user);
                    });
  if (!onlyViewed) {
    views.push_back(buffer);
    return;
  }
  for (Operation *view : buffer.getUsers())
    collectLastViews(view->getResult(0), views);
}

/// The one DMA that writes `view`, if it has exactly one such user.
DmaOp getSoleFill(Value view) {
  DmaOp fill;
  for (Operation *user : view.getUsers())
    if (auto dma = dyn_cast<DmaOp>(user); dma && dma.getTarget() == view) {
      if (fill)
        return {};
      fill = dma;
    }
  return fill;
}

/// Whether nothing that runs after `dma` and before `matmul` can write
/// global memory or fill one of `views` of the staging buffer: `matmul` is
/// in the DMA's block, or in scf.if branches nested there, after it.
bool nothingWritesBetween(DmaOp dma, MatmulOp matmul, ArrayRef<Value> views) {
  auto leavesSourcesAlone = [&](Operation *op) {
    auto copy = dyn_cast<DmaOp>(op);
    return leavesGlobalMemoryAlone(op) &&
           !(copy && llvm::is_contained(views, copy.getTarget()));
  };
  Operation *ancestor = dma->getBlock()->findAncestorOpInBlock(*matmul);
  if (!ancestor || !dma->isBeforeInBlock(ancestor))
    return false;
  for (Operation *op = dma->getNextNode(); op != ancestor;
       op = op->getNextNode())
    if (!leavesSourcesAlone(op))
      return false;
  for (Operation *op = matmul;; op = op->getParentOp()) {
    if (op != matmul.getOperation() && !isa<scf::IfOp>(op))
      return false;
    if (op == ancestor)
      return true;
    for (Operation *before = op->getPrevNode(); before;
         before = before->getPrevNode())
      if (!leavesSourcesAlone(before))
        return false;
  }
}

/// What forwarding does: the matmuls to call on the DMAs' sources, each
/// staged view's source, and what goes once they are called.
struct Forwarding {
  SetVector<MatmulOp> readers;
  DenseMap<Value, Value> sourceOf;
  SmallVector<DmaOp> fills;
  SmallVector<Operation *> buffers;

  /// Adds `buffer` if it only stages matmul inputs, as the file header says.
  void addIfStaging(AllocOp buffer) {
    SmallVector<Value> views;
    collectLastViews(buffer.getResult(), views);
    SmallVector<MatmulOp> matmuls;
    SmallVector<DmaOp> dmas;
    for (Value view : views) {
      // The kernel reads the source when the matmul runs: only global
      // memory is proven unchanged since the DMA.
      DmaOp fill = getSoleFill(view);
      if (!fill || !isInSpace(cast<MemRefType>(fill.getSource().getType()),
                              {MemorySpace::global}))
        return;
      for (Operation *user : view.getUsers()) {
        if (user == fill.getOperation())
          continue;
        auto matmul = dyn_cast<MatmulOp>(user);
        if (!matmul || matmul.getC() == view ||
            !loops::hasMatmulKernel(matmul) ||
            !nothingWritesBetween(fill, matmul, views))
          return;
        matmuls.push_back(matmul);
      }
      dmas.push_back(fill);
    }
    if (matmuls.empty())
      return;
    readers.insert(matmuls.begin(), matmuls.end());
    for (DmaOp fill : dmas) {
      sourceOf[fill.getTarget()] = fill.getSource();
      fills.push_back(fill);
    }
    buffers.push_back(buffer);
  }

  /// Calls the readers' kernels on the sources; erases the readers, the
  /// fills, the views and the buffers.
  void apply() {
    for (MatmulOp matmul : readers) {
      OpBuilder builder(matmul);
      Value a = sourceOf.lookup(matmul.getA());
      Value b = sourceOf.lookup(matmul.getB());
      (void)loops::buildMatmulKernelCall(builder, matmul, a ? a : matmul.getA(),
                                         b ? b : matmul.getB());
      matmul->erase();
    }
    for (DmaOp fill : fills)
      fill->erase();
    for (Operation *buffer : buffers)
      eraseViewsAndSelf(buffer);
  }

  static void eraseViewsAndSelf(Operation *op) {
    for (Operation *view : llvm::make_early_inc_range(op->getUsers()))
      eraseViewsAndSelf(view);
    op->erase();
  }
};

} // namespace

void npu::dev::forwardStagedMatmulInputs(ModuleOp module) {
  Forwarding forwarding;
  module.walk([&](AllocOp buffer) { forwarding.addIfStaging(buffer); });
  forwarding.apply();
}
