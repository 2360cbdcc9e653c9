//===- KernelBuilder.h - building npudev kernels ----------------*- C++ -*-===//
//
// The one layer every producer of npudev IR builds kernels with (the graph
// ops' kernels, the sparse lowering's launches and checks): a thin layer
// over OpBuilder for index arithmetic, windows into memrefs, on-chip
// buffers, DMA, vector and cube ops, and loops, so that a kernel reads like
// the pseudo-code of the mlu-ops and CANN operator designs.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DIALECT_NPUDEV_KERNELBUILDER_H
#define NPU_DIALECT_NPUDEV_KERNELBUILDER_H

#include "npu/Dialect/NPUDev/NPUDevOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace npu {

/// Builds npudev kernels at an OpBuilder's insertion point, at one
/// location.
class KernelBuilder {
public:
  KernelBuilder(mlir::OpBuilder &b, mlir::Location loc) : b(b), loc(loc) {}

  mlir::OpBuilder &builder() { return b; }
  mlir::Location location() const { return loc; }

  //===--- Constants and index arithmetic ---------------------------------===//
  mlir::Value index(int64_t v);
  mlir::Value i32(int64_t v);
  mlir::Value f32(double v);
  /// The floating-point constant `v` of type `type` (rounded to it).
  mlir::Value floatConstant(mlir::Type type, double v);
  mlir::Value add(mlir::Value x, mlir::Value y);
  mlir::Value sub(mlir::Value x, mlir::Value y);
  mlir::Value mul(mlir::Value x, mlir::Value y);
  mlir::Value div(mlir::Value x, mlir::Value y);
  /// x / y for non-negative x and y (unsigned division).
  mlir::Value divU(mlir::Value x, mlir::Value y);
  mlir::Value rem(mlir::Value x, mlir::Value y);
  mlir::Value min(mlir::Value x, mlir::Value y);
  mlir::Value max(mlir::Value x, mlir::Value y);
  mlir::Value lt(mlir::Value x, mlir::Value y);
  mlir::Value ge(mlir::Value x, mlir::Value y);
  mlir::Value eq(mlir::Value x, mlir::Value y);
  mlir::Value andI(mlir::Value x, mlir::Value y);
  mlir::Value select(mlir::Value cond, mlir::Value x, mlir::Value y);
  mlir::Value toIndex(mlir::Value v);
  /// The integer or index constant `v` of type `type`.
  mlir::Value constant(mlir::Type type, int64_t v);
  /// `v` converted to `type` as npudev converts elements
  /// (dev::convertElement).
  mlir::Value convert(mlir::Value v, mlir::Type type);

  //===--- Memory ---------------------------------------------------------===//
  /// A static on-chip buffer.
  mlir::Value alloc(llvm::ArrayRef<int64_t> shape, mlir::Type element,
                    dev::MemorySpace space = dev::MemorySpace::vector);
  /// The window of `memref` at `offsets` with `sizes` (unit strides),
  /// dropping the dimensions listed in `drop` (which must have size 1).
  mlir::Value window(mlir::Value memref, llvm::ArrayRef<mlir::Value> offsets,
                     llvm::ArrayRef<mlir::OpFoldResult> sizes,
                     llvm::ArrayRef<unsigned> drop = {});
  /// The same taking every `steps[d]`-th element along dimension d (a
  /// strided convolution's input rows).
  mlir::Value window(mlir::Value memref, llvm::ArrayRef<mlir::Value> offsets,
                     llvm::ArrayRef<mlir::OpFoldResult> sizes,
                     llvm::ArrayRef<int64_t> steps,
                     llvm::ArrayRef<unsigned> drop);
  /// `memref` viewed with the static `shape` of as many elements: collapsed
  /// to one dimension, then expanded. A strided view (a value stored with
  /// padded rows) is collapsed and expanded group by group instead, which
  /// needs every group of dimensions merged to be contiguous: a padded
  /// view's innermost dimension may be split but not merged with others
  /// (a fatal error names the misuse).
  mlir::Value reshape(mlir::Value memref, llvm::ArrayRef<int64_t> shape);
  /// The size of dimension `d` of `memref`.
  mlir::Value dim(mlir::Value memref, int64_t d);
  /// memref[index] and memref[index] = value.
  mlir::Value load(mlir::Value memref, mlir::ValueRange indices);
  void store(mlir::Value value, mlir::Value memref, mlir::ValueRange indices);
  void dma(mlir::Value source, mlir::Value target);
  /// An asynchronous DMA; returns its token. `consumesSource`: the copy is
  /// the last read of the on-chip source's values (npudev.dma_start's
  /// promise).
  mlir::Value dmaStart(mlir::Value source, mlir::Value target,
                       bool consumesSource = false);
  /// Waits for the DMA of `token`.
  void wait(mlir::Value token);
  /// Waits for every DMA the task has started (npudev.wait_all).
  void waitAll();
  /// A token that is complete at once (an empty npudev.async), for the
  /// branch of an scf.if that starts no copy.
  mlir::Value completedToken();

