//===- Importer.h - shared state of the ONNX importer -----------*- C++ -*-===//
//
// The importer walks the graph once, in ONNX's topological order. Each ONNX
// value becomes an ImportedValue: contents known at import time (a
// HostTensor), an SSA value of npu ops, or a weight not yet materialised.
// Each node goes through a NodeImporter, which gives the op handlers
// (OpImporters.cpp) and the folders (ConstantFolding.cpp) typed access to
// inputs and attributes and reports errors naming the node.
//
// Layout: an SSA value carries a permutation `perm` with
// physical.shape[i] = logical.shape[perm[i]] (empty = identity). A
// transpose in the graph only changes the permutation; ops that need a
// particular order (conv wants channels last, matmul and reshape the
// logical order) ask for it, and the value is converted once per order.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_TARGET_ONNX_IMPORTER_H
#define NPU_LIB_TARGET_ONNX_IMPORTER_H

#include "BatchForm.h"
#include "npu/Target/ONNX/ImportONNX.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

namespace mlir::func {
class FuncOp;
} // namespace mlir::func
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <functional>
#include <vector>

namespace onnx {
class AttributeProto;
class NodeProto;
class TensorProto;
} // namespace onnx

namespace npu::onnx_import {

using Perm = llvm::SmallVector<int64_t, 6>;

/// The identity permutation is stored empty; these normalise and compare.
Perm normalizePerm(llvm::ArrayRef<int64_t> perm);
/// perm[i] for i < perm.size(), else i (the identity extended).
int64_t permAt(llvm::ArrayRef<int64_t> perm, int64_t i);
/// [0, 2, 3, ..., rank - 1, 1]: NCHW to NHWC and its higher-rank kin.
Perm channelsLastPerm(int64_t rank);
/// result[i] = values[perm[i]].
llvm::SmallVector<int64_t> permute(llvm::ArrayRef<int64_t> values,
                                   llvm::ArrayRef<int64_t> perm);
/// The inverse permutation.
Perm invertPerm(llvm::ArrayRef<int64_t> perm, int64_t rank);

/// A tensor whose contents are known at import time.
struct HostTensor {
  /// onnx::TensorProto_DataType.
  int32_t dtype = 0;
  llvm::SmallVector<int64_t> shape;
  /// The elements of integer and bool tensors.
  std::vector<int64_t> ints;
  /// The elements of floating-point tensors.
  std::vector<double> floats;

  bool isFloat() const;
  int64_t numElements() const;
  double asDouble(int64_t i) const {
    return isFloat() ? floats[i] : static_cast<double>(ints[i]);
  }
  /// A tensor of `dtype` and `shape` with zero elements.
  static HostTensor zeros(int32_t dtype, llvm::ArrayRef<int64_t> shape);
  /// Stores `v` at `i`, converted to this tensor's element type.
  void set(int64_t i, double v);
  void setInt(int64_t i, int64_t v);
  /// The tensor transposed: result.shape[i] = shape[perm[i]].
  HostTensor transposed(llvm::ArrayRef<int64_t> perm) const;

  /// In a probe import (ProbeRecord), how each element depends on the
  /// batch; empty when none does.
  std::vector<BatchForm> batchForms;
  /// In a probe import, how the shape depends on the batch: Affine when
  /// some extent does, as a line the probes' types check; Opaque when the
  /// importer cannot follow it (ones([N / 8])).
  BatchForm::Kind shapeForm = BatchForm::None;

