//===- ReduceKernels.cpp - npu.reduce on the vector cores -----------------===//
//
// A reduction over a block of consecutive axes views the input as [A, R, B]
// (R the reduced elements) and the result as [A, B]. Items (a, block of up
// to bc of B) are dealt to the vector tasks in turn; per item the R rows
// are read in chunks of rc ([rc, bc] windows), widened to f32, turned
// (vtranspose) so that each output element's terms are a row, reduced in
// order (vreduce) and folded into an f32 accumulator, which mean divides by
// R before it is rounded and stored. Reductions over axes that are not one
// block are refused with a diagnostic. Work O(A R B).
//
//===----------------------------------------------------------------------===//

#include "OperatorKernels.h"

#include "npu/Conversion/DeviceKernelOpInterface.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPU/NPUDialect.h"
#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Dialect/NPUDev/KernelBuilder.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"

#include <limits>

using namespace mlir;
using namespace npu;
using namespace npu::graph;

namespace {

class ReduceKernel {
public:
  ReduceKernel(KernelBuilder &k, ReduceOp op, const KernelOperands &io,
               const DeviceModel &device)
      : k(k), op(op), io(io), device(device) {
    element = op.getInput().getType().getElementType();
    f32 = k.builder().getF32Type();
  }

  LogicalResult chooseShape() {
    if (!element.isF16() && !element.isBF16() && !element.isF32())
      return op.emitOpError("cannot be lowered to the device: reductions "
                            "are computed in f32 from f16, bf16 or f32, got ")
             << element;
    SmallVector<int64_t> axes(op.getAxes());
    llvm::sort(axes);
    for (size_t i = 1; i < axes.size(); ++i)
      if (axes[i] != axes[i - 1] + 1)
        return op.emitOpError("cannot be lowered to the device: axes ")
               << op.getAxesAttr()
               << " are not consecutive (supported: one block of axes)";
    ArrayRef<int64_t> shape = op.getInput().getType().getShape();
    outer = computeProduct(shape.take_front(axes.front()));
    reduced = computeProduct(shape.slice(axes.front(), axes.size()));
    inner = computeProduct(shape.drop_front(axes.back() + 1));
    // [rc, bc] in the input type and in f32, its transpose, and the f32
    // accumulator, partial sums and result row of bc.
    int64_t eb = element.getIntOrFloatBitWidth() / 8;
    int64_t perElement = eb + 4 + 4;
    if (device.vectorBytes < perElement + 12 + eb)
      return op.emitOpError("cannot be lowered for device '")
             << device.name << "': it has " << device.vectorBytes
             << " bytes of vector memory, the kernel needs at least "
             << perElement + 12 + eb;
    bc = std::min<int64_t>(inner, 128);
    // At least one row, so that the loop over an empty reduction steps.
    rc = std::clamp<int64_t>(reduced, 1, 128);
    while (rc * bc * perElement + bc * (12 + eb) > device.vectorBytes) {
      int64_t &larger = rc >= bc ? rc : bc;
      larger = llvm::divideCeil(larger, 2);
    }
    return success();
  }

