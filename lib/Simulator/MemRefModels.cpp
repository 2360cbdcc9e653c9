//===- MemRefModels.cpp - meaning and cost of memref ops ------------------===//
//
// Loads and stores check their indices and the written state of what they
// read; a scalar access to global memory pays the DMA latency, an on-chip
// one a cycle. View ops (subview, collapse_shape, expand_shape, cast) build
// a new view of the same buffer and cost the scalar unit the address
// arithmetic; allocation, copies outside kernels and get_global (a constant
// global's data, loaded with the program) are free.
//
//===----------------------------------------------------------------------===//

#include "Models.h"
#include "VectorOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace npu;
using namespace npu::sim;

namespace {

/// The index operands from `first` on.
SmallVector<int64_t, 4> getIndices(OpExecution &exec, unsigned first,
                                   unsigned rank) {
  SmallVector<int64_t, 4> indices;
  for (unsigned d = 0; d < rank; ++d)
    indices.push_back(exec.getInt(first + d));
  return indices;
}

/// The linear index of the element of operand `memref` at the index
/// operands that follow it, bounds-checked. One pass and no allocation:
/// loads and stores are most of what scalar-heavy kernels execute.
FailureOr<int64_t> locateElement(OpExecution &exec, unsigned memref,
                                 unsigned firstIndex) {
  const MemRefView &v = exec.getView(memref);
  int64_t linear = v.offset;
  for (unsigned d = 0, rank = v.getRank(); d < rank; ++d) {
    int64_t i = exec.getInt(firstIndex + d);
    if (i < 0 || i >= v.sizes[d])
      return exec.checkIndices(v, getIndices(exec, firstIndex, rank));
    linear += i * v.strides[d];
  }
  return linear;
}

struct Load {
  static LogicalResult simulate(OpExecution &exec) {
    FailureOr<int64_t> linear = locateElement(exec, 0, 1);
    if (failed(linear))
      return failure();
    const MemRefView &v = exec.getView(0);
    if (!v.buffer->written.test(*linear))
      return exec.checkWritten(v, getIndices(exec, 1, v.getRank()));
    const uint8_t *p = v.address(*linear);
    if (isFloat(v.getKind()))
      exec.setFloat(0, loadFloat(p, v.getKind()));
    else
      exec.setInt(0, loadInt(p, v.getKind()));
    exec.chargeElementAccess(v);
    return success();
  }
};

struct Store {
  static LogicalResult simulate(OpExecution &exec) {
    FailureOr<int64_t> linear = locateElement(exec, 1, 2);
    if (failed(linear))
      return failure();
    const MemRefView &v = exec.getView(1);
    uint8_t *p = v.address(*linear);
    if (isFloat(v.getKind()))
      storeFloat(p, v.getKind(), exec.getFloat(0));
    else
      storeInt(p, v.getKind(), exec.getInt(0));
    v.buffer->markWritten(*linear);
    exec.chargeElementAccess(v);
    return success();
  }
};

struct SubView {
  static LogicalResult simulate(OpExecution &exec) {
    auto op = cast<memref::SubViewOp>(exec.getOp());
    const MemRefView &source = exec.getView(0);
    // Dynamic offsets, sizes and strides are operands in that order after
    // the source.
    unsigned nextOperand = 1;
    auto resolve = [&](OpFoldResult r) -> int64_t {
      if (auto attr = dyn_cast<Attribute>(r))
        return cast<IntegerAttr>(attr).getInt();
      return exec.getInt(nextOperand++);
    };
    SmallVector<int64_t, 4> offsets, sizes, strides;
    for (OpFoldResult r : op.getMixedOffsets())
      offsets.push_back(resolve(r));
    for (OpFoldResult r : op.getMixedSizes())
      sizes.push_back(resolve(r));
    for (OpFoldResult r : op.getMixedStrides())
      strides.push_back(resolve(r));
    MemRefView result;
    result.buffer = source.buffer;
    result.offset = source.offset;
    llvm::SmallBitVector dropped = op.getDroppedDims();
    for (unsigned d = 0; d < source.getRank(); ++d) {
      int64_t offset = offsets[d], size = sizes[d], stride = strides[d];
      if (size < 0 || offset < 0 ||
          (size > 0 && offset + (size - 1) * stride >= source.sizes[d]))
        return exec.emitOpError()
               << "window of " << size << " elements at offset " << offset
               << " with stride " << stride << " exceeds dimension " << d
               << " of size " << source.sizes[d];
      result.offset += offset * source.strides[d];
      if (dropped.test(d))
        continue;
      result.sizes.push_back(size);
      result.strides.push_back(stride * source.strides[d]);
    }
    exec.setView(0, std::move(result));
    exec.chargeScalar(2);
    return success();
  }
};

struct Dim {
  static LogicalResult simulate(OpExecution &exec) {
    const MemRefView &v = exec.getView(0);
    int64_t d = exec.getInt(1);
    if (d < 0 || d >= static_cast<int64_t>(v.getRank()))
      return exec.emitOpError() << "dimension " << d
                                << " is out of range for rank " << v.getRank();
    exec.setInt(0, v.sizes[d]);
    exec.chargeScalar();
    return success();
  }
};

/// memref.alloc and memref.alloca: dynamic sizes are the operands.
struct Alloc {
  static LogicalResult simulate(OpExecution &exec) {
    auto type = cast<MemRefType>(exec.getOp()->getResult(0).getType());
    SmallVector<int64_t, 4> sizes;
    unsigned dynamic = 0;
    for (int64_t d : type.getShape())
      sizes.push_back(ShapedType::isDynamic(d) ? exec.getInt(dynamic++) : d);
    FailureOr<MemRefView> view = exec.allocate(type, sizes);
    if (failed(view))
      return failure();
    exec.setView(0, std::move(*view));
    return success();
  }
};

struct CollapseShape {
  static LogicalResult simulate(OpExecution &exec) {
    // Each group of contiguous dimensions becomes one, strided like its
    // innermost member of more than one element (a unit dimension's stride
    // says nothing: a padded row's [..., 64 k, 1] collapses to stride 64).
    auto op = cast<memref::CollapseShapeOp>(exec.getOp());
    const MemRefView &src = exec.getView(0);
    MemRefView v = src;
    v.sizes.clear();
    v.strides.clear();
    for (const ReassociationIndices &group : op.getReassociationIndices()) {
      int64_t size = 1;
      for (int64_t d : group)
        size *= src.sizes[d];
      v.sizes.push_back(size);
      auto inner = llvm::find_if(llvm::reverse(group),
                                 [&](int64_t d) { return src.sizes[d] != 1; });
      v.strides.push_back(
          src.strides[inner == group.rend() ? group.back() : *inner]);
    }
    exec.setView(0, std::move(v));
    exec.chargeScalar();
    return success();
  }
};

struct ExpandShape {
  static LogicalResult simulate(OpExecution &exec) {
    auto op = cast<memref::ExpandShapeOp>(exec.getOp());
    const MemRefView &src = exec.getView(0);
    MemRefView v = src;
    v.sizes.clear();
    v.strides.clear();
    SmallVector<int64_t> shape;
    unsigned dynamic = 1;
    for (int64_t d : op.getResultType().getShape())
      shape.push_back(ShapedType::isDynamic(d) ? exec.getInt(dynamic++) : d);
    // A rank-0 source (no groups) expands to dimensions of size 1.
    if (op.getReassociationIndices().empty()) {
      v.sizes.assign(shape.begin(), shape.end());
      v.strides.assign(shape.size(), 1);
    }
    for (auto [s, group] : llvm::enumerate(op.getReassociationIndices())) {
      SmallVector<int64_t> strides(group.size());
      int64_t stride = src.strides[s];
      for (int i = static_cast<int>(group.size()) - 1; i >= 0; --i) {
        strides[i] = stride;
        stride *= shape[group[i]];
      }
      for (auto [i, d] : llvm::enumerate(group)) {
        v.sizes.push_back(shape[d]);
        v.strides.push_back(strides[i]);
      }
    }
    exec.setView(0, std::move(v));
    exec.chargeScalar();
    return success();
  }
};

/// memref.get_global of a constant global (the data a program image
/// carries, such as a large npu.constant): a new buffer holding the
/// initial value, written. Each execution gets its own copy; the program
/// runs it once per function.
struct GetGlobal {
  static LogicalResult simulate(OpExecution &exec) {
    auto op = cast<memref::GetGlobalOp>(exec.getOp());
    auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
        op, op.getNameAttr());
    auto value =
        global
            ? dyn_cast_or_null<DenseElementsAttr>(global.getInitialValueAttr())
            : DenseElementsAttr();
    if (!global || !global.getConstant() || !value)
      return exec.emitOpError()
             << "reads global '" << op.getName()
             << "', which is not a constant with a dense initial value";
    MemRefType type = op.getType();
    FailureOr<MemRefView> view = exec.allocate(type, type.getShape());
    if (failed(view))
      return failure();
    ElementKind kind = view->getKind();
    int64_t i = 0;
    if (isa<FloatType>(value.getElementType()))
      for (const APFloat &v : value.getValues<APFloat>())
        storeFloat(view->address(i++), kind, v.convertToDouble());
    else
      for (const APInt &v : value.getValues<APInt>())
        storeInt(view->address(i++), kind, v.getSExtValue());
    exec.markWritten(*view);
    exec.setView(0, std::move(*view));
    return success();
  }
};