  BatchForm formAt(int64_t i) const {
    return batchForms.empty() ? BatchForm() : batchForms[i];
  }
  void setForm(int64_t i, BatchForm form);
  /// Makes every element, and the shape, Opaque.
  void setAllOpaque();
  /// Whether any element or the shape depends on the batch.
  bool dependsOnBatch() const;
};

/// The elements of `shape`, saturated at INT64_MAX (a malformed model's
/// shape may overflow); an unknown extent (negative, as ONNX shape
/// inference leaves it) counts as 1.
int64_t countElements(llvm::ArrayRef<int64_t> shape);

/// `v` truncated toward zero, saturated to int64, NaN as 0.
int64_t toInt64(double v);

/// Whether `dtype` is a floating-point ONNX type.
bool isFloatType(int32_t dtype);

/// One ONNX value. Exactly one of `constant`, `forms` (SSA values, the
/// first the original, later ones converted copies) and `weight` is set.
struct ImportedValue {
  std::optional<HostTensor> constant;
  llvm::SmallVector<std::pair<Perm, mlir::Value>, 1> forms;
  /// A float initializer imported as a function argument on first use.
  const onnx::TensorProto *weight = nullptr;
  /// The weight's data, read when an op needs its value at import time.
  std::optional<HostTensor> weightData;
  /// Logical shape and element type (also for weights and constants).
  llvm::SmallVector<int64_t> shape;
  mlir::Type elementType;
};

struct LoadedModel;
class NodeImporter;

/// What one of the imports importONNX makes to keep the batch dynamic
/// records for the checks that compare them.
struct ProbeRecord {
  /// A host tensor an op (not a folder) read: it becomes a constant, an
  /// attribute or a type of the graph.
  struct ConstantRead {
    /// The reading node's name and first output, and the operand index
    /// ("y/y#1"): the same read in each probe.
    std::string key;
    mlir::Location loc;
    /// "input #1 ('shape')".
    std::string operand;
    HostTensor tensor;
    /// Whether the operand is a target shape (Reshape's, Expand's,
    /// Resize's sizes), whose values become the result's extents: the only
    /// place a line in N may go, since the probes' types then show it.
    bool isTargetShape;
  };

  explicit ProbeRecord(int64_t batch, const ProbeRecord *atBatchOne = nullptr)
      : batch(batch), atBatchOne(atBatchOne) {}

  /// The batch this import binds.
  int64_t batch;

  /// The batch-1 import's record; null in that import. A probe's Shape
  /// marks the extents that differ from that import's as computed from the
  /// batch (HostTensor::batchForms), and its ops' constant reads are kept.
  const ProbeRecord *atBatchOne;
  /// Each value's shape, by name (filled when the import ends).
  llvm::StringMap<llvm::SmallVector<int64_t>> shapes;
  /// In the order the nodes were imported.
  std::vector<ConstantRead> reads;
};

/// The state of one import: the module being built and every value.
class GraphImporter {
public:
  GraphImporter(mlir::MLIRContext *context, const ONNXImportOptions &options,
                const LoadedModel &model, mlir::Location fileLoc);

  mlir::MLIRContext *context;
  const ONNXImportOptions &options;
  const LoadedModel &model;
  /// The model file: the location every node's NameLoc wraps.
  mlir::Location fileLoc;
  mlir::OpBuilder builder;
  /// The function's entry block; weights become its arguments on first use.
  mlir::Block *entry = nullptr;
  llvm::StringMap<ImportedValue> values;
  /// The nodes that read each value.
  llvm::StringMap<llvm::SmallVector<const onnx::NodeProto *, 1>> consumers;
  llvm::StringSet<> graphOutputs;
  /// The attributes of each entry-block argument, in order.
  llvm::SmallVector<mlir::DictionaryAttr> argAttrs;
  /// Each weight's arguments by order, shared by every value that names it.
  llvm::DenseMap<const onnx::TensorProto *,
                 llvm::SmallVector<std::pair<Perm, mlir::Value>, 1>>
      weightForms;
  /// Nodes another node's handler has imported already (a BatchNormalization
  /// folded into its convolution), by output name.
  llvm::StringSet<> absorbed;
  /// Set for an import at a batch importONNX tries (to keep the batch
  /// dynamic): slices then record the dimensions they clamped, as
  /// kClampedAxesAttr, and host values where the batch reaches them.
  ProbeRecord *probe = nullptr;
  /// The pieces of each SplitToSequence output, by name: the sequence's
  /// value is the split tensor's, and SequenceAt takes a slice of it.
  struct SequenceSplit {
    int64_t axis;
    llvm::SmallVector<int64_t> sizes;
  };
  llvm::StringMap<SequenceSplit> sequences;