  /// Indexed DMA (dma_gather / dma_scatter).
  void dmaGather(mlir::Value source, mlir::Value indices, mlir::Value target);
  void dmaScatter(mlir::Value source, mlir::Value target, mlir::Value indices,
                  bool add = false);

  //===--- Vector unit (whole on-chip buffers) ----------------------------===//
  void vbinary(dev::BinaryKind kind, mlir::Value lhs, mlir::Value rhs,
               mlir::Value out);
  /// out = in (kind) scalar; `scalar` is converted to the element type.
  void vbinaryScalar(dev::BinaryKind kind, mlir::Value in, mlir::Value scalar,
                     mlir::Value out);
  void vcmp(dev::ComparePredicate pred, mlir::Value lhs, mlir::Value rhs,
            mlir::Value out);
  void vcmpScalar(dev::ComparePredicate pred, mlir::Value in,
                  mlir::Value scalar, mlir::Value out);
  void vselect(mlir::Value mask, mlir::Value onTrue, mlir::Value onFalse,
               mlir::Value out);
  void vfill(mlir::Value out, mlir::Value value);
  void vfill(mlir::Value out, int64_t value);
  /// out[..., i, ...] = start + i along `dimension`.
  void iota(mlir::Value out, mlir::Value start, int64_t dimension = 0);
  void vunary(dev::UnaryKind kind, mlir::Value in, mlir::Value out);
  /// out = lhs (kind) rhs[i], rhs spread along `dimension` of lhs.
  void vbinaryBroadcast(dev::BinaryKind kind, mlir::Value lhs, mlir::Value rhs,
                        mlir::Value out, int64_t dimension);

  //===--- Matrix unit ----------------------------------------------------===//
  void matmul(mlir::Value a, mlir::Value b, mlir::Value c, bool accumulate,
              bool transposeB = false);
  /// c = a b where `first` (an i1) holds, else c += a b: a sum over a
  /// loop's steps, started by its first.
  void matmulSum(mlir::Value a, mlir::Value b, mlir::Value c, mlir::Value first,
                 bool transposeA, bool transposeB);
  void vcast(mlir::Value in, mlir::Value out);
  void vcumsum(mlir::Value in, mlir::Value out);
  void vreduce(dev::ReduceKind kind, mlir::Value in, mlir::Value out);
  /// Fails the kernel naming the smallest non-negative entry of `rows`
  /// (npudev.report_rows); `message` says where with "{row}".
  void reportRows(mlir::Value rows, llvm::StringRef message);
  /// A size read at run time, dimension `dim` of `memref`, that must equal
  /// dimension `expectedDim` of `expected` or, when `expected` is null, be
  /// at most `limit`. `message` is the error, with "{row}" standing for the
  /// size.
  struct SizeCheck {
    mlir::Value memref;
    int64_t dim;
    mlir::Value expected;
    int64_t expectedDim;
    std::string message;
    int64_t limit = 0;
  };
  /// A one-task launch that fails the kernel at the first of `checks` that
  /// does not hold (recorded as strategy "check_sizes"). The verifier
  /// cannot compare sizes it does not know, and a kernel that trusted them
  /// would read past the shorter operand.
  dev::LaunchOp checkSizes(llvm::ArrayRef<SizeCheck> checks);