/// memref.cast changes only the static type: the view is the same.
struct Cast {
  static LogicalResult simulate(OpExecution &exec) {
    exec.setValue(0, exec.getValue(0));
    return success();
  }
};

struct Dealloc {
  static LogicalResult simulate(OpExecution &exec) {
    exec.deallocate(exec.getView(0));
    return success();
  }
};

struct Copy {
  static LogicalResult simulate(OpExecution &exec) {
    const MemRefView &src = exec.getView(0), &dst = exec.getView(1);
    if (src.sizes != dst.sizes)
      return exec.emitOpError() << "copies between different shapes";
    if (failed(exec.checkWritten(src)))
      return failure();
    copyView(src, dst);
    exec.markWritten(dst);
    return success();
  }
};

} // namespace

void npu::sim::registerMemRefModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, memref::MemRefDialect *) {
    using namespace memref;
    attachModel<Load, LoadOp>(ctx);
    attachModel<Store, StoreOp>(ctx);
    attachModel<SubView, SubViewOp>(ctx);
    attachModel<Dim, DimOp>(ctx);
    attachModel<Alloc, AllocOp, AllocaOp>(ctx);
    attachModel<CollapseShape, CollapseShapeOp>(ctx);
    attachModel<ExpandShape, ExpandShapeOp>(ctx);
    attachModel<Cast, CastOp>(ctx);
    attachModel<Dealloc, DeallocOp>(ctx);
    attachModel<Copy, CopyOp>(ctx);
    attachModel<GetGlobal, GetGlobalOp>(ctx);
  });
}