  /// The value named `name`, materialised as SSA in `perm` order.
  mlir::Value materialize(NodeImporter &n, llvm::StringRef name,
                          llvm::ArrayRef<int64_t> perm);
};

/// Context of one node for the handlers: inputs, attributes, outputs.
class NodeImporter {
public:
  NodeImporter(GraphImporter &graph, const onnx::NodeProto &node);

  const onnx::NodeProto &node;
  GraphImporter &graph;
  mlir::OpBuilder &builder;
  mlir::Location loc;

  llvm::StringRef opType() const;
  /// Reports "node 'NAME' (OP): <message>" at the node's location.
  mlir::InFlightDiagnostic emitError();

  //--- inputs ---------------------------------------------------------------
  /// Number of inputs, counting omitted optional ones ("").
  size_t numInputs() const;
  bool hasInput(size_t i) const;
  ImportedValue &input(size_t i);
  llvm::ArrayRef<int64_t> inputShape(size_t i) { return input(i).shape; }
  /// In a probe import, how extent `d` of input i depends on the batch:
  /// the line through its sizes at batch 1 and at this probe's, where they
  /// differ; Opaque when the input is a host tensor whose shape is.
  BatchForm extentForm(size_t i, int64_t d);
  /// In a probe import, keeps the host tensors this node's op reads, for
  /// checkBatchDerivedReads.
  void recordConstantReads();
  int64_t inputRank(size_t i) { return input(i).shape.size(); }
  bool isConstant(size_t i) { return input(i).constant.has_value(); }
  /// Input i's contents; an error naming the input when not known.
  mlir::FailureOr<const HostTensor *> constantInput(size_t i,
                                                    llvm::StringRef role);
  /// Fails, naming the node, when a tensor of `shape` is too large to fold
  /// on the host (kMaxFoldedElements).
  mlir::LogicalResult checkFoldedShape(llvm::ArrayRef<int64_t> shape);
  /// Input i as an integer list (a 0-D or 1-D constant).
  mlir::FailureOr<llvm::SmallVector<int64_t>> intsInput(size_t i,
                                                        llvm::StringRef role);
  /// Input i as an SSA value stored in `perm` order.
  mlir::Value value(size_t i, llvm::ArrayRef<int64_t> perm = {});
  /// Input i as an SSA value in whatever order it has; sets `perm`.
  mlir::Value valueAnyOrder(size_t i, Perm &perm);
  /// The order input i is stored in (identity for constants and weights,
  /// which take any order they are asked for).
  Perm currentPerm(size_t i);

  //--- attributes (each read marks the attribute as understood) ----------
  bool hasAttr(llvm::StringRef name) const;
  int64_t attrInt(llvm::StringRef name, int64_t dflt);
  double attrFloat(llvm::StringRef name, double dflt);
  std::string attrString(llvm::StringRef name, llvm::StringRef dflt);
  llvm::SmallVector<int64_t> attrInts(llvm::StringRef name,
                                      llvm::ArrayRef<int64_t> dflt = {});
  const onnx::TensorProto *attrTensor(llvm::StringRef name);
  /// Marks attributes as read without reading them (ignored by design).
  void ignoreAttrs(llvm::ArrayRef<llvm::StringRef> names);
  /// Reports the first attribute no handler read.
  mlir::LogicalResult checkAllAttrsRead();
  /// "attribute 'NAME' = VALUE is not supported" (with `why` appended).
  mlir::LogicalResult unsupportedAttr(llvm::StringRef name,
                                      llvm::StringRef value,
                                      llvm::StringRef why = "");

