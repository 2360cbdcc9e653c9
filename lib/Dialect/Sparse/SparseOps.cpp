//===- SparseOps.cpp - verifiers of the sparse iteration ops --------------===//
//
// Each rule of the format tree, of buffers over axes and of iterations has
// one diagnostic naming the op, the axis (by its position in the op's
// list) and the broken constraint.
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/Sparse/SparseOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace npu::sparse;

/// Every count of the dialect (an axis's length and nnz_cols, the
/// positions an iteration enumerates from its fixed axes) is below 2^31,
/// what i32 index arrays address. Like the launch's task limit, it bounds
/// the work an input can ask for (and keeps position arithmetic far from
/// overflowing).
static constexpr int64_t kMaxCount = (int64_t(1) << 31) - 1;

#define GET_OP_CLASSES
#include "npu/Dialect/Sparse/SparseOps.cpp.inc"

//===----------------------------------------------------------------------===//
// AxisOp
//===----------------------------------------------------------------------===//

AxisOp AxisOp::getParentAxis() {
  return getParent() ? getParent().getDefiningOp<AxisOp>() : AxisOp();
}

SmallVector<Value> AxisOp::getAncestors() {
  SmallVector<Value> chain;
  for (AxisOp a = getParentAxis(); a; a = a.getParentAxis())
    chain.push_back(a.getResult());
  std::reverse(chain.begin(), chain.end());
  return chain;
}

