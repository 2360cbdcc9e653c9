//===- LowerGraphToDevice.cpp - graph ops to npudev kernels ---------------===//
//
// Rewrites each function that uses npu graph ops into a device program, in
// one walk over its body:
//  1. the signature: tensor arguments become global memrefs; each result
//     becomes an extra argument marked `npudev.output`. A dynamic size is
//     read at run time: an argument's from its memref, a result's from the
//     argument size it equals (ReifyRankedShapedTypeOpInterface, followed
//     back to the arguments), which an output records in `npudev.sizes` so
//     that a caller can allocate it;
//  2. every op gets a destination: the output argument when its result is
//     returned (first claim wins), else an intermediate buffer in global
//     memory. Intermediates are placed by liveness: a value's buffer goes
//     back to a pool once its last user is lowered, and a later value with
//     as many elements of the same type takes it (viewed in its shape by
//     memref.expand_shape, the most recently freed first, as the L2 may
//     still hold it), so the buffers held at once are what the function
//     needs at its peak;
//  3. the op builds its kernels in place of itself (DeviceKernelOpInterface,
//     attached by its family), reading the memrefs of its operands and
//     writing its destination. A value LayoutAlignToNPU stores aligned
//     (`#npu.layout<align>`, C not already a multiple of the unit) lives in
//     a buffer of padded rows and reaches kernels as a strided view of its
//     C columns; an op whose kernels cannot read such views gets dense
//     copies, made and written back by `repack` launches;
//  4. returned values that were not written in place (function arguments,
//     values returned twice) are copied into their output argument, the
//     allocations are freed and the graph ops erased.
// O(ops + uses + kernel size).
//
//===----------------------------------------------------------------------===//

#include "CopyKernels.h"

#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "npu/Conversion/LoweredSignature.h"
#include "npu/Conversion/Passes.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPU/NPUDialect.h"
#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Dialect/NPUDev/DeviceAttr.h"
#include "npu/Dialect/NPUDev/NPUDevOps.h"
#include "npu/Dialect/NPUDev/Semantics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/SaveAndRestore.h"

#include <numeric>

namespace npu {
#define GEN_PASS_DEF_LOWERGRAPHTODEVICE
#include "npu/Conversion/Passes.h.inc"
} // namespace npu

using namespace mlir;
using namespace npu;
using namespace npu::graph;

