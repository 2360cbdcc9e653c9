//===- SparseConv.cpp - get_indice_pairs and sparse_conv3d ----------------===//
//
// The geometry rules of a sparse 3-D convolution (output shape formulas,
// subm and transpose constraints, 32-bit limits of the i32 results) and the
// verifiers of the two ops. O(1) per op.
//
//===----------------------------------------------------------------------===//

#include "OpDiagnostics.h"
#include "npu/Dialect/NPU/NPUOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace npu::graph;
using namespace npu::graph::detail;

namespace {
constexpr const char *kDimNames[3] = {"z", "y", "x"};
constexpr int64_t kInt32Limit = int64_t(1) << 31;
} // namespace

bool SparseConvGeometry::needsWideKeys() const {
  std::optional<int64_t> sites =
      llvm::checkedMul(batch, std::max(getInVolume(), getOutVolume()));
  return !sites || *sites >= std::numeric_limits<int32_t>::max();
}

SparseConvGeometry::Dims SparseConvGeometry::getOffset(int64_t k) const {
  return {k / (kernel[1] * kernel[2]), (k / kernel[2]) % kernel[1],
          k % kernel[2]};
}

std::optional<int64_t> SparseConvGeometry::reach(unsigned dim, int64_t x,
                                                 int64_t r) const {
  int64_t o;
  if (transpose) {
    o = x * stride[dim] - padding[dim] + r * dilation[dim];
  } else {
    int64_t t = x + padding[dim] - r * dilation[dim];
    if (t < 0 || t % stride[dim] != 0)
      return std::nullopt;
    o = t / stride[dim];
  }
  if (o < 0 || o >= out[dim])
    return std::nullopt;
  return o;
}

std::optional<int64_t> SparseConvGeometry::getIdentityOffset() const {
  if (transpose)
    return std::nullopt;
  int64_t k = 0;
  for (unsigned d = 0; d < 3; ++d) {
    if (stride[d] != 1 || padding[d] % dilation[d] != 0 ||
        padding[d] / dilation[d] >= kernel[d])
      return std::nullopt;
    k = k * kernel[d] + padding[d] / dilation[d];
  }
  return k;
}

LogicalResult SparseConvGeometry::complete(std::optional<Location> loc,
                                           StringRef opName) {
  // Bounds that keep every formula below far inside 64 bits.
  constexpr int64_t kLimit = int64_t(1) << 30;
  for (auto [name, dims] :
       {std::make_pair("spatial_shape", &in),
        std::make_pair("kernel_size", &kernel),
        std::make_pair("stride", &stride), std::make_pair("padding", &padding),
        std::make_pair("dilation", &dilation),
        std::make_pair("out_padding", &outPadding)})
    for (int64_t v : *dims)
      if (v >= kLimit)
        return emitShapeError(loc, opName, "attribute '", name,
                              "' must have elements below 2^30, got ",
                              formatShape(*dims));
  if (getKernelVolume() > kMaxKernelVolume)
    return emitShapeError(loc, opName, "kernel volume ", getKernelVolume(),
                          " exceeds ", kMaxKernelVolume);
  if (subm && transpose)
    return emitShapeError(loc, opName,
                          "'subm' and 'transpose' exclude each "
                          "other");
  for (unsigned d = 0; d < 3; ++d) {
    if (stride[d] != 1 && dilation[d] != 1)
      return emitShapeError(loc, opName,
                            "stride and dilation are both != 1 "
                            "in dimension ",
                            kDimNames[d]);
    if (outPadding[d] != 0 && !transpose)
      return emitShapeError(loc, opName, "'out_padding' needs 'transpose'");
    if (outPadding[d] >= std::max(stride[d], dilation[d]))
      return emitShapeError(loc, opName, "out_padding ", outPadding[d],
                            " in dimension ", kDimNames[d],
                            " must be below the stride or the dilation");
    out[d] = transpose
                 ? (in[d] - 1) * stride[d] - 2 * padding[d] + kernel[d] +
                       outPadding[d]
                 : (in[d] + 2 * padding[d] - dilation[d] * (kernel[d] - 1) -
                    1) / stride[d] +
                       1;
    // C++ division truncates: a negative numerator above -stride still
    // gives 1, so test the numerator itself.
    bool empty =
        transpose
            ? out[d] <= 0
            : in[d] + 2 * padding[d] - dilation[d] * (kernel[d] - 1) - 1 < 0;
    if (empty)
      return emitShapeError(loc, opName, "output size in dimension ",
                            kDimNames[d], " is not positive (input ", in[d],
                            ", kernel ", kernel[d], ", stride ", stride[d],
                            ", padding ", padding[d], ", dilation ",
                            dilation[d], ")");
  }
  if (subm) {
    if (stride != Dims{1, 1, 1})
      return emitShapeError(loc, opName, "'subm' requires stride 1, got ",
                            formatShape(stride));
    if (out != in)
      return emitShapeError(loc, opName, "'subm' requires the output shape ",
                            formatShape(out), " to equal the input shape ",
                            formatShape(in),
                            " (padding = dilation * (kernel - 1) / 2)");
  }
  std::optional<int64_t> plane = llvm::checkedMul(out[1], out[2]);
  std::optional<int64_t> volume =
      plane ? llvm::checkedMul(out[0], *plane) : plane;
  if (!volume || !llvm::checkedMul(batch, *volume))
    return emitShapeError(loc, opName,
                          "batch_size * output volume overflows "
                          "64 bits");
  return success();
}

