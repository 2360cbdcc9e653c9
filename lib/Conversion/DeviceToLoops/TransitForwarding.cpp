//===- TransitForwarding.cpp - elementwise ops on global memory in place --===//
//
// A device tile often passes through on-chip memory only to be transformed:
// a DMA fills a buffer X from a global window S, one elementwise vector op
// rewrites X in place, a DMA copies X to a global window G. On the host the
// two copies are pure cost (two extra passes over the data), so where X is
// used by exactly those three ops, in that order in one block, the op reads
// S and writes G instead, and the copies and X go. The values, and so the
// bits, are the same:
//  - the first DMA overwrites all of X before every execution of the op,
//    so the op always reads S's values;
//  - nothing else reads X, so nothing can tell it no longer holds them;
//  - the ops between the two DMAs leave global memory alone, and S and G
//    are the same window or windows of different kernel arguments or
//    allocations (they do not overlap), so reading S[i] and writing G[i]
//    element by element reads what the first DMA read.
// The same holds for the second half alone: a vector op writes a window X'
// of on-chip memory and an npudev.dma_start that consumes X' (its producer
// promises nothing reads those values again) copies it to a global window
// G, with only ops free of memory effects between them. The op writes G
// instead and the copy goes: the values G receives are the op's, and the
// promise (which the simulator checks) means no one misses them in X'. The
// op's inputs are on chip or other storage than G, so writing G changes
// nothing it reads.
// The device-level IR is unchanged: this runs only in the JIT's lowering
// (and not in checked mode, where every access stays attributed to the op
// the kernel wrote). One walk over the buffers, one over the DMAs; per
// candidate, a scan of the ops between it and its partner: linear in the
// IR size.
//
//===----------------------------------------------------------------------===//

#include "Patterns.h"
#include "npu/Dialect/NPUDev/NPUDevOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace npu::dev;