namespace {

MemRefType getGlobalMemRefType(MLIRContext *ctx, ArrayRef<int64_t> shape,
                               Type element) {
  return MemRefType::get(
      shape, element, MemRefLayoutAttrInterface(),
      dev::MemorySpaceAttr::get(ctx, dev::MemorySpace::global));
}

/// The one-element memref a dynamic row count is kept in.
MemRefType getRowCountType(MLIRContext *ctx) {
  return getGlobalMemRefType(ctx, {1}, IntegerType::get(ctx, 64));
}

/// The view kernels read of `buffer`, which stores a value of type `type`:
/// its C columns (a strided view) when the rows are padded, else `buffer`.
Value viewStored(OpBuilder &b, Location loc, Value buffer, Type type) {
  if (!getPaddedRowLength(type))
    return buffer;
  SmallVector<int64_t> sizes(cast<MemRefType>(buffer.getType()).getShape());
  sizes.back() = cast<RankedTensorType>(type).getShape().back();
  SmallVector<int64_t> offsets(sizes.size(), 0), strides(sizes.size(), 1);
  return b.create<memref::SubViewOp>(loc, buffer, offsets, sizes, strides);
}

/// Whether `func` is graph-level: it uses npu ops, or takes or returns
/// tensors (a function that only passes tensors through still needs device
/// buffers to run).
bool isGraphLevel(func::FuncOp func) {
  auto isTensor = [](Type t) { return isa<TensorType>(t); };
  if (llvm::any_of(func.getArgumentTypes(), isTensor) ||
      llvm::any_of(func.getResultTypes(), isTensor))
    return true;
  return func
      .walk([](Operation *op) {
        return isa_and_nonnull<NPUDialect>(op->getDialect())
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Whether `op` is scalar code the lowering keeps as it is (index
/// arithmetic on row counts).
bool isScalarOp(Operation &op) {
  auto isScalar = [](Type t) { return t.isIntOrIndexOrFloat(); };
  return op.getNumRegions() == 0 &&
         llvm::all_of(op.getOperandTypes(), isScalar) &&
         llvm::all_of(op.getResultTypes(), isScalar);
}

class GraphLowering {
public:
  GraphLowering(func::FuncOp func, const DeviceModel &device,
                const KernelOptions &options)
      : func(func), device(device), options(options) {}

  LogicalResult run() {
    Block &entry = func.getBody().front();
    numOldArgs = entry.getNumArguments();
    auto ret = cast<func::ReturnOp>(entry.getTerminator());
    // The graph's ops, before the signature adds views of the arguments.
    auto graphOps = llvm::make_pointer_range(entry.without_terminator());
    SmallVector<Operation *> ops(graphOps.begin(), graphOps.end());
    if (failed(computeSizes(entry)) || failed(convertSignature(entry)))
      return failure();
    claimOutputs(ret);
    findLastUsers(entry);
    for (Operation *op : ops) {
      if (failed(lowerOp(*op)))
        return failure();
      releaseDeadValues(*op);
    }
    finish(ret);
    checkRunTimeSizes(entry);
    // Users first, so that no erased op leaves a dangling use.
    for (Operation *op : llvm::reverse(lowered))
      op->erase();
    entry.eraseArguments(0, numOldArgs);
    markOutputs();
    return success();
  }

private:
  /// The memref type `value` is stored in: its shape, a data-dependent
  /// row count at its upper bound, a size read at run time dynamic, C
  /// padded when it is stored aligned.
  FailureOr<MemRefType> getStorageType(Operation *op, Value value) {
    auto tensor = dyn_cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> shape;
    if (tensor)
      shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    bool unknown = !tensor;
    for (auto [d, size] : llvm::enumerate(shape)) {
      if (!ShapedType::isDynamic(size))
        continue;
      std::optional<SizeBound> bound = getStorageSize(value, d);
      unknown |= !bound;
      if (bound && bound->isStatic())
        size = bound->factor;
    }
    if (unknown) {
      op->emitOpError("cannot be lowered to the device: value of type ")
          << value.getType()
          << " has a size that is neither static nor read at run time";
      return failure();
    }
    if (std::optional<int64_t> padded = getPaddedRowLength(tensor))
      shape.back() = *padded;
    if (failed(checkGlobalMemory(op, value.getType(), shape,
                                 tensor.getElementType())))
      return failure();
    limitRunTimeSize(value, shape, tensor.getElementType());
    return getGlobalMemRefType(op->getContext(), shape,
                               tensor.getElementType());
  }

  /// Records how large the size read at run time that a buffer of `shape`
  /// (storing `value`) has may be, for the buffer to fit the device's
  /// global memory as a static one must (checkGlobalMemory). A buffer with
  /// two such sizes is not limited.
  void limitRunTimeSize(Value value, ArrayRef<int64_t> shape, Type element) {
    if (llvm::count(shape, ShapedType::kDynamic) != 1)
      return;
    unsigned dim = llvm::find(shape, ShapedType::kDynamic) - shape.begin();
    SizeBound size = *getStorageSize(value, dim);
    unsigned bits =
        element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 64;
    int64_t unit = llvm::divideCeil(bits, 8);
    bool overflow = llvm::MulOverflow(unit, size.factor, unit);
    for (int64_t extent : shape)
      if (!ShapedType::isDynamic(extent))
        overflow |= llvm::MulOverflow(unit, extent, unit);
    // Zero bytes per unit: any size fits.
    if (!overflow && unit == 0)
      return;
    int64_t limit = overflow ? 0 : device.globalBytes / unit;
    auto [it, inserted] =
        sizeLimits.insert({{unsigned(size.arg), size.dim}, limit});
    if (!inserted)
      it->second = std::min(it->second, limit);
  }

  /// A launch before every kernel that fails when a size read at run time
  /// is past its limit (limitRunTimeSize): an error naming the argument and
  /// the size in both executors, rather than an allocation that fails.
  void checkRunTimeSizes(Block &entry) {
    if (sizeLimits.empty())
      return;
    auto b = OpBuilder::atBlockBegin(&entry);
    KernelBuilder k(b, func.getLoc());
    SmallVector<KernelBuilder::SizeCheck> checks;
    for (auto [source, limit] : sizeLimits) {
      Value arg = entry.getArgument(numOldArgs + source.first);
      checks.push_back(
          {arg, source.second, nullptr, 0,
           llvm::formatv("'{0}' argument #{1} has size {{row} in dimension "
                         "{2}: a buffer sized from it would not fit the {3} "
                         "bytes of global memory of device '{4}'",
                         func.getSymName(), source.first, source.second,
                         device.globalBytes, device.name)
               .str(),
           limit});
    }
    k.checkSizes(checks);
  }

  /// Every tensor lives in global memory: one larger than the device's
  /// (or whose size overflows) cannot run, and would otherwise size
  /// kernels, tables and loops from an impossible count.
  LogicalResult checkGlobalMemory(Operation *op, Type type,
                                  ArrayRef<int64_t> shape, Type element) {
    std::optional<int64_t> bytes = getStaticBytes(shape, element);
    if (bytes && *bytes <= device.globalBytes)
      return success();
    InFlightDiagnostic diag = op->emitOpError("cannot be lowered for device '")
                              << device.name << "': value of type " << type
                              << " needs ";
    if (!bytes)
      diag << "more than 2^63 bytes";
    else
      diag << *bytes << " bytes";
    return diag << " of global memory, the device has " << device.globalBytes;
  }

  /// The bytes of a buffer of `shape` (its static sizes: one read at run
  /// time is checked when the buffer is allocated) and `element`, none
  /// when they overflow. index (or another non-numeric element) is stored
  /// as 8 bytes.
  static std::optional<int64_t> getStaticBytes(ArrayRef<int64_t> shape,
                                               Type element) {
    unsigned bits =
        element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 64;
    int64_t bytes = llvm::divideCeil(bits, 8);
    for (int64_t size : shape)
      if (!ShapedType::isDynamic(size) && llvm::MulOverflow(bytes, size, bytes))
        return std::nullopt;
    return bytes;
  }

  /// Whether `value`'s row count depends on the data: it is stored at
  /// an upper bound of its rows with its count beside it.
  bool hasDynamicRows(Value value) const {
    return isa<TensorType>(value.getType()) && rowBounds.count(value);
  }

  /// The size dimension `dim` of `value` is stored at: its row bound for
  /// data-dependent rows, else its size read at run time.
  std::optional<SizeBound> getStorageSize(Value value, unsigned dim) const {
    if (dim == 0 && hasDynamicRows(value))
      return rowBounds.lookup(value);
    auto it = sizes.find({value, dim});
    if (it == sizes.end())
      return std::nullopt;
    return it->second;
  }

  /// The size of dimension `dim` of `value`, when it is static or read at
  /// run time (not when it depends on the data).
  std::optional<SizeBound> getSize(Value value, unsigned dim) const {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || dim >= type.getRank())
      return std::nullopt;
    if (!type.isDynamicDim(dim))
      return SizeBound::get(type.getDimSize(dim));
    auto it = sizes.find({value, dim});
    if (it == sizes.end())
      return std::nullopt;
    return it->second;
  }

  /// An upper bound of the index value `v`: a constant, or a tensor.dim
  /// whose bound is known.
  std::optional<SizeBound> getIndexBound(Value v) const {
    auto it = rowBounds.find(v);
    if (it != rowBounds.end())
      return it->second;
    APInt constant;
    if (matchPattern(v, m_ConstantInt(&constant)))
      return SizeBound::get(constant.getSExtValue());
    return std::nullopt;
  }

  /// The sizes of every value's dynamic dimensions, in program order. An
  /// argument's are read at run time. A result's either depend on the
  /// data (DeviceKernelOpInterface::hasDataDependentRows: it is stored at
  /// getResultRowBound's bound with its count beside it) or are an
  /// operand's (ReifyRankedShapedTypeOpInterface, else
  /// getResultSizeOperand). tensor.dim of such a size is bounded by it.
  LogicalResult computeSizes(Block &entry) {
    for (BlockArgument arg : entry.getArguments())
      if (auto type = dyn_cast<RankedTensorType>(arg.getType()))
        for (unsigned d = 0; d < type.getRank(); ++d)
          if (type.isDynamicDim(d))
            sizes[{arg, d}] = {1, arg.getArgNumber(), d};
    return computeBlockSizes(entry);
  }

  /// computeSizes over the ops of `block` (an npu.map_batch body's ops
  /// before the map's results).
  LogicalResult computeBlockSizes(Block &block) {
    for (Operation &op : block.without_terminator()) {
      if (auto dim = dyn_cast<tensor::DimOp>(op)) {
        boundDim(dim);
        continue;
      }
      if (auto map = dyn_cast<MapBatchOp>(op)) {
        if (failed(requireStaticSamples(map)))
          return failure();
        for (Block *block : getMapBlocks(map))
          if (failed(computeBlockSizes(*block)))
            return failure();
      }
      for (OpResult result : op.getResults())
        if (failed(computeResultSizes(op, result)))
          return failure();
    }
    return success();
  }

  /// The bound of a tensor.dim: the size it reads, or the row bound.
  void boundDim(tensor::DimOp dim) {
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!index)
      return;
    std::optional<SizeBound> bound = getSize(dim.getSource(), *index);
    if (!bound && *index == 0 && hasDynamicRows(dim.getSource()))
      bound = rowBounds.lookup(dim.getSource());
    if (bound)
      rowBounds[dim.getResult()] = *bound;
  }

  /// The sizes of `result`'s dynamic dimensions (see computeSizes).
  LogicalResult computeResultSizes(Operation &op, OpResult result) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type || type.hasStaticShape())
      return success();
    unsigned number = result.getResultNumber();
    auto kernels = dyn_cast<DeviceKernelOpInterface>(op);
    // Reified sizes are only read here: the ops built for them go after.
    Operation *before = op.getPrevNode();
    auto eraseBuilt = llvm::make_scope_exit([&] {
      while (op.getPrevNode() != before)
        op.getPrevNode()->erase();
    });
    std::optional<ReifiedRankedShapedTypeDims> reified;
    for (unsigned d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d))
        continue;
      if (d == 0 && kernels && kernels.hasDataDependentRows(number)) {
        FailureOr<SizeBound> bound = kernels.getResultRowBound(
            number, [&](Value v) { return getIndexBound(v); },
            [&](Value v, unsigned dim) { return getSize(v, dim); });
        if (failed(bound))
          return failure();
        rowBounds[result] = *bound;
        continue;
      }
      std::optional<SizeBound> size;
      if (auto map = dyn_cast<MapBatchOp>(op)) {
        if (std::optional<SizeBound> batch = getBatchSize(map); batch && !d)
          size = batch->times(map.getRowsPerSample(number));
      } else if (auto reify = dyn_cast<ReifyRankedShapedTypeOpInterface>(op)) {
        if (!reified) {
          OpBuilder b(&op);
          reified.emplace();
          if (failed(reify.reifyResultShapes(b, *reified)))
            return failure();
        }
        size = getReifiedSize((*reified)[number][d]);
      } else if (kernels) {
        if (auto operand = kernels.getResultSizeOperand(number, d))
          size = getSize(op.getOperand(operand->first), operand->second);
      }
      if (!size)
        return op.emitOpError("cannot be lowered to the device: dimension ")
               << d << " of result #" << number
               << " is neither static nor the size of an argument";
      sizes[{result, d}] = *size;
    }
    return success();
  }

  /// The batch of `map`: the leading size of its first input read at run
  /// time (the verifier makes the static ones equal, a check launch the
  /// rest).
  std::optional<SizeBound> getBatchSize(MapBatchOp map) const {
    for (Value input : map.getInputs())
      if (cast<RankedTensorType>(input.getType()).isDynamicDim(0))
        return getSize(input, 0);
    return getSize(map.getInputs().front(), 0);
  }

  /// A reified size: a constant, or a tensor.dim of a size that is known.
  std::optional<SizeBound> getReifiedSize(OpFoldResult size) const {
    if (std::optional<int64_t> constant = getConstantIntValue(size))
      return SizeBound::get(*constant);
    auto value = llvm::dyn_cast_if_present<Value>(size);
    auto dim = value ? value.getDefiningOp<tensor::DimOp>() : nullptr;
    std::optional<int64_t> index = dim ? dim.getConstantIndex() : std::nullopt;
    if (!index)
      return std::nullopt;
    return getSize(dim.getSource(), *index);
  }

  /// Replaces the signature: tensors become global memrefs, results become
  /// trailing `npudev.output` arguments, followed by one row-count argument
  /// per result with dynamic rows.
  LogicalResult convertSignature(Block &entry) {
    SmallVector<Type> inputs;
    for (BlockArgument arg : entry.getArguments()) {
      FailureOr<MemRefType> type = getStorageType(func, arg);
      if (failed(type))
        return failure();
      inputs.push_back(*type);
    }
    unsigned numInputs = inputs.size();
    ValueRange returned = entry.getTerminator()->getOperands();
    for (Value result : returned) {
      FailureOr<MemRefType> type = getStorageType(func, result);
      if (failed(type))
        return failure();
      inputs.push_back(*type);
      outputSizes.push_back(getRunTimeSizes(result, *type));
    }
    for (Value result : returned) {
      dynamicOutputs.push_back(hasDynamicRows(result));
      if (dynamicOutputs.back())
        inputs.push_back(getRowCountType(func.getContext()));
    }
    // Swap in fresh arguments so that the old ones keep their tensor types
    // until their users are erased.
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    for (auto [i, type] : llvm::enumerate(inputs)) {
      BlockArgument arg = entry.addArgument(type, func.getLoc());
      if (i < numInputs) {
        mapping.map(entry.getArgument(i),
                    viewArgument(b, entry.getArgument(i), arg, storedArgs));
        auto memref = cast<MemRefType>(type);
        for (unsigned d = 0; d < memref.getRank(); ++d)
          if (memref.isDynamicDim(d))
            argumentSizes[{unsigned(i), d}] =
                b.create<memref::DimOp>(func.getLoc(), arg, d);
      } else if (i < numInputs + returned.size()) {
        outputs.push_back(arg);
        outputViews.push_back(
            viewArgument(b, returned[i - numInputs], arg, storedResults));
      } else {
        outputCounts.push_back(arg);
      }
    }
    func.setType(FunctionType::get(func.getContext(), inputs, {}));
    return success();
  }

  /// Per dynamic dimension of `type`, the storage of `value`, the size
  /// read at run time it has.
  SmallVector<SizeBound> getRunTimeSizes(Value value, MemRefType type) const {
    SmallVector<SizeBound> bounds;
    for (unsigned d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        bounds.push_back(*getStorageSize(value, d));
    return bounds;
  }

  /// The values of the dynamic sizes of `type`, the storage of `value`, at
  /// `b`'s insertion point.
  SmallVector<Value> getDynamicSizes(OpBuilder &b, Location loc, Value value,
                                     MemRefType type) {
    SmallVector<Value> values;
    for (SizeBound bound : getRunTimeSizes(value, type)) {
      Value size = argumentSizes.lookup({unsigned(bound.arg), bound.dim});
      if (bound.factor != 1)
        size = b.create<arith::MulIOp>(
            loc, size, b.create<arith::ConstantIndexOp>(loc, bound.factor));
      values.push_back(size);
    }
    return values;
  }

  /// The view kernels read for argument `arg`, which stores `value`: its
  /// C columns when `value` is stored aligned, recorded in `padded` with
  /// its logical C so that the arguments can be marked `npudev.channels`.
  Value viewArgument(OpBuilder &b, Value value, BlockArgument arg,
                     SmallVectorImpl<std::pair<Value, int64_t>> &padded) {
    if (!getPaddedRowLength(value.getType()))
      return arg;
    padded.push_back(
        {arg, cast<RankedTensorType>(value.getType()).getShape().back()});
    return viewStored(b, arg.getLoc(), arg, value.getType());
  }

  /// Ops whose result is returned write straight into the output argument
  /// (and its row count).
  void claimOutputs(func::ReturnOp ret) {
    unsigned count = 0;
    for (auto [value, output] : llvm::zip(ret.getOperands(), outputViews)) {
      Value rows = hasDynamicRows(value) ? outputCounts[count++] : Value();
      if (!value.getDefiningOp() || destinations.count(value))
        continue;
      destinations[value] = output;
      if (rows)
        countDestinations[value] = rows;
    }
  }

  /// The last user of each op result in `block` (the user's ancestor
  /// there; the op itself for a result without users), and so on in the
  /// npu.map_batch bodies it holds.
  void findLastUsers(Block &block) {
    llvm::DenseMap<Operation *, unsigned> position;
    for (auto [i, op] : llvm::enumerate(block))
      position[&op] = i;
    for (Operation &op : block) {
      if (auto map = dyn_cast<MapBatchOp>(op))
        for (Block *block : getMapBlocks(map))
          findLastUsers(*block);
      for (Value result : op.getResults()) {
        Operation *last = &op;
        for (Operation *user : result.getUsers())
          if (Operation *inBlock = block.findAncestorOpInBlock(*user);
              inBlock && position[inBlock] > position[last])
            last = inBlock;
        lastUsers[result] = last;
      }
    }
  }

  /// Returns to the pool the buffers of the values `op` used last (its
  /// operands and its unused results).
  void releaseDeadValues(Operation &op) {
    auto release = [&](Value value) {
      auto it = pooled.find(value);
      if (it == pooled.end() || lastUsers.lookup(value) != &op)
        return;
      auto flat = cast<MemRefType>(it->second.getType());
      freeBuffers[{flat.getElementType(), flat.getNumElements()}].push_back(
          it->second);
      pooled.erase(it);
    };
    for (Value operand : op.getOperands())
      release(operand);
    for (Value result : op.getResults())
      release(result);
  }

  /// The buffer of an intermediate `value` of `type`: a free one of as many
  /// elements of its element type, else a new one, viewed in its shape.
  /// Rank 0 and empty values get buffers of their own.
  Value allocateIntermediate(OpBuilder &b, Location loc, Value value,
                             MemRefType type) {
    if (!type.hasStaticShape())
      return allocate(b, loc, type, getDynamicSizes(b, loc, value, type));
    if (type.getRank() == 0 || type.getNumElements() == 0)
      return allocate(b, loc, type);
    Value flat = takeFromPool(b, loc, type);
    pooled[value] = flat;
    return viewAs(b, loc, flat, type);
  }

  /// A free flat buffer of as many elements of `type`'s element type as
  /// `type` holds, else a new one.
  Value takeFromPool(OpBuilder &b, Location loc, MemRefType type) {
    int64_t elements = type.getNumElements();
    SmallVector<Value> &free = freeBuffers[{type.getElementType(), elements}];
    if (!free.empty())
      return free.pop_back_val();
    return allocate(
        b, loc,
        getGlobalMemRefType(b.getContext(), {elements}, type.getElementType()));
  }

  /// The flat buffer `flat` viewed in the shape of `type`.
  static Value viewAs(OpBuilder &b, Location loc, Value flat, MemRefType type) {
    if (type.getRank() == 1)
      return flat;
    ReassociationIndices all(type.getRank());
    std::iota(all.begin(), all.end(), 0);
    return b.create<memref::ExpandShapeOp>(loc, type, flat,
                                           ArrayRef<ReassociationIndices>{all});
  }

  /// A global buffer freed at the end of the function; `sizes` are those
  /// of its dynamic dimensions. Inside an npu.map_batch's sample loop it is
  /// allocated before the loop: every sample reuses it.
  Value allocate(OpBuilder &b, Location loc, MemRefType type,
                 ValueRange sizes = {}) {
    OpBuilder::InsertionGuard guard(b);
    if (sampleLoop) {
      assert(sizes.empty() && "a sample's buffers have static shapes");
      b.setInsertionPoint(sampleLoop);
    }
    Value buffer = b.create<memref::AllocOp>(loc, type, sizes);
    allocations.push_back(buffer);
    return buffer;
  }

  /// tensor.dim becomes the row count (loaded) or the static size.
  void lowerDim(tensor::DimOp dim) {
    OpBuilder b(dim);
    Location loc = dim.getLoc();
    Value count = rowCounts.lookup(dim.getSource());
    std::optional<int64_t> index = dim.getConstantIndex();
    Value size;
    if (count && index == 0) {
      Value zero = b.create<arith::ConstantIndexOp>(loc, 0);
      Value loaded = b.create<memref::LoadOp>(loc, count, zero);
      size = b.create<arith::IndexCastOp>(loc, b.getIndexType(), loaded);
    } else {
      size = b.create<memref::DimOp>(loc, mapping.lookup(dim.getSource()),
                                     dim.getIndex());
    }
    dim.getResult().replaceAllUsesWith(size);
    lowered.push_back(dim);
  }

  LogicalResult lowerOp(Operation &op) {
    if (auto dim = dyn_cast<tensor::DimOp>(op)) {
      lowerDim(dim);
      return success();
    }
    if (isScalarOp(op))
      return success();
    if (auto map = dyn_cast<MapBatchOp>(op))
      return lowerMapBatch(map);
    auto kernels = dyn_cast<DeviceKernelOpInterface>(op);
    if (!kernels)
      return op.emitOpError("has no device lowering");
    OpBuilder b(&op);
    SmallVector<Value> results, counts;
    for (OpResult result : op.getResults()) {
      FailureOr<Value> target = getResultBuffer(b, result);
      if (failed(target))
        return failure();
      results.push_back(*target);
      Value count;
      if (hasDynamicRows(result)) {
        count = countDestinations.lookup(result);
        if (!count)
          count = allocate(b, op.getLoc(), getRowCountType(op.getContext()));
        rowCounts[result] = count;
      }
      counts.push_back(count);
    }
    SmallVector<Value> operands;
    for (Value operand : op.getOperands())
      operands.push_back(isa<TensorType>(operand.getType())
                             ? mapping.lookup(operand)
                             : operand);
    if (failed(requireStaticStorage(kernels, operands, results)))
      return failure();
    Operation *before = op.getPrevNode();
    SmallVector<Value> kernelOperands(operands), kernelResults(results);
    repackOperands(b, op.getLoc(), kernels, kernelOperands, kernelResults);
    KernelOperands io{kernelOperands, kernelResults, counts};
    if (failed(kernels.buildDeviceKernels(b, io, device, options)) ||
        failed(checkOnChipMemory(op, before)))
      return failure();
    writeBackResults(b, op.getLoc(), kernelResults, results);
    for (auto [result, target] : llvm::zip(op.getResults(), results))
      mapping.map(result, target);
    lowered.push_back(&op);
    return success();
  }

  /// npu.map_batch becomes host loops over the samples: over whole chunks
  /// of C samples when it has a chunk region, then over the samples left
  /// one by one. Each region's ops move into its loop and are lowered there
  /// like any other, on dense buffers allocated before the loop (one set
  /// serves every iteration): a `sample` launch copies each input's rows
  /// of the iteration in, and one per result copies the yielded rows out.
  /// Kernels read strided views only of values stored with padded rows, so
  /// the rows are not handed to them in place.
  LogicalResult lowerMapBatch(MapBatchOp map) {
    OpBuilder b(map);
    Location loc = map.getLoc();
    SmallVector<Value> inputs, results;
    for (Value input : map.getInputs())
      inputs.push_back(mapping.lookup(input));
    for (OpResult result : map.getResults()) {
      FailureOr<Value> target = getResultBuffer(b, result);
      if (failed(target))
        return failure();
      results.push_back(*target);
      mapping.map(result, *target);
    }
    checkSameBatch(b, loc, map, inputs);
    Value batch = b.create<memref::DimOp>(loc, inputs.front(), 0);
    // Erased after the regions' ops, which use their blocks' arguments.
    lowered.push_back(map);
    Value first = b.create<arith::ConstantIndexOp>(loc, 0);
    if (int64_t chunk = fitsGlobalMemory(map) ? map.getChunkSize() : 0) {
      Value size = b.create<arith::ConstantIndexOp>(loc, chunk);
      Value chunks = b.create<arith::DivUIOp>(loc, batch, size);
      if (failed(lowerMapRegion(b, map, map.getChunk().front(), inputs, results,
                                first, chunks, chunk)))
        return failure();
      first = b.create<arith::MulIOp>(loc, chunks, size);
    }
    return lowerMapRegion(b, map, map.getSampleBlock(), inputs, results, first,
                          batch, 1);
  }

  /// Lowers `block`, a region of `map` that computes `samples` samples,
  /// into a host loop over iterations [from, to) built at `b`: iteration i
  /// takes rows [i * samples, (i + 1) * samples) of each input, and writes
  /// its yielded rows to the same samples of `results`.
  LogicalResult lowerMapRegion(OpBuilder &b, MapBatchOp map, Block &block,
                               ArrayRef<Value> inputs, ArrayRef<Value> results,
                               Value from, Value to, int64_t samples) {
    Location loc = map.getLoc();
    // The outermost loops allocate their buffers only when they run, and
    // free them after: the chunk's and the samples' buffers are not live
    // at once, and a batch below C allocates none for the chunk.
    bool outermost = !sampleLoop;
    OpBuilder::InsertionGuard guard(b);
    if (outermost) {
      auto runs = b.create<scf::IfOp>(
          loc,
          b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, from, to),
          /*withElseRegion=*/false);
      b.setInsertionPoint(runs.thenBlock()->getTerminator());
    }
    auto loop = b.create<scf::ForOp>(loc, from, to,
                                     b.create<arith::ConstantIndexOp>(loc, 1));
    Block &iteration = *loop.getBody();
    // A map inside a map allocates before the outermost loop.
    llvm::SaveAndRestore inLoop(sampleLoop,
                                sampleLoop ? sampleLoop : loop.getOperation());
    size_t firstAllocation = allocations.size();
    OpBuilder inside = OpBuilder::atBlockBegin(&iteration);
    KernelBuilder k(inside, loc);
    Value index = loop.getInductionVar();
    for (auto [arg, input] : llvm::zip(block.getArguments(), inputs)) {
      FailureOr<MemRefType> type = getStorageType(map, arg);
      if (failed(type))
        return failure();
      Value dense = allocate(inside, loc, *type);
      buildWholeCopy(k, getSampleRows(inside, loc, input, index, samples),
                     dense, device, "sample");
      mapping.map(arg, dense);
    }
    SmallVector<Operation *> ops = llvm::map_to_vector(
        block.without_terminator(), [](Operation &op) { return &op; });
    iteration.getOperations().splice(iteration.getTerminator()->getIterator(),
                                     block.getOperations(), block.begin(),
                                     block.getTerminator()->getIterator());
    for (Operation *op : ops) {
      if (failed(lowerOp(*op)))
        return failure();
      releaseDeadValues(*op);
    }
    inside.setInsertionPoint(iteration.getTerminator());
    for (auto [i, value] :
         llvm::enumerate(block.getTerminator()->getOperands()))
      buildWholeCopy(k, mapping.lookup(value),
                     getSampleRows(inside, loc, results[i], index,
                                   samples * map.getRowsPerSample(i)),
                     device, "sample");
    // The yield's values are erased before the map.
    block.getTerminator()->dropAllReferences();
    if (outermost)
      freeAfter(loop, firstAllocation);
    return success();
  }

  /// Frees the buffers allocated since `allocations[first]` after `loop`,
  /// rather than at the end of the function, and takes them out of the
  /// pool: only the loop used them.
  void freeAfter(scf::ForOp loop, size_t first) {
    SmallVector<Value> own(allocations.begin() + first, allocations.end());
    allocations.resize(first);
    llvm::SmallPtrSet<Value, 16> ownSet(own.begin(), own.end());
    for (auto &entry : freeBuffers)
      llvm::erase_if(entry.second,
                     [&](Value buffer) { return ownSet.contains(buffer); });
    OpBuilder after(loop->getContext());
    after.setInsertionPointAfter(loop);
    for (Value buffer : own)
      after.create<memref::DeallocOp>(loop.getLoc(), buffer);
  }

  /// Whether every value of `map`'s chunk region fits the device's global
  /// memory. One that does not (a chunk of samples past a small device)
  /// leaves the samples to the body, with a remark: the chunk only speeds
  /// up whole chunks, and a batch it could serve would not fit either.
  bool fitsGlobalMemory(MapBatchOp map) {
    if (map.getChunk().empty())
      return true;
    auto fits = [&](Value v) {
      auto type = dyn_cast<RankedTensorType>(v.getType());
      std::optional<int64_t> bytes =
          type ? getStaticBytes(type.getShape(), type.getElementType())
               : std::nullopt;
      return bytes && *bytes <= device.globalBytes;
    };
    Block &chunk = map.getChunk().front();
    auto tooLarge = llvm::find_if_not(chunk.getArguments(), fits);
    Value large = tooLarge != chunk.args_end() ? Value(*tooLarge) : Value();
    chunk.walk([&](Operation *op) {
      for (Value result : op->getResults())
        if (!large && !fits(result))
          large = result;
    });
    if (!large)
      return true;
    map.emitRemark("runs every sample apart: its chunk region's value of type ")
        << large.getType() << " does not fit the " << device.globalBytes
        << " bytes of global memory of device '" << device.name << "'";
    return false;
  }

  /// The blocks of `map`'s regions: the body's, and the chunk's if any.
  static SmallVector<Block *, 2> getMapBlocks(MapBatchOp map) {
    SmallVector<Block *, 2> blocks = {&map.getSampleBlock()};
    if (!map.getChunk().empty())
      blocks.push_back(&map.getChunk().front());
    return blocks;
  }

  /// Where `result` is written: its destination (an output argument), else
  /// an intermediate buffer, viewed as kernels read it.
  FailureOr<Value> getResultBuffer(OpBuilder &b, OpResult result) {
    Operation *op = result.getOwner();
    FailureOr<MemRefType> type = getStorageType(op, result);
    if (failed(type))
      return failure();
    if (Value target = destinations.lookup(result))
      return target;
    return viewStored(b, op->getLoc(),
                      allocateIntermediate(b, op->getLoc(), result, *type),
                      result.getType());
  }

  /// The body of `map` is one sample's graph of static shapes: its buffers
  /// are allocated once, before the loop. A value with a size read at run
  /// time (defined above and read there) gets a diagnostic naming it.
  LogicalResult requireStaticSamples(MapBatchOp map) {
    auto isStatic = [](Type type) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      return !tensor || tensor.hasStaticShape();
    };
    auto check = [&](Operation *op) {
      for (Type type :
           llvm::concat<Type>(llvm::to_vector(op->getOperandTypes()),
                              llvm::to_vector(op->getResultTypes())))
        if (!isStatic(type)) {
          op->emitOpError("cannot be lowered in an npu.map_batch: value of "
                          "type ")
              << type << " has a size read at run time, and the body is "
              << "one sample's graph of static shapes";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    };
    for (Block *block : getMapBlocks(map))
      if (block->walk(check).wasInterrupted())
        return failure();
    return success();
  }

  /// The `rows` rows of sample `sample` in `buffer`, a view.
  static Value getSampleRows(OpBuilder &b, Location loc, Value buffer,
                             Value sample, int64_t rows) {
    auto type = cast<MemRefType>(buffer.getType());
    SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(rows)};
    for (int64_t size : type.getShape().drop_front())
      sizes.push_back(b.getIndexAttr(size));
    offsets.front() =
        rows == 1
            ? sample
            : b.create<arith::MulIOp>(
                   loc, sample, b.create<arith::ConstantIndexOp>(loc, rows))
                  .getResult();
    return b.create<memref::SubViewOp>(loc, buffer, offsets, sizes, strides);
  }

  /// A launch that fails when the inputs of `map` do not all have the first
  /// one's batch (the verifier compares the static ones).
  void checkSameBatch(OpBuilder &b, Location loc, MapBatchOp map,
                      ArrayRef<Value> inputs) {
    SmallVector<KernelBuilder::SizeCheck> checks;
    auto isDynamic = [](Value v) {
      return cast<MemRefType>(v.getType()).isDynamicDim(0);
    };
    for (auto [i, input] : llvm::enumerate(inputs))
      if (i > 0 && (isDynamic(input) || isDynamic(inputs.front())))
        checks.push_back(
            {input, 0, inputs.front(), 0,
             llvm::formatv("'npu.map_batch' input #{0} has {{row} samples, "
                           "input #0 a different number: the inputs share "
                           "their batch",
                           i)
                 .str()});
    if (!checks.empty())
      KernelBuilder(b, loc).checkSizes(checks);
  }

  /// An op whose kernels take static shapes only (takesRunTimeSizes) gets
  /// no value stored with a size read at run time: a diagnostic naming the
  /// value instead.
  LogicalResult requireStaticStorage(DeviceKernelOpInterface kernels,
                                     ArrayRef<Value> operands,
                                     ArrayRef<Value> results) {
    if (kernels.takesRunTimeSizes())
      return success();
    Operation *op = kernels.getOperation();
    auto check = [&](ArrayRef<Value> stored, ValueRange values,
                     StringRef what) -> LogicalResult {
      for (auto [i, memref, value] : llvm::enumerate(stored, values))
        if (auto type = dyn_cast<MemRefType>(memref.getType());
            type && !type.hasStaticShape())
          return op->emitOpError("cannot be lowered to the device: ")
                 << what << " #" << i << " (" << value.getType()
                 << ") has a size read at run time, and its kernels take "
                    "static shapes";
      return success();
    };
    if (failed(check(operands, op->getOperands(), "operand")))
      return failure();
    return check(results, op->getResults(), "result");
  }

  /// Replaces each strided view among `operands` and `results` (a value
  /// stored aligned) that the op's kernels do not read in place by a dense
  /// buffer borrowed from the pool, and copies the operands' values into
  /// theirs.
  void repackOperands(OpBuilder &b, Location loc,
                      DeviceKernelOpInterface kernels,
                      SmallVector<Value> &operands,
                      SmallVector<Value> &results) {
    KernelBuilder k(b, loc);
    Operation *op = kernels.getOperation();
    for (auto [operand, value] : llvm::zip(operands, op->getOperands())) {
      if (kernels.readsAlignedStorage(value))
        continue;
      if (Value dense = borrowDense(b, loc, operand)) {
        buildWholeCopy(k, operand, dense, device, "repack");
        operand = dense;
      }
    }
    for (auto [result, value] : llvm::zip(results, op->getResults()))
      if (!kernels.readsAlignedStorage(value))
        if (Value dense = borrowDense(b, loc, result))
          result = dense;
  }

  /// Copies the dense results the kernels wrote into the strided views
  /// they stand for, and returns the borrowed buffers to the pool.
  void writeBackResults(OpBuilder &b, Location loc, ArrayRef<Value> dense,
                        ArrayRef<Value> stored) {
    KernelBuilder k(b, loc);
    for (auto [from, to] : llvm::zip(dense, stored))
      if (from != to)
        buildWholeCopy(k, from, to, device, "repack");
    for (auto [key, flat] : borrowed)
      freeBuffers[key].push_back(flat);
    borrowed.clear();
  }

  /// A dense buffer shaped as `view` when `view` is a strided memref, else
  /// null. It comes from the pool and goes back after the op.
  Value borrowDense(OpBuilder &b, Location loc, Value view) {
    auto type = dyn_cast<MemRefType>(view.getType());
    if (!type || type.getLayout().isIdentity())
      return nullptr;
    auto dense = getGlobalMemRefType(b.getContext(), type.getShape(),
                                     type.getElementType());
    if (!dense.hasStaticShape()) {
      SmallVector<Value> sizes;
      for (unsigned d = 0; d < type.getRank(); ++d)
        if (type.isDynamicDim(d))
          sizes.push_back(b.create<memref::DimOp>(loc, view, d));
      return allocate(b, loc, dense, sizes);
    }
    if (dense.getNumElements() == 0)
      return allocate(b, loc, dense);
    Value flat = takeFromPool(b, loc, dense);
    borrowed.push_back(
        {{dense.getElementType(), dense.getNumElements()}, flat});
    return viewAs(b, loc, flat, dense);
  }

  /// The kernels built for `op` (the launches between `before` and `op`)
  /// fit the device, counted as the launch verifier and the simulator count.
  LogicalResult checkOnChipMemory(Operation &op, Operation *before) {
    Operation *first = before ? before->getNextNode() : &op.getBlock()->front();
    for (Operation *p = first; p != &op; p = p->getNextNode()) {
      auto launch = dyn_cast<dev::LaunchOp>(p);
      if (!launch)
        continue;
      dev::OnChipPeaks peaks = dev::getOnChipPeaks(launch.getBody().front());
      for (dev::MemorySpace space :
           {dev::MemorySpace::vector, dev::MemorySpace::cube,
            dev::MemorySpace::shared}) {
        int64_t need = peaks[static_cast<unsigned>(space)];
        if (need > device.getCapacity(space))
          return op.emitOpError("cannot be lowered for device '")
                 << device.name << "': its kernel needs " << need
                 << " bytes of " << dev::stringifyMemorySpace(space)
                 << " memory at once, the device has "
                 << device.getCapacity(space);
      }
    }
    return success();
  }

  /// Copies what was not written in place into the outputs, frees the
  /// intermediate buffers and ends the function.
  void finish(func::ReturnOp ret) {
    OpBuilder b(ret);
    unsigned count = 0;
    for (auto [value, output] : llvm::zip(ret.getOperands(), outputViews)) {
      Value stored = mapping.lookup(value);
      if (stored != output)
        b.create<memref::CopyOp>(ret.getLoc(), stored, output);
      if (!hasDynamicRows(value))
        continue;
      Value rows = outputCounts[count++];
      if (rowCounts.lookup(value) != rows)
        b.create<memref::CopyOp>(ret.getLoc(), rowCounts.lookup(value), rows);
    }
    for (Value buffer : allocations)
      b.create<memref::DeallocOp>(ret.getLoc(), buffer);
    b.create<func::ReturnOp>(ret.getLoc());
    ret.erase();
  }

  /// Marks the outputs `npudev.output`, one with sizes read at run time
  /// with `npudev.sizes` (per dynamic dimension, the argument, dimension
  /// and factor whose product it is), a dynamic one with `npudev.rows`
  /// naming the argument that holds its row count, and that argument with
  /// `npudev.row_count`; every argument stored with padded rows gets
  /// `npudev.channels`, its logical C.
  void markOutputs() {
    MLIRContext *ctx = func.getContext();
    unsigned count = 0;
    for (auto [output, dynamic, sources] :
         llvm::zip(outputs, dynamicOutputs, outputSizes)) {
      unsigned arg = cast<BlockArgument>(output).getArgNumber();
      func.setArgAttr(arg, signature::kOutput, UnitAttr::get(ctx));
      SmallVector<int64_t> triples;
      for (SizeBound bound : sources)
        triples.append({bound.arg, int64_t(bound.dim), bound.factor});
      if (!triples.empty())
        func.setArgAttr(arg, signature::kSizes,
                        DenseI64ArrayAttr::get(ctx, triples));
      if (!dynamic)
        continue;
      unsigned rows = cast<BlockArgument>(outputCounts[count++]).getArgNumber();
      func.setArgAttr(arg, signature::kRows,
                      IntegerAttr::get(IntegerType::get(ctx, 64), rows));
      func.setArgAttr(rows, signature::kRowCount, UnitAttr::get(ctx));
    }
    Type i64 = IntegerType::get(ctx, 64);
    for (auto [arg, channels] :
         llvm::concat<std::pair<Value, int64_t>>(storedArgs, storedResults))
      func.setArgAttr(cast<BlockArgument>(arg).getArgNumber(),
                      signature::kChannels, IntegerAttr::get(i64, channels));
  }

  func::FuncOp func;
  const DeviceModel &device;
  const KernelOptions &options;
  IRMapping mapping;
  SmallVector<Value> outputs, outputViews, outputCounts;
  /// The arguments stored with padded rows, with their logical C.
  SmallVector<std::pair<Value, int64_t>> storedArgs, storedResults;
  SmallVector<bool> dynamicOutputs;
  /// Bounds of data-dependent row counts and of the index values read
  /// from them or from sizes.
  llvm::DenseMap<Value, SizeBound> rowBounds;
  /// The size of each (value, dimension) read at run time, the values of
  /// the arguments' sizes in the lowered body, and each output's sizes.
  llvm::DenseMap<std::pair<Value, unsigned>, SizeBound> sizes;
  llvm::DenseMap<std::pair<unsigned, unsigned>, Value> argumentSizes;
  SmallVector<SmallVector<SizeBound>> outputSizes;
  /// The most each size read at run time may be.
  llvm::MapVector<std::pair<unsigned, unsigned>, int64_t> sizeLimits;
  unsigned numOldArgs = 0;
  llvm::DenseMap<Value, Value> destinations, countDestinations, rowCounts;
  SmallVector<Value> allocations;
  /// The outermost sample loop being lowered into (lowerMapBatch), else
  /// null.
  Operation *sampleLoop = nullptr;
  SmallVector<Operation *> lowered;
  llvm::DenseMap<Value, Operation *> lastUsers;
  /// The flat buffer each live intermediate is a view of, and the free
  /// ones by (element type, elements).
  llvm::DenseMap<Value, Value> pooled;
  llvm::DenseMap<std::pair<Type, int64_t>, SmallVector<Value>> freeBuffers;
  /// The pool buffers lent to the current op's dense copies.
  SmallVector<std::pair<std::pair<Type, int64_t>, Value>> borrowed;
};