  void build() {
    int64_t bTiles = llvm::divideCeil(inner, bc);
    int64_t items = outer * bTiles;
    int64_t tasks =
        std::min<int64_t>(device.getNumCores(dev::CoreKind::vector), items);
    dev::LaunchOp launch = k.launch(tasks, [&](Value task) {
      Value in = k.reshape(io.operands[0], {outer, reduced, inner});
      Value out = k.reshape(io.results[0], {outer, inner});
      Value rows = k.alloc({rc, bc}, element);
      Value wide = element == f32 ? rows : k.alloc({rc, bc}, f32);
      Value turned = k.alloc({bc, rc}, f32);
      Value acc = k.alloc({bc}, f32);
      Value part = k.alloc({bc}, f32);
      Value narrow = element == f32 ? acc : k.alloc({bc}, element);
      k.forEachItem(task, tasks, items, [&](Value t) {
        Value a = k.div(t, k.index(bTiles));
        Value b0 = k.mul(k.rem(t, k.index(bTiles)), k.index(bc));
        Value nb = k.min(k.index(bc), k.sub(k.index(inner), b0));
        Value zero = k.index(0);
        Value sum = k.window(acc, {zero}, {nb});
        k.vfill(sum, k.f32(initialValue()));
        k.forLoop(zero, k.index(reduced), k.index(rc), [&](Value r0) {
          Value nr = k.min(k.index(rc), k.sub(k.index(reduced), r0));
          OpFoldResult one = k.builder().getIndexAttr(1);
          Value loaded = k.window(rows, {zero, zero}, {nr, nb});
          k.dma(k.window(in, {a, r0, b0}, {one, nr, nb}, {0}), loaded);
          Value terms = loaded;
          if (wide != rows) {
            terms = k.window(wide, {zero, zero}, {nr, nb});
            k.vcast(loaded, terms);
          }
          Value columns = k.window(turned, {zero, zero}, {nb, nr});
          k.builder().create<dev::VTransposeOp>(k.location(), terms, columns);
          Value partial = k.window(part, {zero}, {nb});
          k.vreduce(reduceKind(), columns, partial);
          k.vbinary(combineKind(), sum, partial, sum);
        });
        if (op.getKind() == graph::ReduceKind::mean)
          k.vbinaryScalar(dev::BinaryKind::div, sum,
                          k.f32(static_cast<double>(reduced)), sum);
        Value result = sum;
        if (narrow != acc) {
          result = k.window(narrow, {zero}, {nb});
          k.vcast(sum, result);
        }
        OpFoldResult one = k.builder().getIndexAttr(1);
        k.dma(result, k.window(out, {a, b0}, {one, nb}, {0}));
      });
    });
    OpBuilder &b = k.builder();
    KernelBuilder::recordTiling(
        launch, {b.getNamedAttr("strategy", b.getStringAttr("reduce")),
                 b.getNamedAttr("tile_rows", b.getI64IntegerAttr(rc)),
                 b.getNamedAttr("tile_cols", b.getI64IntegerAttr(bc))});
  }

private:
  double initialValue() {
    double inf = std::numeric_limits<double>::infinity();
    switch (op.getKind()) {
    case graph::ReduceKind::max:
      return -inf;
    case graph::ReduceKind::min:
      return inf;
    default:
      return 0;
    }
  }

  dev::ReduceKind reduceKind() {
    switch (op.getKind()) {
    case graph::ReduceKind::max:
      return dev::ReduceKind::max;
    case graph::ReduceKind::min:
      return dev::ReduceKind::min;
    default:
      return dev::ReduceKind::sum;
    }
  }

  dev::BinaryKind combineKind() {
    switch (op.getKind()) {
    case graph::ReduceKind::max:
      return dev::BinaryKind::max;
    case graph::ReduceKind::min:
      return dev::BinaryKind::min;
    default:
      return dev::BinaryKind::add;
    }
  }

  KernelBuilder &k;
  ReduceOp op;
  const KernelOperands &io;
  const DeviceModel &device;
  Type element, f32;
  int64_t outer = 1, reduced = 1, inner = 1, rc = 1, bc = 1;
};

struct ReduceKernelModel
    : DeviceKernelOpInterface::ExternalModel<ReduceKernelModel, ReduceOp> {
  /// The kernel views the input as [outer, reduced, inner]: padded rows
  /// are read in place when C stays a dimension of its own, the inner one
  /// (the block of axes ends just before it) or the only one reduced.
  bool readsAlignedStorage(Operation *op, Value) const {
    auto reduce = cast<ReduceOp>(op);
    int64_t rank = reduce.getInput().getType().getRank();
    ArrayRef<int64_t> axes = reduce.getAxes();
    if (axes.empty())
      return false;
    int64_t first = *llvm::min_element(axes), last = *llvm::max_element(axes);
    return last == rank - 2 || (first == rank - 1 && last == rank - 1);
  }

  LogicalResult buildDeviceKernels(Operation *op, OpBuilder &b,
                                   const KernelOperands &io,
                                   const DeviceModel &device,
                                   const KernelOptions &) const {
    auto reduce = cast<ReduceOp>(op);
    KernelBuilder k(b, op->getLoc());
    ReduceKernel kernel(k, reduce, io, device);
    if (failed(kernel.chooseShape()))
      return failure();
    // An empty result has nothing to compute.
    if (reduce.getOutput().getType().getNumElements() == 0)
      return success();
    kernel.build();
    return success();
  }
};

} // namespace

void npu::registerReduceKernelModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NPUDialect *) {
    ReduceOp::attachInterface<ReduceKernelModel>(*ctx);
  });
}
