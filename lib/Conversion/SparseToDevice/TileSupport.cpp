//===- TileSupport.cpp - what the sparse passes onto the device share -----===//
//
// The out-of-line helpers of TileSupport.h. O(ops) each.
//
//===----------------------------------------------------------------------===//

#include "TileSupport.h"
#include "npu/Dialect/NPUDev/Semantics.h"
#include "npu/Dialect/Sparse/SparseOps.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

DenseSet<Value> npu::sparse::getWrittenMemRefs(Region &region) {
  DenseSet<Value> written;
  auto addRoot = [&](Value v) {
    if (auto buffer = v.getDefiningOp<BufferOp>())
      v = buffer.getData();
    written.insert(dev::getViewRoot(v));
  };
  region.walk([&](Operation *op) {
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects) {
      for (Value operand : op->getOperands())
        if (isa<MemRefType, BufferType>(operand.getType()))
          addRoot(operand);
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances)
      if (isa<MemoryEffects::Write>(effect.getEffect()) && effect.getValue())
        addRoot(effect.getValue());
  });
  return written;
}