/// The device to build kernels for: the module's, else the `device`
/// option's, else the default (dev::selectDevice).
FailureOr<DeviceModel> selectDevice(ModuleOp module, StringRef option) {
  std::optional<DeviceModel> requested;
  if (!option.empty()) {
    llvm::Expected<DeviceModel> loaded = DeviceModel::load(option);
    if (!loaded)
      return module.emitError("npu-lower-to-device: ")
             << llvm::toString(loaded.takeError());
    requested = *loaded;
  }
  return dev::selectDevice(module, requested, "npu-lower-to-device",
                           "the device option");
}

struct LowerGraphToDevicePass
    : public npu::impl::LowerGraphToDeviceBase<LowerGraphToDevicePass> {
  using Base::Base;

  /// The kernels come from the families' external models.
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerDeviceKernelModels(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<DeviceModel> model = selectDevice(module, device);
    if (failed(model))
      return signalPassFailure();
    KernelOptions kernelOptions;
    kernelOptions.sparseConvStrategy = sparseConvStrategy;
    if (!llvm::is_contained({"auto", "grid", "sort"},
                            kernelOptions.sparseConvStrategy)) {
      module.emitError("npu-lower-to-device: sparse-conv-strategy must be "
                       "auto, grid or sort, got '")
          << kernelOptions.sparseConvStrategy << "'";
      return signalPassFailure();
    }
    bool lowered = false;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || !isGraphLevel(func))
        continue;
      if (failed(GraphLowering(func, *model, kernelOptions).run()))
        return signalPassFailure();
      lowered = true;
    }
    // A module already at device level keeps the device it names.
    if (lowered)
      module->setAttr(dev::NPUDevDialect::getDeviceAttrName(),
                      dev::getDeviceAttr(&getContext(), *model));
  }
};

} // namespace