//===----------------------------------------------------------------------===//
// get_indice_pairs
//===----------------------------------------------------------------------===//

/// Geometry from attributes that may be null (builders infer types before
/// default values are filled in).
static FailureOr<SparseConvGeometry>
makeGeometry(std::optional<Location> loc, StringRef opName,
             GetIndicePairsOp::Adaptor adaptor) {
  SparseConvGeometry g;
  g.batch = adaptor.getBatchSize();
  g.subm = adaptor.getSubm();
  g.transpose = adaptor.getTranspose();
  for (auto [name, attr, dims, dflt, lo] :
       {std::make_tuple("spatial_shape", adaptor.getSpatialShapeAttr(), &g.in,
                        0, 1),
        std::make_tuple("kernel_size", adaptor.getKernelSizeAttr(), &g.kernel,
                        0, 1),
        std::make_tuple("stride", adaptor.getStrideAttr(), &g.stride, 1, 1),
        std::make_tuple("padding", adaptor.getPaddingAttr(), &g.padding, 0, 0),
        std::make_tuple("dilation", adaptor.getDilationAttr(), &g.dilation, 1,
                        1),
        std::make_tuple("out_padding", adaptor.getOutPaddingAttr(),
                        &g.outPadding, 0, 0)}) {
    SmallVector<int64_t, 3> defaults(3, dflt);
    ArrayRef<int64_t> values = valuesOr(attr, defaults);
    if (failed(checkArrayAttr(loc, opName, name, values, 3, lo)))
      return failure();
    llvm::copy(values, dims->begin());
  }
  if (failed(g.complete(loc, opName)))
    return failure();
  return g;
}

LogicalResult GetIndicePairsOp::inferReturnTypes(MLIRContext *ctx,
                                                 std::optional<Location> loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &types) {
  StringRef opName = getOperationName();
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  if (indices.getRank() != 2 || indices.getDimSize(1) != 4)
    return emitShapeError(loc, opName,
                          "indices must be [L, 4] (batch, z, y, "
                          "x), got ",
                          indices);
  FailureOr<SparseConvGeometry> g = makeGeometry(loc, opName, adaptor);
  if (failed(g))
    return failure();
  int64_t sites = indices.getDimSize(0), k = g->getKernelVolume();
  if (!ShapedType::isDynamic(sites)) {
    // Row numbers and counts are i32: every result must index below 2^31.
    int64_t reachable = std::min(sites * k, g->batch * g->getOutVolume());
    if (2 * k * sites >= kInt32Limit || 4 * reachable >= kInt32Limit)
      return emitShapeError(loc, opName, "results of ", sites,
                            " sites and kernel volume ", k,
                            " would have 2^31 or more elements (i32 indices)");
  }
  Type i32 = IntegerType::get(ctx, 32);
  types.push_back(
      RankedTensorType::get({g->subm ? sites : ShapedType::kDynamic, 4}, i32));
  types.push_back(RankedTensorType::get({k, 2, sites}, i32));
  types.push_back(RankedTensorType::get({k}, i32));
  return success();
}