/// Positions of `axis` in all, when known statically: a chain of fixed
/// axes from the root.
static std::optional<int64_t> getStaticPositions(AxisOp axis) {
  switch (axis.getKind()) {
  case AxisKind::dense_fixed:
    return axis.getLengthValue();
  case AxisKind::sparse_fixed:
    if (AxisOp parent = axis.getParentAxis())
      if (std::optional<int64_t> above = getStaticPositions(parent)) {
        int64_t positions;
        if (llvm::MulOverflow(*above, axis.getNnzColsValue(), positions))
          return std::numeric_limits<int64_t>::max();
        return positions;
      }
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

/// Whether following parents from `axis` comes back to an axis already
/// seen: a parent defined after its child, which dominance rejects only
/// after this verifier has run.
static bool hasParentCycle(AxisOp axis) {
  llvm::SmallPtrSet<Operation *, 8> seen;
  for (AxisOp a = axis; a; a = a.getParentAxis())
    if (!seen.insert(a).second)
      return true;
  return false;
}

LogicalResult AxisOp::verify() {
  // Before anything that walks the parents.
  if (hasParentCycle(*this))
    return emitOpError("its parent chain comes back to an axis it has passed");
  AxisKind kind = getKind();
  StringRef name = stringifyAxisKind(kind);
  auto need = [&](bool has, StringRef what) -> LogicalResult {
    if (has)
      return success();
    return emitOpError() << "a " << name << " axis needs " << what;
  };
  auto forbid = [&](bool has, StringRef what) -> LogicalResult {
    if (!has)
      return success();
    return emitOpError() << "a " << name << " axis has no " << what;
  };
  if (getLengthValue() < 0 || getLengthValue() > kMaxCount)
    return emitOpError() << "length must be in [0, 2^31 - 1], got "
                         << getLengthValue();
  bool fixed = kind == AxisKind::dense_fixed;
  if (failed(fixed ? forbid(bool(getParent()), "parent")
                   : need(bool(getParent()), "a parent axis")))
    return failure();
  if (getParent() && !getParentAxis())
    return emitOpError("parent must be defined by sparse.axis");
  if (failed(isVariable() ? need(bool(getIndptr()), "indptr")
                          : forbid(bool(getIndptr()), "indptr")))
    return failure();
  if (failed(isSparse() ? need(bool(getIndices()), "indices")
                        : forbid(bool(getIndices()), "indices")))
    return failure();
  bool sparseFixed = kind == AxisKind::sparse_fixed;
  if (failed(sparseFixed ? need(bool(getNnzCols()), "nnz_cols")
                         : forbid(bool(getNnzCols()), "nnz_cols")))
    return failure();
  if (getSorted() && !isSparse())
    return emitOpError() << "only a sparse axis can be sorted; this one is "
                         << name;
  if (sparseFixed) {
    int64_t nnz = getNnzColsValue();
    if (nnz < 0 || nnz > (getSorted() ? getLengthValue() : kMaxCount))
      return emitOpError() << "nnz_cols must be in [0, "
                           << (getSorted() ? "length" : "2^31 - 1") << "], got "
                           << nnz;
  }
  // Static sizes: indptr has a parent's positions plus one entries, a
  // sparse-fixed axis's indices nnz_cols per parent position.
  std::optional<int64_t> parentPositions;
  if (AxisOp parent = getParentAxis())
    parentPositions = getStaticPositions(parent);
  if (std::optional<int64_t> positions = getStaticPositions(*this);
      positions && *positions > kMaxCount)
    return emitOpError() << "has more than 2^31 - 1 positions";
  if (!parentPositions)
    return success();
  auto checkSize = [&](Value array, StringRef what,
                       int64_t expected) -> LogicalResult {
    auto type = cast<MemRefType>(array.getType());
    if (type.isDynamicDim(0) || type.getDimSize(0) == expected)
      return success();
    return emitOpError() << what << " must have " << expected
                         << " entries for the parent's " << *parentPositions
                         << " positions, got " << type.getDimSize(0);
  };
  if (getIndptr() &&
      failed(checkSize(getIndptr(), "indptr", *parentPositions + 1)))
    return failure();
  if (sparseFixed && failed(checkSize(getIndices(), "indices",
                                      *parentPositions * getNnzColsValue())))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// BufferOp
//===----------------------------------------------------------------------===//

LogicalResult BufferOp::verify() {
  auto type = cast<BufferType>(getResult().getType());
  if (type.getRank() != getAxes().size())
    return emitOpError() << "result has rank " << type.getRank() << " but "
                         << getAxes().size() << " axes are given";
  Type element = getData().getType().getElementType();
  if (type.getElementType() != element)
    return emitOpError() << "result element type " << type.getElementType()
                         << " differs from the data's " << element;
  SmallVector<AxisOp> axes;
  for (auto [i, value] : llvm::enumerate(getAxes())) {
    auto axis = value.getDefiningOp<AxisOp>();
    if (!axis)
      return emitOpError() << "axis #" << i << " is not defined by sparse.axis";
    if (llvm::is_contained(axes, axis))
      return emitOpError() << "axis #" << i << " appears twice";
    // F(i - 1) must be the parent's position: the axes before are its
    // ancestors, root first.
    if (axis.getParent() &&
        getAxes().take_front(i) != ValueRange(axis.getAncestors()))
      return emitOpError()
             << "axis #" << i << " (" << stringifyAxisKind(axis.getKind())
             << ") must come right after its ancestors, root first: the axes "
                "before it are not its ancestor chain";
    axes.push_back(axis);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// IterationOp
//===----------------------------------------------------------------------===//

/// Checks that `region`'s block takes `count` index arguments.
static LogicalResult verifyCoordinates(IterationOp op, Region &region,
                                       StringRef name, size_t count) {
  Block &block = region.front();
  if (block.getNumArguments() != count)
    return op.emitOpError()
           << name << " takes " << count << " coordinates, its block has "
           << block.getNumArguments() << " arguments";
  for (BlockArgument arg : block.getArguments())
    if (!arg.getType().isIndex())
      return op.emitOpError() << name << " argument #" << arg.getArgNumber()
                              << " must be index, got " << arg.getType();
  return success();
}

SmallVector<unsigned> IterationOp::getLoopAxes() {
  SmallVector<unsigned> order;
  if (std::optional<ArrayRef<int64_t>> given = getLoopOrder())
    for (int64_t i : *given)
      order.push_back(i);
  else
    for (unsigned i = 0, e = getAxes().size(); i < e; ++i)
      order.push_back(i);
  return order;
}

/// `loop_order` is a permutation of the axis numbers.
static LogicalResult verifyLoopOrder(IterationOp op) {
  std::optional<ArrayRef<int64_t>> order = op.getLoopOrder();
  if (!order)
    return success();
  size_t n = op.getAxes().size();
  SmallVector<bool> seen(n, false);
  if (order->size() != n)
    return op.emitOpError() << "loop_order must be a permutation of the " << n
                            << " axis numbers";
  for (int64_t i : *order) {
    if (i < 0 || size_t(i) >= n || seen[i])
      return op.emitOpError() << "loop_order must be a permutation of the " << n
                              << " axis numbers";
    seen[i] = true;
  }
  return success();
}

/// `fuse = [a, b]`: b's parent a, right before b in the loop order.
static LogicalResult verifyFuse(IterationOp op, MutableArrayRef<AxisOp> axes,
                                ArrayRef<unsigned> loops) {
  std::optional<ArrayRef<int64_t>> fuse = op.getFuse();
  if (!fuse)
    return success();
  if (fuse->size() != 2 || llvm::any_of(*fuse, [&](int64_t i) {
        return i < 0 || size_t(i) >= axes.size();
      }))
    return op.emitOpError("fuse takes two axis numbers");
  int64_t a = (*fuse)[0], b = (*fuse)[1];
  if (axes[b].getParentAxis() != axes[a])
    return op.emitOpError() << "fuses axis #" << b << " with axis #" << a
                            << ", which is not its parent";
  const auto *at = llvm::find(loops, unsigned(a));
  if (at + 1 == loops.end() || at[1] != unsigned(b))
    return op.emitOpError() << "fuses axes #" << a << " and #" << b
                            << ", which are not adjacent loops in that order";
  return success();
}

LogicalResult IterationOp::verifyRegions() {
  if (getAxes().empty())
    return emitOpError("iterates at least one axis");
  if (getIteratorKinds().size() != getAxes().size())
    return emitOpError() << getAxes().size() << " axes but "
                         << getIteratorKinds().size() << " iterator kinds";
  if (failed(verifyLoopOrder(*this)))
    return failure();
  SmallVector<AxisOp> axes;
  size_t spatial = 0;
  for (auto [i, value] : llvm::enumerate(getAxes())) {
    auto axis = value.getDefiningOp<AxisOp>();
    if (!axis)
      return emitOpError() << "axis #" << i << " is not defined by sparse.axis";
    if (llvm::is_contained(axes, axis))
      return emitOpError() << "axis #" << i << " is iterated twice";
    axes.push_back(axis);
  }
  // Dependencies, in the order the loops nest.
  SmallVector<unsigned> loops = getLoopAxes();
  for (auto [depth, i] : llvm::enumerate(loops)) {
    AxisOp axis = axes[i];
    StringRef name = stringifyAxisKind(axis.getKind());
    AxisOp parent = axis.getParentAxis();
    const auto *at = llvm::find(axes, parent);
    if (parent && (at == axes.end() ||
                   !llvm::is_contained(ArrayRef(loops).take_front(depth),
                                       unsigned(at - axes.begin()))))
      return emitOpError() << "axis #" << i << " (" << name
                           << ") needs its parent iterated outside it";
    bool isSpatial = getIteratorKind(i) == IteratorKind::spatial;
    if (isSpatial && parent &&
        getIteratorKind(at - axes.begin()) != IteratorKind::spatial)
      return emitOpError() << "spatial axis #" << i << " (" << name
                           << ") has a reduction parent";
    spatial += isSpatial;
  }
  if (failed(verifyFuse(*this, axes, loops)))
    return failure();
  // The loops over fixed axes run a number of times the IR alone decides.
  int64_t trips = 1;
  for (AxisOp axis : axes) {
    int64_t extent =
        axis.getKind() == AxisKind::dense_fixed    ? axis.getLengthValue()
        : axis.getKind() == AxisKind::sparse_fixed ? axis.getNnzColsValue()
                                                   : 1;
    if (llvm::MulOverflow(trips, extent, trips) || trips > kMaxCount)
      return emitOpError() << "enumerates more than 2^31 - 1 positions "
                              "from its fixed axes (the product of their "
                              "lengths and nnz_cols)";
  }
  if (std::optional<int64_t> width = getHybridEllWidth()) {
    if (*width < 1)
      return emitOpError() << "hybrid_ell_width must be at least 1, got "
                           << *width;
    if (loops.size() < 2 ||
        axes[loops[1]].getKind() != AxisKind::sparse_variable ||
        axes[loops[1]].getParentAxis() != axes[loops[0]] ||
        axes[loops[0]].getParent() || getFuse())
      return emitOpError("hybrid_ell_width splits the second loop's axis, "
                         "which must be a sparse_variable child of the "
                         "first, unfused, parentless loop axis");
  }
  if (bool(getRangeBegin()) != bool(getRangeEnd()))
    return emitOpError("range needs both a begin and an end");
  if (getRangeBegin() &&
      (axes.empty() || axes[loops.front()].getParent() ||
       getIteratorKind(loops.front()) != IteratorKind::spatial))
    return emitOpError("range restricts the outermost loop's axis, which "
                       "must be spatial and have no parent");
  if (failed(verifyCoordinates(*this, getBody(), "body", axes.size())))
    return failure();
  if (!getInit().empty() &&
      failed(verifyCoordinates(*this, getInit(), "init", spatial)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// LoadOp, StoreOp
//===----------------------------------------------------------------------===//

static LogicalResult verifyAccess(Operation *op, BufferType type,
                                  size_t coords) {
  if (type.getRank() == coords)
    return success();
  return op->emitOpError() << "takes " << type.getRank()
                           << " indices for its buffer, got " << coords;
}

LogicalResult LoadOp::verify() {
  return verifyAccess(*this, getBuffer().getType(), getCoords().size());
}

LogicalResult StoreOp::verify() {
  return verifyAccess(*this, getBuffer().getType(), getCoords().size());
}

LogicalResult PosLoadOp::verify() {
  return verifyAccess(*this, getBuffer().getType(), getPositions().size());
}

LogicalResult PosStoreOp::verify() {
  return verifyAccess(*this, getBuffer().getType(), getPositions().size());
}
