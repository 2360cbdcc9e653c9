//===- StagingForwarding.cpp - matmuls read staged inputs in place --------===//
//
// On the device a matmul input reaches the cube through on-chip memory: a
// DMA fills a buffer, the matmul reads it. On the host that copy is pure
// cost, and the runtime's kernel reads (and packs) any strided view anyway.
// So where a buffer only stages one input - its uses are one DMA that
// overwrites all of it and one matmul after it in the same block, with
// nothing in between that can write the memory the DMA read - the matmul's
// kernel call reads the DMA's source and the DMA goes. Nothing else reads
// the buffer, so nothing can tell; the values the kernel sees, and so the
// bits, are the same. The device-level IR is unchanged: this runs only in
// the JIT's lowering. One walk; per matmul operand, a scan of the ops
// between it and its DMA: linear in the block size.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "npu/Dialect/NPUDev/NPUDevDialect.h"

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

/// The DMA that stages `operand` for `matmul`, if the matmul may read the
/// DMA's source instead: `operand` is a buffer whose only uses are that
/// DMA (writing all of it) and `matmul`, in one block, with nothing in
/// between that could change the source.
DmaOp getStagingDma(Value operand, MatmulOp matmul) {
  if (!operand.getDefiningOp<AllocOp>() || operand == matmul.getC())
    return {};
  DmaOp dma;
  for (Operation *user : operand.getUsers()) {
    if (user == matmul.getOperation())
      continue;
    auto copy = dyn_cast<DmaOp>(user);
    if (!copy || copy.getTarget() != operand || dma)
      return {};
    dma = copy;
  }
  if (!dma || dma->getBlock() != matmul->getBlock() ||
      !dma->isBeforeInBlock(matmul))
    return {};
  for (Operation *op = dma->getNextNode(); op != matmul; op = op->getNextNode())
    if (!leavesGlobalMemoryAlone(op))
      return {};
  return dma;
}

/// Lowers `matmul` to its kernel call on its staged operands' sources.
void forwardStagedOperands(MatmulOp matmul) {
  DmaOp stagedA = getStagingDma(matmul.getA(), matmul);
  DmaOp stagedB = getStagingDma(matmul.getB(), matmul);
  if (!stagedA && !stagedB)
    return;
  OpBuilder builder(matmul);
  Value a = stagedA ? stagedA.getSource() : matmul.getA();
  Value b = stagedB ? stagedB.getSource() : matmul.getB();
  if (failed(loops::buildMatmulKernelCall(builder, matmul, a, b)))
    return;
  matmul->erase();
  if (stagedB == stagedA) // a and b are one buffer.
    stagedB = {};
  for (DmaOp dma : {stagedA, stagedB})
    if (dma) {
      Operation *buffer = dma.getTarget().getDefiningOp();
      dma->erase();
      if (buffer->use_empty())
        buffer->erase();
    }
}

} // namespace

void npu::dev::forwardStagedMatmulInputs(ModuleOp module) {
  SmallVector<MatmulOp> matmuls;
  module.walk([&](MatmulOp op) { matmuls.push_back(op); });
  for (MatmulOp op : matmuls)
    forwardStagedOperands(op);
}