SparseConvGeometry GetIndicePairsOp::getGeometry() {
  return *makeGeometry(std::nullopt, getOperationName(), Adaptor(*this));
}

AlignMode GetIndicePairsOp::getAlignMode() { return AlignMode::NALIGN; }

//===----------------------------------------------------------------------===//
// sparse_conv3d
//===----------------------------------------------------------------------===//

LogicalResult SparseConv3DOp::verify() {
  auto shape = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  };
  auto rankIs = [&](Value v, StringRef name, int64_t rank,
                    StringRef layout) -> LogicalResult {
    if (shape(v).size() == size_t(rank))
      return success();
    return emitOpError() << name << " must have rank " << rank << " (" << layout
                         << "), got " << v.getType();
  };
  if (failed(rankIs(getFeatures(), "features", 2, "[L, Cin]")) ||
      failed(rankIs(getWeights(), "weights", 3, "[K, Cin, Cout]")) ||
      failed(rankIs(getIndicePairs(), "indice_pairs", 3, "[K, 2, L]")) ||
      failed(rankIs(getIndiceNum(), "indice_num", 1, "[K]")) ||
      failed(rankIs(getOutput(), "result", 2, "[num_act_out, Cout]")))
    return failure();
  auto features = shape(getFeatures()), weights = shape(getWeights()),
       pairs = shape(getIndicePairs()), output = shape(getOutput());
  int64_t k = shape(getIndiceNum())[0];
  // Each rule: two sizes that must agree, described for the message.
  struct Rule {
    int64_t a, b;
    const char *what;
  } rules[] = {
      {weights[0], k, "weights' kernel volume and indice_num's size"},
      {pairs[0], k, "indice_pairs' kernel volume and indice_num's size"},
      {pairs[1], 2, "indice_pairs' second dimension and 2"},
      {weights[1], features[1], "weights' Cin and features' Cin"},
      {output[1], weights[2], "the result's Cout and weights' Cout"},
      // Forward, features are the pairs' input rows; inverse, the output
      // rows of the forward convolution, whose count the pairs do not hold.
      {features[0], getInverse() ? features[0] : pairs[2],
       "features' rows and indice_pairs' L"},
  };
  for (const Rule &rule : rules)
    if (!ShapedType::isDynamic(rule.a) && !ShapedType::isDynamic(rule.b) &&
        rule.a != rule.b)
      return emitOpError() << rule.what << " differ: " << rule.a << " vs "
                           << rule.b;
  if (getSubm() && getInverse())
    return emitOpError() << "'subm' and 'inverse' exclude each other";
  // The centre offset of subm reads and writes the same rows.
  if (getSubm() && !ShapedType::isDynamic(features[0]) &&
      !ShapedType::isDynamic(output[0]) && features[0] != output[0])
    return emitOpError() << "'subm' needs as many result rows as features "
                            "rows, got "
                         << output[0] << " and " << features[0];
  if (!ShapedType::isDynamic(k) && k > kMaxKernelVolume)
    return emitOpError() << "kernel volume " << k << " exceeds "
                         << kMaxKernelVolume;
  Type element = getElementTypeOrSelf(getFeatures());
  if (getElementTypeOrSelf(getWeights()) != element ||
      getElementTypeOrSelf(getOutput()) != element)
    return emitOpError() << "features, weights and result must share one "
                            "element type, got "
                         << getFeatures().getType() << ", "
                         << getWeights().getType() << " and "
                         << getOutput().getType();
  // A static row count is a promise about num_act_out: only a constant
  // keeps it.
  if (!ShapedType::isDynamic(output[0])) {
    APInt rows;
    if (!matchPattern(getNumActOut(), m_ConstantInt(&rows)) ||
        rows.getSExtValue() != output[0])
      return emitOpError() << "result has " << output[0]
                           << " rows but num_act_out is not that constant; "
                              "declare the rows '?'";
  }
  return success();
}

AlignMode SparseConv3DOp::getAlignMode() { return AlignMode::NALIGN; }