  //===--- Control flow ---------------------------------------------------===//
  /// for (iv = lb; iv < ub; iv += step) body(iv).
  void forLoop(mlir::Value lb, mlir::Value ub, mlir::Value step,
               llvm::function_ref<void(mlir::Value)> body);
  /// for with one loop-carried value; returns its final value.
  mlir::Value
  forLoop(mlir::Value lb, mlir::Value ub, mlir::Value step, mlir::Value init,
          llvm::function_ref<mlir::Value(mlir::Value, mlir::Value)> body);
  /// for with loop-carried values; returns their final values.
  llvm::SmallVector<mlir::Value> forLoopCarrying(
      mlir::Value lb, mlir::Value ub, mlir::Value step, mlir::ValueRange init,
      llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::Value,
                                                        mlir::ValueRange)>
          body);
  /// while (cond(state)) state = body(state); returns the final state.
  llvm::SmallVector<mlir::Value>
  whileLoop(mlir::ValueRange init,
            llvm::function_ref<mlir::Value(mlir::ValueRange)> cond,
            llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::ValueRange)>
                body);
  void ifThenElse(mlir::Value cond, llvm::function_ref<void()> thenBody,
                  llvm::function_ref<void()> elseBody = nullptr);
  /// cond ? thenValue() : elseValue() of `type`, each computed only on its
  /// branch (an scf.if with a result).
  mlir::Value ifThenElse(mlir::Value cond, mlir::Type type,
                         llvm::function_ref<mlir::Value()> thenValue,
                         llvm::function_ref<mlir::Value()> elseValue);
  /// An npudev.launch of `tasks` tasks on `cores`; `body(taskId)` fills
  /// it. Returns the launch.
  dev::LaunchOp launch(int64_t tasks,
                       llvm::function_ref<void(mlir::Value)> body,
                       dev::CoreKind cores = dev::CoreKind::vector);
  /// An npudev.launch with an empty body, for ops moved into it.
  dev::LaunchOp emptyLaunch(int64_t tasks,
                            dev::CoreKind cores = dev::CoreKind::vector);
  /// An npudev.mixed_launch; `cube(taskId)` and `vector(taskId)` fill its
  /// regions.
  dev::MixedLaunchOp mixedLaunch(int64_t cubeTasks, int64_t vectorTasks,
                                 llvm::function_ref<void(mlir::Value)> cube,
                                 llvm::function_ref<void(mlir::Value)> vector);
  void setFlag(int64_t flag, dev::CoreKind to, mlir::Value task);
  void waitFlag(int64_t flag);
  /// The digits of `linear` in the mixed radix `sizes` (outermost first):
  /// linear = ((d0 sizes[1] + d1) sizes[2] + d2) ... The outermost digit
  /// takes what is left (sizes[0] is not applied), as a work item loop's
  /// item numbers never exceed the product; a digit of radix 1 is the
  /// constant 0.
  llvm::SmallVector<mlir::Value> delinearize(mlir::Value linear,
                                             llvm::ArrayRef<int64_t> sizes);
  /// Work item loop of a task: for (t = taskId; t < items; t += tasks).
  void forEachItem(mlir::Value taskId, int64_t tasks, int64_t items,
                   llvm::function_ref<void(mlir::Value)> body);
  /// The same over a number of items known at run time.
  void forEachItem(mlir::Value taskId, int64_t tasks, mlir::Value items,
                   llvm::function_ref<void(mlir::Value)> body);

  /// Records a lowering's choices on `launch` as `npudev.tiling`.
  static void recordTiling(dev::LaunchOp launch,
                           llvm::ArrayRef<mlir::NamedAttribute> choices);
  /// The same for one step of a multi-launch strategy with one size.
  static void recordStep(dev::LaunchOp launch, llvm::StringRef strategy,
                         llvm::StringRef step, llvm::StringRef sizeName,
                         int64_t size);

private:
  mlir::OpBuilder &b;
  mlir::Location loc;
};

} // namespace npu

#endif // NPU_DIALECT_NPUDEV_KERNELBUILDER_H