  //--- outputs ----------------------------------------------------------------
  size_t numOutputs() const;
  /// Whether output i is consumed by a node or is a graph output.
  bool isOutputUsed(size_t i) const;
  mlir::LogicalResult setOutput(size_t i, mlir::Value physical,
                                llvm::ArrayRef<int64_t> perm);
  mlir::LogicalResult setOutput(size_t i, HostTensor tensor);
  /// Defines the value `name` (another node's output, for folds that import
  /// two nodes at once), checked against ONNX shape inference.
  mlir::LogicalResult defineValue(llvm::StringRef name, mlir::Value physical,
                                  llvm::ArrayRef<int64_t> perm);
  /// Output i is input j under another name (Identity, Dropout).
  void aliasOutput(size_t i, size_t j);

  //--- building npu ops -------------------------------------------------------
  /// Creates op `name` with its result type from its shape function; a
  /// shape error is reported (at the node) and gives failure.
  mlir::FailureOr<mlir::Value>
  create(llvm::StringRef name, mlir::ValueRange operands,
         llvm::ArrayRef<mlir::NamedAttribute> attrs = {});
  /// The same for an op of `numResults` results.
  mlir::FailureOr<mlir::Operation *>
  createOp(llvm::StringRef name, unsigned numResults, mlir::ValueRange operands,
           llvm::ArrayRef<mlir::NamedAttribute> attrs = {});
  /// An npu.constant of `tensor`, its element type from the ONNX dtype.
  mlir::Value constant(const HostTensor &tensor);
  /// `v` (physical order `from`) stored in `to` order: nothing, a reshape
  /// when only unit dimensions move, else a transpose.
  mlir::FailureOr<mlir::Value> reorder(mlir::Value v,
                                       llvm::ArrayRef<int64_t> from,
                                       llvm::ArrayRef<int64_t> to);
  mlir::FailureOr<mlir::Value> reshape(mlir::Value v,
                                       llvm::ArrayRef<int64_t> shape);
  /// Creates op `name` with the given result type and verifies it.
  mlir::FailureOr<mlir::Value>
  createWithType(llvm::StringRef name, mlir::Type type,
                 mlir::ValueRange operands,
                 llvm::ArrayRef<mlir::NamedAttribute> attrs = {});

private:
  llvm::SmallVector<std::string> readAttrs;
};

/// The most elements a tensor folded on the host may have (shape
/// arithmetic and masks; 128 MiB of int64 or double).
inline constexpr int64_t kMaxFoldedElements = int64_t(1) << 24;

/// A handler: imports one node, or folds it when its inputs are known.
using NodeHandler = std::function<mlir::LogicalResult(NodeImporter &)>;

/// Op type -> handler for nodes of SSA values (OpImporters.cpp).
const llvm::StringMap<NodeHandler> &getOpImporters();
/// Op type -> folder for nodes whose inputs are all known
/// (ConstantFolding.cpp); a folder reports its own errors.
const llvm::StringMap<NodeHandler> &getConstantFolders();

/// Elementwise binary arithmetic on known tensors with numpy broadcasting;
/// shared by the folders and BatchNormalization folding.
mlir::FailureOr<HostTensor> foldBinary(NodeImporter &n, llvm::StringRef kind,
                                       const HostTensor &lhs,
                                       const HostTensor &rhs);

/// Slice bounds per dimension after ONNX's clamping (Slice's inputs 1-4).
struct SliceBounds {
  llvm::SmallVector<int64_t> start, end, step;
  /// Per dimension, whether a bound was clamped to it: a start or end past
  /// the dimension that is not an open end (2^31 - 1 or more, what
  /// exporters write for one). The same node then slices a larger tensor
  /// differently.
  llvm::SmallVector<bool> clamped;
  /// The number of elements taken along dimension `d`.
  int64_t extent(size_t d) const;
};
mlir::FailureOr<SliceBounds> sliceBounds(NodeImporter &n,
                                         bool allowNegativeSteps);
/// The result shapes of Reshape (input 1, `allowzero`), Unsqueeze and
/// Squeeze (input 1: axes), shared by the folders and the op handlers.
mlir::FailureOr<llvm::SmallVector<int64_t>> reshapeTarget(NodeImporter &n);
mlir::FailureOr<llvm::SmallVector<int64_t>> unsqueezeShape(NodeImporter &n);
mlir::FailureOr<llvm::SmallVector<int64_t>> squeezedShape(NodeImporter &n);

/// A Tile node's counts, one per dimension of its input, at least 0. The
/// exporter of PyTorch 1.13 can give them a leading unit dimension ([[1]] -
/// [c]): they are read as many as the input has dimensions.
mlir::FailureOr<llvm::SmallVector<int64_t>> tileRepeats(NodeImporter &n);

/// A Reduce* node's axes as given: the `axes` attribute (opset 13 to 17 for
/// most) or input #1 (ReduceSum from opset 13), possibly empty.
mlir::FailureOr<llvm::SmallVector<int64_t>> reduceAxes(NodeImporter &n);

/// `axis` in [-rank, rank) as a non-negative axis, or an error at the node
/// naming it ("<name> 5 is out of range for rank 4").
mlir::FailureOr<int64_t> normalizeAxis(NodeImporter &n, int64_t axis,
                                       int64_t rank, llvm::StringRef name);

/// The ONNX dtype of an MLIR element type, and back.
int32_t toONNXType(mlir::Type type);
mlir::Type fromONNXType(mlir::MLIRContext *context, int32_t dtype);

/// Reads an initializer's data (inline or external, relative to `dir`).
mlir::FailureOr<HostTensor> readTensor(const onnx::TensorProto &tensor,
                                       llvm::StringRef dir, std::string &error);

/// On an npu.slice of a probe import: the dimensions (in its input's order)
/// whose bounds were clamped (SliceBounds::clamped). Unregistered, and
/// removed by mapOverBatch.
inline constexpr llvm::StringLiteral kClampedAxesAttr = "onnx.clamped_axes";

/// The batches importONNX imports a model at, besides 1, to keep its batch
/// dynamic: 2 shows where each value holds the batch; 7 catches shape
/// arithmetic that gives the same at 1 and 2 (N / 3, max(N, 2)).
inline constexpr int64_t kProbeBatches[] = {2, 7};

/// Gives `out`, folded by node `n`, the shape form of its host inputs:
/// an Opaque one makes all of it Opaque; an Affine one makes its elements
/// Opaque unless `n` keeps each element's multi-index (elementwise ops,
/// Expand, Tile, Squeeze, Unsqueeze, Transpose). Shape and Size keep their
/// own forms.
void inheritShapeForms(NodeImporter &n, HostTensor &out);

/// Fails, naming the node, operand and element, when an op of the probes
/// `first` and `second` reads a host tensor that depends on the batch in a
/// way the importer does not follow (an Opaque form: N / 8 is 0 at batch 1,
/// 2 and 7, min(N, 7) is N there), or as different lines in the two.
/// Values that are lines in N are left to mapOverBatch, which compares the
/// graphs.
mlir::LogicalResult checkBatchDerivedReads(const ProbeRecord &first,
                                           const ProbeRecord &second);

/// Rewrites `perSample`, the graph imported at batch 1, to take its batch at
/// run time: the ops that depend on it move into an npu.map_batch over the
/// batched arguments. `probes`, the same graph imported at each of
/// kProbeBatches, show where each value holds the batch; an op that mixes
/// samples, or a value that differs otherwise, is an error naming it
/// (BatchMap.cpp). `chunk`, when given, is the graph imported at a batch of
/// C: it becomes the map's chunk region, which computes C samples at once.
mlir::LogicalResult mapOverBatch(mlir::func::FuncOp perSample,
                                 llvm::ArrayRef<mlir::func::FuncOp> probes,
                                 mlir::func::FuncOp chunk);

} // namespace npu::onnx_import

#endif // NPU_LIB_TARGET_ONNX_IMPORTER_H
