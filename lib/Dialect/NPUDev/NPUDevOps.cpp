//===- NPUDevOps.cpp - verifiers of npudev ops ----------------------------===//
//
// Shape and type rules of the device ops, and the on-chip capacity check of
// npudev.launch against the module's device: the peak bytes live at once
// per memory space, counted by getOnChipPeaks (Semantics.cpp), which the
// simulator uses too. O(ops in the body).
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/NPUDev/NPUDevOps.h"
#include "npu/Dialect/NPUDev/DeviceAttr.h"
#include "npu/Dialect/NPUDev/Semantics.h"
#include "npu/Runtime/ElementKind.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace npu;
using namespace npu::dev;

static MemRefType memrefOf(Value v) { return cast<MemRefType>(v.getType()); }

/// Checks that all `values` (memrefs) have one shape.
static LogicalResult verifySameShape(Operation *op, ValueRange values,
                                     StringRef what) {
  MemRefType first = memrefOf(values.front());
  for (Value v : values.drop_front())
    if (failed(verifyCompatibleShape(first.getShape(), memrefOf(v).getShape())))
      return op->emitOpError(what)
             << " must have one shape, got " << first << " and " << v.getType();
  return success();
}

/// Checks that all `values` (memrefs) have one element type.
static LogicalResult verifySameElementType(Operation *op, ValueRange values,
                                           StringRef what) {
  Type first = memrefOf(values.front()).getElementType();
  for (Value v : values.drop_front())
    if (memrefOf(v).getElementType() != first)
      return op->emitOpError(what)
             << " must have one element type, got " << first << " and "
             << memrefOf(v).getElementType();
  return success();
}

static LogicalResult verifyScalarMatches(Operation *op, Value scalar,
                                         Value buffer) {
  Type element = memrefOf(buffer).getElementType();
  if (scalar.getType() != element)
    return op->emitOpError("scalar of type ")
           << scalar.getType() << " does not match the element type "
           << element;
  return success();
}

//===----------------------------------------------------------------------===//
// Launch and tasks
//===----------------------------------------------------------------------===//

void LaunchOp::build(OpBuilder &builder, OperationState &state, int64_t tasks,
                     CoreKind cores) {
  state.addAttribute(getTasksAttrName(state.name),
                     builder.getI64IntegerAttr(tasks));
  state.addAttribute(getCoresAttrName(state.name),
                     CoreKindAttr::get(builder.getContext(), cores));
  Region *body = state.addRegion();
  ensureTerminator(*body, builder, state.location);
}

void MixedLaunchOp::build(OpBuilder &builder, OperationState &state,
                          int64_t cubeTasks, int64_t vectorTasks) {
  state.addAttribute(getCubeTasksAttrName(state.name),
                     builder.getI64IntegerAttr(cubeTasks));
  state.addAttribute(getVectorTasksAttrName(state.name),
                     builder.getI64IntegerAttr(vectorTasks));
  for (int i = 0; i < 2; ++i)
    ensureTerminator(*state.addRegion(), builder, state.location);
}