namespace {

/// The memref `view` is a window of: the block argument or allocation at
/// the root of its subviews and casts, or null when it is anything else.
Value getUnderlyingStorage(Value view) {
  while (Operation *def = view.getDefiningOp()) {
    if (auto subview = dyn_cast<memref::SubViewOp>(def))
      view = subview.getSource();
    else if (auto cast = dyn_cast<memref::CastOp>(def))
      view = cast.getSource();
    else if (isa<memref::AllocOp>(def))
      return view;
    else
      return {};
  }
  return isa<BlockArgument>(view) ? view : Value();
}

/// Whether an elementwise loop reading `source` and writing `target` reads
/// what a copy of all of `source` taken first would: the same window, or
/// windows of distinct storage (kernel arguments never alias).
bool readsBeforeOverwriting(Value source, Value target) {
  if (source == target)
    return true;
  Value a = getUnderlyingStorage(source), b = getUnderlyingStorage(target);
  return a && b && a != b;
}

/// The elementwise inputs and the output of a vector op computing element
/// i of its output from element i of each input (and scalars), or nullopt.
std::optional<std::pair<SmallVector<OpOperand *>, OpOperand *>>
getElementwiseOperands(Operation *op) {
  auto operands = [](std::initializer_list<OpOperand *> in, OpOperand &out) {
    return std::make_pair(SmallVector<OpOperand *>(in), &out);
  };
  if (auto binary = dyn_cast<VBinaryOp>(op))
    return operands({&binary.getLhsMutable(), &binary.getRhsMutable()},
                    binary.getOutMutable());
  if (auto scalar = dyn_cast<VBinaryScalarOp>(op))
    return operands({&scalar.getInputMutable()}, scalar.getOutMutable());
  if (auto unary = dyn_cast<VUnaryOp>(op))
    return operands({&unary.getInputMutable()}, unary.getOutMutable());
  return std::nullopt;
}

/// Rewrites the transit through `buffer`, if it is one: its only users are
/// a DMA in, an elementwise op writing it, a DMA out, in that order in one
/// block, between global windows that cannot overlap.
void forwardTransit(AllocOp buffer) {
  Value x = buffer.getResult();
  DmaOp in, out;
  Operation *compute = nullptr;
  for (Operation *user : x.getUsers()) {
    auto dma = dyn_cast<DmaOp>(user);
    if (dma && dma.getTarget() == x && dma.getSource() != x && !in)
      in = dma;
    else if (dma && dma.getSource() == x && dma.getTarget() != x && !out)
      out = dma;
    else if (user == compute) // One use per operand.
      continue;
    else if (!compute && getElementwiseOperands(user))
      compute = user;
    else
      return;
  }
  if (!in || !out || !compute)
    return;
  auto [inputs, result] = *getElementwiseOperands(compute);
  Block *block = compute->getBlock();
  if (result->get() != x || in->getBlock() != block ||
      out->getBlock() != block || !in->isBeforeInBlock(compute) ||
      !compute->isBeforeInBlock(out))
    return;
  Value source = in.getSource(), target = out.getTarget();
  for (Value global : {source, target})
    if (!isInSpace(cast<MemRefType>(global.getType()), {MemorySpace::global}))
      return;
  if (!readsBeforeOverwriting(source, target))
    return;
  for (Operation *op = in->getNextNode(); op != out; op = op->getNextNode())
    if (op != compute && !leavesGlobalMemoryAlone(op))
      return;
  for (OpOperand *input : inputs)
    if (input->get() == x)
      input->set(source);
  result->set(target);
  in->erase();
  out->erase();
  buffer->erase();
}

/// The inputs and the output of a vector op that writes all of its output
/// from its inputs (and scalars), or nullopt.
std::optional<std::pair<SmallVector<OpOperand *>, OpOperand *>>
getWholeOutputOperands(Operation *op) {
  if (auto broadcast = dyn_cast<VBinaryBroadcastOp>(op))
    return std::make_pair(SmallVector<OpOperand *>{&broadcast.getLhsMutable(),
                                                   &broadcast.getRhsMutable()},
                          &broadcast.getOutMutable());
  return getElementwiseOperands(op);
}

/// Makes the op computing what `dma` consumes write the DMA's target, if
/// the DMA consumes an on-chip window the op wrote just before (only ops
/// free of memory effects between them, moved above the op) and its token
/// is unused.
void forwardConsumedWriteBack(DmaStartOp dma) {
  Value target = dma.getTarget();
  if (!dma.getConsumesSource() || !dma.getToken().use_empty() ||
      !isInSpace(cast<MemRefType>(target.getType()), {MemorySpace::global}))
    return;
  Operation *producer = dma->getPrevNode();
  while (producer && isMemoryEffectFree(producer))
    producer = producer->getPrevNode();
  auto operands = producer ? getWholeOutputOperands(producer) : std::nullopt;
  if (!operands || operands->second->get() != dma.getSource())
    return;
  for (OpOperand *input : operands->first)
    if (isInSpace(cast<MemRefType>(input->get().getType()),
                  {MemorySpace::global}) &&
        !readsBeforeOverwriting(input->get(), target))
      return;
  // The ops between compute the target's window; the producer has no
  // results, so they may run before it.
  while (producer->getNextNode() != dma.getOperation())
    producer->getNextNode()->moveBefore(producer);
  operands->second->set(target);
  dma->erase();
}

} // namespace

void npu::dev::forwardConsumedWriteBacks(ModuleOp module) {
  SmallVector<DmaStartOp> dmas;
  module.walk([&](DmaStartOp op) { dmas.push_back(op); });
  for (DmaStartOp dma : dmas)
    forwardConsumedWriteBack(dma);
}

void npu::dev::forwardTransitBuffers(ModuleOp module) {
  SmallVector<AllocOp> buffers;
  module.walk([&](AllocOp op) { buffers.push_back(op); });
  for (AllocOp buffer : buffers)
    forwardTransit(buffer);
}