/// Rejects an op of `body` that needs a unit, or a buffer in a memory,
/// that `kind` cores lack.
static LogicalResult verifyUnitsOf(Region &body, CoreKind kind) {
  if (kind == CoreKind::unified)
    return success();
  bool cube = kind == CoreKind::cube;
  MemorySpace missing = cube ? MemorySpace::vector : MemorySpace::cube;
  WalkResult result = body.walk([&](Operation *op) {
    if (cube ? op->hasTrait<VectorUnit>() : op->hasTrait<CubeUnit>()) {
      op->emitOpError("needs the ")
          << (cube ? "vector" : "matrix") << " unit, which "
          << stringifyCoreKind(kind) << " cores lack";
      return WalkResult::interrupt();
    }
    for (Value result : op->getResults()) {
      auto type = dyn_cast<MemRefType>(result.getType());
      if (type && getMemorySpace(type) == missing) {
        op->emitOpError("makes a buffer in ")
            << stringifyMemorySpace(missing) << " memory, which "
            << stringifyCoreKind(kind) << " cores lack: " << type;
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

/// On-chip memory is counted statically (getOnChipPeaks, as the simulator
/// counts it): a buffer whose size is only known at run time cannot be.
/// Checks that and the peaks of `body` against `device`.
static LogicalResult verifyOnChipMemory(Operation *launch, Region &body,
                                        const DeviceModel &device) {
  WalkResult dynamic = body.walk([](Operation *op) {
    if (!isa<memref::AllocOp, memref::AllocaOp>(op))
      return WalkResult::advance();
    auto type = cast<MemRefType>(op->getResult(0).getType());
    std::optional<MemorySpace> space = getMemorySpace(type);
    if (!space || *space == MemorySpace::global || type.hasStaticShape())
      return WalkResult::advance();
    op->emitOpError("on-chip buffers in a launch have a static size, got ")
        << type;
    return WalkResult::interrupt();
  });
  if (dynamic.wasInterrupted())
    return failure();
  OnChipPeaks peaks = getOnChipPeaks(body.front());
  for (MemorySpace space :
       {MemorySpace::vector, MemorySpace::cube, MemorySpace::shared}) {
    int64_t need = peaks[static_cast<unsigned>(space)];
    int64_t capacity = device.getCapacity(space);
    if (need > capacity)
      return launch->emitOpError("needs ")
             << need << " bytes of " << stringifyMemorySpace(space)
             << " memory at once, but device '" << device.name << "' has "
             << capacity;
  }
  return success();
}

LogicalResult LaunchOp::verify() {
  if (getTasks() > kMaxLaunchTasks)
    return emitOpError("has ")
           << getTasks() << " tasks, more than the limit of "
           << kMaxLaunchTasks;
  FailureOr<DeviceModel> device = lookupDevice(*this);
  if (failed(device))
    return failure();
  if (getCores() == CoreKind::unified && device->hasSplitCores())
    return emitOpError("must say which cores run it ('on vector' or "
                       "'on cube'): device '")
           << device->name << "' has no cores with both units";
  if (failed(verifyUnitsOf(getBody(), getCores())))
    return failure();
  return verifyOnChipMemory(*this, getBody(), *device);
}

LogicalResult MixedLaunchOp::verify() {
  FailureOr<DeviceModel> device = lookupDevice(*this);
  if (failed(device))
    return failure();
  for (CoreKind kind : {CoreKind::cube, CoreKind::vector})
    if (failed(verifyUnitsOf(getRegion(kind), kind)) ||
        failed(verifyOnChipMemory(*this, getRegion(kind), *device)))
      return failure();
  // Every task may wait for any other, so all of them hold a core at once.
  if (!device->hasSplitCores()) {
    // Both counts are positive int64 values: their sum fits in uint64.
    uint64_t tasks = getCubeTasks() + getVectorTasks();
    int64_t cores = device->getNumCores();
    if (tasks > static_cast<uint64_t>(cores))
      return emitOpError("runs ")
             << tasks << " tasks at once, but device '" << device->name
             << "' has " << cores << " cores";
    return success();
  }
  for (CoreKind kind : {CoreKind::cube, CoreKind::vector})
    if (getTasks(kind) > device->getNumCores(kind))
      return emitOpError("runs ")
             << getTasks(kind) << " " << stringifyCoreKind(kind)
             << " tasks at once, but device '" << device->name << "' has "
             << device->getNumCores(kind) << " " << stringifyCoreKind(kind)
             << " cores";
  return success();
}

template <typename TaskOp> static LogicalResult verifyInsideLaunch(TaskOp op) {
  Operation *launch = op->getParentOp();
  while (launch && !isa<LaunchOp, MixedLaunchOp>(launch))
    launch = launch->getParentOp();
  if (!launch)
    return op.emitOpError("must be inside an npudev.launch");
  return success();
}

LogicalResult TaskIdOp::verify() { return verifyInsideLaunch(*this); }
LogicalResult TaskDimOp::verify() { return verifyInsideLaunch(*this); }

/// The mixed launch whose tasks run `op`, or an error.
static FailureOr<MixedLaunchOp> getMixedLaunch(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (auto mixed = dyn_cast<MixedLaunchOp>(parent))
      return mixed;
    if (isa<LaunchOp, AsyncOp>(parent))
      break;
  }
  return op->emitOpError("must be in the body of an npudev.mixed_launch "
                         "(not in a launch or async region)");
}

LogicalResult SetFlagOp::verify() {
  if (getTo() == CoreKind::unified)
    return emitOpError("sets a flag of a cube or vector task, not 'unified'");
  return getMixedLaunch(*this);
}

LogicalResult WaitFlagOp::verify() { return getMixedLaunch(*this); }

void AsyncOp::build(OpBuilder &builder, OperationState &state) {
  state.addTypes(TokenType::get(builder.getContext()));
  ensureTerminator(*state.addRegion(), builder, state.location);
}

LogicalResult AsyncOp::verify() {
  if (failed(verifyInsideLaunch(*this)))
    return failure();
  WalkResult nested = getBody().walk([&](Operation *op) {
    if (!isa<LaunchOp, MixedLaunchOp, WaitOp, WaitAllOp>(op))
      return WalkResult::advance();
    op->emitOpError("cannot be issued asynchronously");
    return WalkResult::interrupt();
  });
  return failure(nested.wasInterrupted());
}

LogicalResult ReportRowsOp::verify() {
  auto type = cast<MemRefType>(getRows().getType());
  if (type.getRank() != 1 || !type.getElementType().isSignlessInteger())
    return emitOpError("takes a rank-1 buffer of row numbers, got ") << type;
  if (!getMessage().contains(kReportedRowPlaceholder))
    return emitOpError("message must say where the row goes with '")
           << kReportedRowPlaceholder << "'";
  if (!(*this)->getParentOfType<LaunchOp>())
    return emitOpError("must be inside an npudev.launch");
  return success();
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

LogicalResult AllocOp::verify() {
  MemRefType type = getType();
  if (!type.hasStaticShape())
    return emitOpError("on-chip buffers have a static size, got ") << type;
  if (!type.getLayout().isIdentity())
    return emitOpError("on-chip buffers are contiguous, got ") << type;
  if (!getStaticByteSize(type))
    return emitOpError("buffer ")
           << type << " has more bytes than fit in a 64-bit count";
  // Both executors store exactly these; an i4 buffer, say, would have no
  // agreed layout in memory.
  if (!getElementKind(type.getElementType()))
    return emitOpError("element type ")
           << type.getElementType()
           << " is not one the executors store (i1, i8, i16, i32, i64, index, "
              "f16, bf16, f32, f64)";
  return success();
}

static LogicalResult verifyCopy(Operation *op, Value source, Value target) {
  if (failed(verifySameElementType(op, {source, target}, "source and target")))
    return failure();
  MemRefType src = memrefOf(source), dst = memrefOf(target);
  if (src.getRank() != dst.getRank() ||
      failed(verifyCompatibleShape(src.getShape(), dst.getShape())))
    return op->emitOpError("copies between shapes ")
           << src << " and " << dst << "; they must be equal";
  if (getMemorySpace(src) == MemorySpace::global &&
      getMemorySpace(dst) == MemorySpace::global)
    return op->emitOpError("copies global to global memory; a DMA must "
                           "have one side on chip");
  return success();
}

LogicalResult DmaOp::verify() {
  return verifyCopy(*this, getSource(), getTarget());
}
LogicalResult DmaStartOp::verify() {
  if (getConsumesSource() &&
      getMemorySpace(memrefOf(getSource())) == MemorySpace::global)
    return emitOpError("consumes its source, which is in global memory; only "
                       "an on-chip source can be consumed");
  return verifyCopy(*this, getSource(), getTarget());
}

//===----------------------------------------------------------------------===//
// Vector ops
//===----------------------------------------------------------------------===//

/// Bitwise ops, shifts and the remainder exist for integers only.
static bool isIntegerOnly(BinaryKind kind) {
  switch (kind) {
  case BinaryKind::add:
  case BinaryKind::sub:
  case BinaryKind::mul:
  case BinaryKind::div:
  case BinaryKind::max:
  case BinaryKind::min:
    return false;
  default:
    return true;
  }
}

static LogicalResult verifyBinaryKind(Operation *op, BinaryKind kind,
                                      Type element) {
  if (isIntegerOnly(kind) && !element.isSignlessInteger())
    return op->emitOpError("'")
           << stringifyBinaryKind(kind) << "' needs integers, got " << element;
  return success();
}

LogicalResult VBinaryOp::verify() {
  if (failed(
          verifySameShape(*this, {getLhs(), getRhs(), getOut()}, "operands")) ||
      failed(verifySameElementType(*this, {getLhs(), getRhs(), getOut()},
                                   "operands")))
    return failure();
  return verifyBinaryKind(*this, getKind(),
                          memrefOf(getOut()).getElementType());
}

LogicalResult VBinaryBroadcastOp::verify() {
  MemRefType lhs = memrefOf(getLhs()), rhs = memrefOf(getRhs());
  if (failed(verifySameShape(*this, {getLhs(), getOut()}, "lhs and out")) ||
      failed(verifySameElementType(*this, {getLhs(), getRhs(), getOut()},
                                   "operands")))
    return failure();
  int64_t dimension = getDimension();
  if (dimension >= lhs.getRank())
    return emitOpError("broadcasts along dimension ")
           << dimension << " of a rank-" << lhs.getRank() << " operand";
  if (rhs.getRank() != 1 ||
      (!ShapedType::isDynamic(rhs.getDimSize(0)) &&
       !ShapedType::isDynamic(lhs.getDimSize(dimension)) &&
       rhs.getDimSize(0) != lhs.getDimSize(dimension)))
    return emitOpError("rhs must be rank-1 with one element per index along "
                       "dimension ")
           << dimension << " (" << lhs.getDimSize(dimension) << "), got "
           << rhs;
  return verifyBinaryKind(*this, getKind(), lhs.getElementType());
}

LogicalResult VBinaryScalarOp::verify() {
  if (failed(verifySameShape(*this, {getInput(), getOut()}, "operands")) ||
      failed(
          verifySameElementType(*this, {getInput(), getOut()}, "operands")) ||
      failed(verifyScalarMatches(*this, getScalar(), getInput())))
    return failure();
  return verifyBinaryKind(*this, getKind(),
                          memrefOf(getOut()).getElementType());
}

LogicalResult VUnaryOp::verify() {
  if (failed(verifySameShape(*this, {getInput(), getOut()}, "operands")) ||
      failed(verifySameElementType(*this, {getInput(), getOut()}, "operands")))
    return failure();
  Type element = memrefOf(getOut()).getElementType();
  bool integerOk = getKind() == UnaryKind::abs || getKind() == UnaryKind::neg ||
                   getKind() == UnaryKind::relu;
  if (!integerOk && !isa<FloatType>(element))
    return emitOpError("'") << stringifyUnaryKind(getKind())
                            << "' needs floats, got " << element;
  return success();
}

LogicalResult VCompareOp::verify() {
  if (failed(
          verifySameShape(*this, {getLhs(), getRhs(), getOut()}, "operands")))
    return failure();
  return verifySameElementType(*this, {getLhs(), getRhs()}, "compared values");
}

LogicalResult VCompareScalarOp::verify() {
  if (failed(verifySameShape(*this, {getInput(), getOut()}, "operands")))
    return failure();
  return verifyScalarMatches(*this, getScalar(), getInput());
}

LogicalResult VSelectOp::verify() {
  if (failed(verifySameShape(
          *this, {getMask(), getOnTrue(), getOnFalse(), getOut()}, "operands")))
    return failure();
  return verifySameElementType(*this, {getOnTrue(), getOnFalse(), getOut()},
                               "selected values and result");
}

LogicalResult VReduceOp::verify() {
  if (failed(verifySameElementType(*this, {getInput(), getOut()}, "operands")))
    return failure();
  ArrayRef<int64_t> in = memrefOf(getInput()).getShape();
  SmallVector<int64_t> expected(in.drop_back());
  if (expected.empty())
    expected.push_back(1);
  if (failed(verifyCompatibleShape(expected, memrefOf(getOut()).getShape())))
    return emitOpError("reduces ")
           << getInput().getType() << " along its innermost dimension into "
           << getOut().getType() << "; the result must drop that dimension";
  return success();
}

LogicalResult VCastOp::verify() {
  return verifySameShape(*this, {getInput(), getOut()}, "operands");
}

LogicalResult VFillOp::verify() {
  return verifyScalarMatches(*this, getValue(), getOut());
}

LogicalResult VTransposeOp::verify() {
  MemRefType in = memrefOf(getInput()), out = memrefOf(getOut());
  if (failed(verifySameElementType(*this, {getInput(), getOut()}, "operands")))
    return failure();
  if (in.getRank() != 2 || out.getRank() != 2 ||
      failed(verifyCompatibleShape({in.getDimSize(1), in.getDimSize(0)},
                                   out.getShape())))
    return emitOpError("transposes 2-D buffers, got ") << in << " and " << out;
  return success();
}

/// Shared by gather and scatter: `rows` is indexed by `indices`, `dense`
/// holds one row per index.
static LogicalResult verifyIndexed(Operation *op, Value rows, Value indices,
                                   Value dense) {
  if (failed(verifySameElementType(op, {rows, dense}, "data operands")))
    return failure();
  MemRefType idx = memrefOf(indices);
  if (idx.getRank() != 1 || !idx.getElementType().isSignlessInteger())
    return op->emitOpError("indices must be a rank-1 integer buffer, got ")
           << idx;
  MemRefType r = memrefOf(rows), d = memrefOf(dense);
  SmallVector<int64_t> expected = {idx.getDimSize(0)};
  llvm::append_range(expected, r.getShape().drop_front());
  if (r.getRank() < 1 || failed(verifyCompatibleShape(expected, d.getShape())))
    return op->emitOpError("with ")
           << idx << " indices into " << r << ", the gathered side must be "
           << "one row per index, got " << d;
  return success();
}

LogicalResult VGatherOp::verify() {
  return verifyIndexed(*this, getSource(), getIndices(), getOut());
}
LogicalResult VScatterOp::verify() {
  return verifyIndexed(*this, getOut(), getIndices(), getSource());
}

LogicalResult DmaGatherOp::verify() {
  return verifyIndexed(*this, getSource(), getIndices(), getTarget());
}
LogicalResult DmaScatterOp::verify() {
  return verifyIndexed(*this, getTarget(), getIndices(), getSource());
}

LogicalResult VCumsumOp::verify() {
  if (failed(verifySameShape(*this, {getInput(), getOut()}, "operands")))
    return failure();
  return verifySameElementType(*this, {getInput(), getOut()}, "operands");
}

/// The values of a key-value sort or merge: all present or none, rank-1,
/// i32 or i64, one per key.
static LogicalResult verifySortValues(Operation *op, ValueRange keys,
                                      ValueRange values) {
  unsigned present = llvm::count_if(values, [](Value v) { return !!v; });
  if (present == 0)
    return success();
  if (present != values.size())
    return op->emitOpError("takes all its value buffers or none");
  for (auto [key, value] : llvm::zip(keys, values)) {
    if (memrefOf(key).getRank() != 1)
      return op->emitOpError("sorts keys with values in rank-1 buffers only, "
                             "got ")
             << key.getType();
    if (failed(verifySameShape(op, {key, value}, "keys and values")))
      return failure();
  }
  if (failed(verifySameElementType(op, values, "values")))
    return failure();
  Type value = memrefOf(values.front()).getElementType();
  if (!value.isSignlessInteger(32) && !value.isSignlessInteger(64))
    return op->emitOpError("values must be i32 or i64, got ") << value;
  return success();
}

LogicalResult VSortOp::verify() {
  if (failed(verifySameShape(*this, {getInput(), getOut()}, "operands")) ||
      failed(verifySameElementType(*this, {getInput(), getOut()}, "operands")))
    return failure();
  return verifySortValues(*this, {getInput(), getOut()},
                          {getValues(), getOutValues()});
}

LogicalResult VMergeOp::verify() {
  for (Value run : {getA(), getB(), getOut()})
    if (memrefOf(run).getRank() != 1)
      return emitOpError("merges rank-1 buffers, got ") << run.getType();
  if (failed(
          verifySameElementType(*this, {getA(), getB(), getOut()}, "operands")))
    return failure();
  int64_t a = memrefOf(getA()).getDimSize(0),
          b = memrefOf(getB()).getDimSize(0),
          out = memrefOf(getOut()).getDimSize(0);
  if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) &&
      !ShapedType::isDynamic(out) && a + b != out)
    return emitOpError("out must hold both runs: ")
           << a << " + " << b << " elements, got " << out;
  return verifySortValues(*this, {getA(), getB(), getOut()},
                          {getAValues(), getBValues(), getOutValues()});
}

LogicalResult VUniqueOp::verify() {
  if (memrefOf(getInput()).getRank() != 1)
    return emitOpError("takes a rank-1 buffer, got ") << getInput().getType();
  if (failed(verifySameShape(*this, {getInput(), getOut()}, "operands")))
    return failure();
  return verifySameElementType(*this, {getInput(), getOut()}, "operands");
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

void MatmulOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  effects.emplace_back(MemoryEffects::Read::get(), &getAMutable());
  effects.emplace_back(MemoryEffects::Read::get(), &getBMutable());
  if (getAccumulate())
    effects.emplace_back(MemoryEffects::Read::get(), &getCMutable());
  effects.emplace_back(MemoryEffects::Write::get(), &getCMutable());
}

LogicalResult MatmulOp::verify() {
  MemRefType a = memrefOf(getA()), b = memrefOf(getB()), c = memrefOf(getC());
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError("multiplies 2-D buffers, got ")
           << a << ", " << b << ", " << c;
  auto mismatch = [](int64_t x, int64_t y) {
    return !ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y;
  };
  // Logical [M, K] and [K, N], whatever the operands' storage.
  unsigned am = getTransposeA() ? 1 : 0, bn = getTransposeB() ? 0 : 1;
  if (mismatch(a.getDimSize(1 - am), b.getDimSize(1 - bn)) ||
      mismatch(a.getDimSize(am), c.getDimSize(0)) ||
      mismatch(b.getDimSize(bn), c.getDimSize(1)))
    return emitOpError("shapes do not chain: ")
           << (getTransposeA() ? "[K, M]^T" : "[M, K]") << " x "
           << (getTransposeB() ? "[N, K]^T" : "[K, N]")
           << " -> [M, N] needed, got " << a << ", " << b << ", " << c;
  Type in = a.getElementType();
  if (b.getElementType() != in)
    return emitOpError("inputs must have one element type, got ")
           << in << " and " << b.getElementType();
  Type acc = c.getElementType();
  bool ok =
      in.isInteger(8) ? acc.isInteger(32) : (isa<FloatType>(in) && acc.isF32());
  if (!ok)
    return emitOpError("accumulates ")
           << in << " products into " << acc
           << "; needs f32 for float inputs, i32 for i8";
  return success();
}

#define GET_OP_CLASSES
#include "npu/Dialect/NPUDev/NPUDevOps.cpp.inc"
