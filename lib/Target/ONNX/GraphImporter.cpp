//===- GraphImporter.cpp - ONNX graph to one func.func of npu ops ---------===//
//
// Walks the nodes once in the graph's (topological) order. A node whose
// inputs are all known at import time is folded on the host (shape
// arithmetic); any other goes to its op handler, which builds npu ops.
// Values are materialised lazily: a weight becomes a function argument, a
// constant an npu.constant, and a value in another physical order a
// reshape or transpose, each once per order that is asked for. Every result
// type is compared with ONNX shape inference's. Linear in the number of
// nodes, plus the size of the folded constants.
//
//===----------------------------------------------------------------------===//

#include "Model.h"

#include "npu/Dialect/NPU/NPUDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace npu::onnx_import;

//===----------------------------------------------------------------------===//
// Permutations
//===----------------------------------------------------------------------===//

Perm npu::onnx_import::normalizePerm(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (p != static_cast<int64_t>(i))
      return Perm(perm.begin(), perm.end());
  return {};
}

int64_t npu::onnx_import::permAt(ArrayRef<int64_t> perm, int64_t i) {
  return i < static_cast<int64_t>(perm.size()) ? perm[i] : i;
}

Perm npu::onnx_import::channelsLastPerm(int64_t rank) {
  Perm perm = {0};
  for (int64_t d = 2; d < rank; ++d)
    perm.push_back(d);
  perm.push_back(1);
  return perm;
}

SmallVector<int64_t> npu::onnx_import::permute(ArrayRef<int64_t> values,
                                               ArrayRef<int64_t> perm) {
  SmallVector<int64_t> out;
  for (size_t i = 0; i < values.size(); ++i)
    out.push_back(values[permAt(perm, i)]);
  return out;
}

Perm npu::onnx_import::invertPerm(ArrayRef<int64_t> perm, int64_t rank) {
  Perm inverse(rank);
  for (int64_t i = 0; i < rank; ++i)
    inverse[permAt(perm, i)] = i;
  return inverse;
}

//===----------------------------------------------------------------------===//
// NodeImporter
//===----------------------------------------------------------------------===//

/// The node's name (its first output's when unnamed), in the model file.
static Location nodeLocation(GraphImporter &graph,
                             const onnx::NodeProto &node) {
  return NameLoc::get(StringAttr::get(graph.context, nodeName(node)),
                      graph.fileLoc);
}

NodeImporter::NodeImporter(GraphImporter &graph, const onnx::NodeProto &node)
    : node(node), graph(graph), builder(graph.builder),
      loc(nodeLocation(graph, node)) {}

StringRef NodeImporter::opType() const { return node.op_type(); }

InFlightDiagnostic NodeImporter::emitError() {
  return mlir::emitError(loc)
         << "node '" << cast<NameLoc>(loc).getName().getValue() << "' ("
         << node.op_type() << "): ";
}

size_t NodeImporter::numInputs() const { return node.input_size(); }

bool NodeImporter::hasInput(size_t i) const {
  return i < numInputs() && !node.input(i).empty();
}

ImportedValue &NodeImporter::input(size_t i) {
  return graph.values.find(node.input(i))->second;
}

FailureOr<const HostTensor *> NodeImporter::constantInput(size_t i,
                                                          StringRef role) {
  if (!hasInput(i))
    return emitError() << "needs input #" << i << " (" << role << ")";
  ImportedValue &v = input(i);
  if (v.weight && !v.weightData) {
    // A float initializer whose value the op needs now (a clip bound, a
    // ratio): read its data, which must then be present.
    std::string error;
    FailureOr<HostTensor> data = readTensor(*v.weight, graph.model.dir, error);
    if (failed(data))
      return emitError() << "input #" << i << " ('" << node.input(i) << "', "
                         << role << ") must be known at import time, but "
                         << error;
    v.weightData = std::move(*data);
  }
  if (v.weightData)
    return &*v.weightData;
  if (!isConstant(i))
    return emitError() << "input #" << i << " ('" << node.input(i) << "', "
                       << role << ") must be known at import time";
  return &*v.constant;
}

LogicalResult NodeImporter::checkFoldedShape(ArrayRef<int64_t> shape) {
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }) ||
      countElements(shape) > kMaxFoldedElements)
    return emitError() << "folding it on the host would make a tensor of "
                          "more than 2^24 elements";
  return success();
}

FailureOr<SmallVector<int64_t>> NodeImporter::intsInput(size_t i,
                                                        StringRef role) {
  FailureOr<const HostTensor *> t = constantInput(i, role);
  if (failed(t))
    return failure();
  if ((*t)->isFloat() || (*t)->shape.size() > 1)
    return emitError() << "input #" << i << " ('" << node.input(i) << "', "
                       << role << ") must be a 0-D or 1-D integer tensor";
  return SmallVector<int64_t>((*t)->ints.begin(), (*t)->ints.end());
}

Value NodeImporter::value(size_t i, ArrayRef<int64_t> perm) {
  return graph.materialize(*this, node.input(i), perm);
}

Perm NodeImporter::currentPerm(size_t i) {
  ImportedValue &v = input(i);
  return v.forms.empty() ? Perm() : v.forms.front().first;
}

Value NodeImporter::valueAnyOrder(size_t i, Perm &perm) {
  perm = currentPerm(i);
  return value(i, perm);
}

static const onnx::AttributeProto *findAttr(const onnx::NodeProto &node,
                                            StringRef name) {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

bool NodeImporter::hasAttr(StringRef name) const {
  return findAttr(node, name) != nullptr;
}

void NodeImporter::ignoreAttrs(ArrayRef<StringRef> names) {
  for (StringRef name : names)
    readAttrs.push_back(name.str());
}

int64_t NodeImporter::attrInt(StringRef name, int64_t dflt) {
  ignoreAttrs({name});
  const onnx::AttributeProto *attr = findAttr(node, name);
  return attr ? attr->i() : dflt;
}

double NodeImporter::attrFloat(StringRef name, double dflt) {
  ignoreAttrs({name});
  const onnx::AttributeProto *attr = findAttr(node, name);
  return attr ? attr->f() : dflt;
}

std::string NodeImporter::attrString(StringRef name, StringRef dflt) {
  ignoreAttrs({name});
  const onnx::AttributeProto *attr = findAttr(node, name);
  return attr ? attr->s() : dflt.str();
}

SmallVector<int64_t> NodeImporter::attrInts(StringRef name,
                                            ArrayRef<int64_t> dflt) {
  ignoreAttrs({name});
  const onnx::AttributeProto *attr = findAttr(node, name);
  if (!attr)
    return SmallVector<int64_t>(dflt.begin(), dflt.end());
  return SmallVector<int64_t>(attr->ints().begin(), attr->ints().end());
}

const onnx::TensorProto *NodeImporter::attrTensor(StringRef name) {
  ignoreAttrs({name});
  const onnx::AttributeProto *attr = findAttr(node, name);
  return attr && attr->has_t() ? &attr->t() : nullptr;
}

LogicalResult NodeImporter::checkAllAttrsRead() {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (!llvm::is_contained(readAttrs, attr.name()))
      return emitError() << "attribute '" << attr.name()
                         << "' is not supported";
  return success();
}

LogicalResult NodeImporter::unsupportedAttr(StringRef name, StringRef value,
                                            StringRef why) {
  InFlightDiagnostic diag = emitError();
  diag << "attribute '" << name << "' = " << value << " is not supported";
  if (!why.empty())
    diag << " (" << why << ")";
  return diag;
}

size_t NodeImporter::numOutputs() const { return node.output_size(); }

bool NodeImporter::isOutputUsed(size_t i) const {
  if (i >= numOutputs() || node.output(i).empty())
    return false;
  if (graph.graphOutputs.contains(node.output(i)))
    return true;
  // Consumers another handler imported already do not count.
  auto it = graph.consumers.find(node.output(i));
  return it != graph.consumers.end() &&
         llvm::any_of(it->second, [&](const onnx::NodeProto *consumer) {
           return !graph.absorbed.contains(consumer->output(0));
         });
}

/// Compares the importer's logical type of `name` with ONNX's inference.
static LogicalResult checkInferredType(NodeImporter &n, StringRef name,
                                       ArrayRef<int64_t> shape, Type element) {
  auto it = n.graph.model.inferred.find(name);
  if (it == n.graph.model.inferred.end())
    return success();
  const InferredType &onnxType = it->second;
  bool sameShape = !onnxType.hasShape || onnxType.shape.size() == shape.size();
  for (size_t d = 0; sameShape && onnxType.hasShape && d < shape.size(); ++d)
    sameShape = onnxType.shape[d] < 0 || onnxType.shape[d] == shape[d];
  bool sameType = !onnxType.dtype || onnxType.dtype == toONNXType(element) ||
                  onnxType.dtype == onnx::TensorProto::UINT8;
  if (sameShape && sameType)
    return success();
  InFlightDiagnostic diag = n.emitError();
  diag << "output '" << name << "' is " << dtypeName(toONNXType(element))
       << " [";
  llvm::interleaveComma(shape, diag);
  diag << "] but ONNX shape inference gives " << dtypeName(onnxType.dtype)
       << " [";
  llvm::interleave(
      onnxType.shape, diag, [&](int64_t d) { d < 0 ? diag << "?" : diag << d; },
      ", ");
  return diag << "]";
}

LogicalResult NodeImporter::setOutput(size_t i, Value physical,
                                      ArrayRef<int64_t> perm) {
  return defineValue(node.output(i), physical, perm);
}

LogicalResult NodeImporter::defineValue(StringRef name, Value physical,
                                        ArrayRef<int64_t> perm) {
  ImportedValue &v = graph.values[name];
  auto type = cast<RankedTensorType>(physical.getType());
  Perm order = normalizePerm(perm);
  v.shape.assign(type.getRank(), 0);
  for (int64_t d = 0; d < type.getRank(); ++d)
    v.shape[permAt(order, d)] = type.getDimSize(d);
  v.elementType = type.getElementType();
  v.forms = {{order, physical}};
  return checkInferredType(*this, name, v.shape, v.elementType);
}

BatchForm NodeImporter::extentForm(size_t i, int64_t d) {
  if (!graph.probe || !graph.probe->atBatchOne)
    return BatchForm();
  ImportedValue &v = input(i);
  if (v.constant && v.constant->shapeForm == BatchForm::Opaque)
    return BatchForm::opaque();
  const auto &shapes = graph.probe->atBatchOne->shapes;
  auto it = shapes.find(node.input(i));
  if (it == shapes.end() || it->second.size() != v.shape.size())
    return BatchForm::opaque();
  // The line through (1, extent at batch 1) and (B, extent at batch B).
  double atOne = it->second[d], atB = v.shape[d];
  if (atOne == atB)
    return BatchForm();
  double slope = (atB - atOne) / (graph.probe->batch - 1);
  return BatchForm::affine(slope, atOne - slope);
}

void NodeImporter::recordConstantReads() {
  if (!graph.probe || !graph.probe->atBatchOne)
    return;
  for (size_t i = 0; i < numInputs(); ++i) {
    // An absorbed node's input may be the absorbing node's result, not
    // defined yet.
    auto it =
        hasInput(i) ? graph.values.find(node.input(i)) : graph.values.end();
    if (it == graph.values.end() || !it->second.constant ||
        !it->second.constant->dependsOnBatch())
      continue;
    std::string operand;
    llvm::raw_string_ostream(operand)
        << "input #" << i << " ('" << node.input(i) << "')";
    std::string key = node.name() + "/" +
                      (node.output_size() ? node.output(0) : "") + "#" +
                      std::to_string(i);
    bool isTargetShape = (i == 1 && (node.op_type() == "Reshape" ||
                                     node.op_type() == "Expand")) ||
                         (i == 3 && node.op_type() == "Resize");
    graph.probe->reads.push_back(
        {key, loc, operand, *it->second.constant, isTargetShape});
  }
}

LogicalResult NodeImporter::setOutput(size_t i, HostTensor tensor) {
  if (graph.probe)
    inheritShapeForms(*this, tensor);
  ImportedValue &v = graph.values[node.output(i)];
  v.shape = tensor.shape;
  v.elementType = fromONNXType(graph.context, tensor.dtype);
  if (!v.elementType)
    return emitError() << "produces a tensor of unsupported element type "
                       << dtypeName(tensor.dtype);
  v.constant = std::move(tensor);
  return checkInferredType(*this, node.output(i), v.shape, v.elementType);
}

void NodeImporter::aliasOutput(size_t i, size_t j) {
  graph.values[node.output(i)] = input(j);
}

FailureOr<Value> NodeImporter::create(StringRef name, ValueRange operands,
                                      ArrayRef<NamedAttribute> attrs) {
  FailureOr<Operation *> op = createOp(name, 1, operands, attrs);
  if (failed(op))
    return failure();
  return (*op)->getResult(0);
}

FailureOr<Operation *> NodeImporter::createOp(StringRef name,
                                              unsigned numResults,
                                              ValueRange operands,
                                              ArrayRef<NamedAttribute> attrs) {
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addAttributes(attrs);
  state.addTypes(SmallVector<Type>(numResults, builder.getNoneType()));
  Operation *op = builder.create(state);
  // Shape functions report at the node's location; their message is
  // re-emitted after the node's name and op type.
  std::string message;
  SmallVector<Type> types;
  LogicalResult inferred = failure();
  {
    ScopedDiagnosticHandler capture(graph.context, [&](Diagnostic &diag) {
      message = diag.str();
      return success();
    });
    inferred = cast<InferTypeOpInterface>(op).inferReturnTypes(
        graph.context, loc, op->getOperands(), op->getRawDictionaryAttrs(),
        op->getPropertiesStorage(), op->getRegions(), types);
  }
  if (failed(inferred)) {
    op->erase();
    return emitError() << message;
  }
  for (auto [result, type] : llvm::zip_equal(op->getResults(), types))
    result.setType(type);
  return op;
}

Value NodeImporter::constant(const HostTensor &tensor) {
  Type element = fromONNXType(graph.context, tensor.dtype);
  auto type = RankedTensorType::get(tensor.shape, element);
  DenseElementsAttr attr;
  if (element.isF32()) {
    std::vector<float> data(tensor.floats.begin(), tensor.floats.end());
    attr = DenseElementsAttr::get(type, llvm::ArrayRef(data));
  } else if (element.isF64()) {
    attr = DenseElementsAttr::get(type, llvm::ArrayRef(tensor.floats));
  } else if (auto floatType = dyn_cast<FloatType>(element)) {
    SmallVector<APFloat> data;
    for (double v : tensor.floats) {
      APFloat value(v);
      bool lost;
      value.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                    &lost);
      data.push_back(value);
    }
    attr = DenseElementsAttr::get(type, data);
  } else {
    unsigned width = element.getIntOrFloatBitWidth();
    SmallVector<APInt> data;
    for (int64_t v : tensor.ints)
      data.push_back(APInt(width, v, /*isSigned=*/width > 1));
    attr = DenseElementsAttr::get(type, data);
  }
  return *create("npu.constant", {}, {builder.getNamedAttr("value", attr)});
}

FailureOr<Value> NodeImporter::createWithType(StringRef name, Type type,
                                              ValueRange operands,
                                              ArrayRef<NamedAttribute> attrs) {
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addAttributes(attrs);
  state.addTypes(type);
  Operation *op = builder.create(state);
  if (failed(verify(op))) {
    op->erase();
    return failure();
  }
  return op->getResult(0);
}

FailureOr<Value> NodeImporter::reshape(Value v, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  return createWithType("npu.reshape",
                        RankedTensorType::get(shape, type.getElementType()), v);
}

FailureOr<Value> NodeImporter::reorder(Value v, ArrayRef<int64_t> from,
                                       ArrayRef<int64_t> to) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  Perm inverseFrom = invertPerm(from, rank);
  Perm move;
  for (int64_t i = 0; i < rank; ++i)
    move.push_back(inverseFrom[permAt(to, i)]);
  if (normalizePerm(move).empty())
    return v;
  // Moving only unit dimensions keeps the elements in order: a reshape.
  SmallVector<int64_t> kept;
  for (int64_t d : move)
    if (type.getDimSize(d) != 1)
      kept.push_back(d);
  if (llvm::is_sorted(kept))
    return reshape(v, permute(type.getShape(), move));
  return create(
      "npu.transpose", v,
      {builder.getNamedAttr("perms", builder.getDenseI64ArrayAttr(move))});
}

//===----------------------------------------------------------------------===//
// GraphImporter
//===----------------------------------------------------------------------===//

GraphImporter::GraphImporter(MLIRContext *context,
                             const ONNXImportOptions &options,
                             const LoadedModel &model, Location fileLoc)
    : context(context), options(options), model(model), fileLoc(fileLoc),
      builder(context) {}

/// `tensor`'s elements as .npy data of `element` (bf16 as float32).
static npu::NpyArray toNpy(const HostTensor &tensor, Type element) {
  npu::NpyArray array;
  array.shape.assign(tensor.shape.begin(), tensor.shape.end());
  auto append = [&](const auto &value) {
    const auto *bytes = reinterpret_cast<const uint8_t *>(&value);
    array.data.insert(array.data.end(), bytes, bytes + sizeof(value));
  };
  array.type = element.isF64()   ? npu::NpyDType::F64
               : element.isF16() ? npu::NpyDType::F16
                                 : npu::NpyDType::F32;
  for (double v : tensor.floats) {
    if (element.isF64()) {
      append(v);
    } else if (element.isF16()) {
      APFloat half(v);
      bool lost;
      half.convert(APFloat::IEEEhalf(), APFloat::rmNearestTiesToEven, &lost);
      append(uint16_t(half.bitcastToAPInt().getZExtValue()));
    } else {
      append(float(v));
    }
  }
  return array;
}

/// Adds the data of weight `v`, stored in `perm` order, to the weights
/// file's arrays under `name` (a second order of the same initializer
/// under "name:p0,p1,...").
static LogicalResult recordWeightData(GraphImporter &graph, NodeImporter &n,
                                      StringRef name, ImportedValue &v,
                                      ArrayRef<int64_t> perm, bool first) {
  std::string error;
  FailureOr<HostTensor> data = readTensor(*v.weight, graph.model.dir, error);
  if (failed(data))
    return n.emitError() << "weight '" << name
                         << "' cannot be written to the weights file: "
                         << error;
  std::string key = name.str();
  if (!first) {
    key += ":";
    for (auto [i, p] : llvm::enumerate(perm))
      key += (i ? "," : "") + std::to_string(p);
  }
  graph.options.weightData->emplace_back(
      key, toNpy(data->transposed(perm), v.elementType));
  return success();
}

/// A function argument for the weight `v` stored in `perm` order.
static Value addWeightArgument(GraphImporter &graph, NodeImporter &n,
                               StringRef name, ImportedValue &v,
                               ArrayRef<int64_t> perm, bool first) {
  if (graph.options.weightData &&
      failed(recordWeightData(graph, n, name, v, perm, first)))
    return {};
  auto type = RankedTensorType::get(permute(v.shape, perm), v.elementType);
  Value arg = graph.entry->addArgument(type, n.loc);
  OpBuilder &b = graph.builder;
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr(npu::graph::NPUDialect::getWeightAttrName(),
                     b.getUnitAttr()),
      b.getNamedAttr(npu::graph::NPUDialect::getONNXNameAttrName(),
                     b.getStringAttr(name))};
  if (!perm.empty())
    attrs.push_back(
        b.getNamedAttr(npu::graph::NPUDialect::getONNXPermAttrName(),
                       b.getDenseI64ArrayAttr(perm)));
  graph.argAttrs.push_back(graph.builder.getDictionaryAttr(attrs));
  return arg;
}

Value GraphImporter::materialize(NodeImporter &n, StringRef name,
                                 ArrayRef<int64_t> perm) {
  ImportedValue &v = values.find(name)->second;
  Perm want = normalizePerm(perm);
  for (auto &[order, value] : v.forms)
    if (order == want)
      return value;
  Value result;
  if (v.constant) {
    result = n.constant(v.constant->transposed(want));
  } else if (v.weight) {
    // One argument per initializer and order, whatever names reach it
    // (exporters deduplicate initializers through Identity nodes).
    auto &shared = weightForms[v.weight];
    for (auto &[order, value] : shared)
      if (order == want)
        return value;
    result =
        addWeightArgument(*this, n, v.weight->name(), v, want, shared.empty());
    if (!result)
      return {};
    shared.push_back({want, result});
  } else {
    auto [from, original] = v.forms.front();
    FailureOr<Value> converted = n.reorder(original, from, want);
    if (failed(converted))
      return {};
    result = *converted;
  }
  v.forms.push_back({want, result});
  return result;
}

namespace {
/// Imports one graph into `func`.
class FunctionBuilder {
public:
  FunctionBuilder(GraphImporter &graph, func::FuncOp func)
      : graph(graph), func(func) {}

  LogicalResult run();

private:
  LogicalResult addGraphInputs();
  LogicalResult addInitializers();
  LogicalResult importNode(const onnx::NodeProto &node);
  LogicalResult returnGraphOutputs();

  GraphImporter &graph;
  func::FuncOp func;
};
} // namespace

static const onnx::GraphProto &graphOf(GraphImporter &graph) {
  return graph.model.model.graph();
}

LogicalResult FunctionBuilder::addGraphInputs() {
  for (const onnx::ValueInfoProto &input : graphOf(graph).input()) {
    if (graph.model.initializers.contains(input.name()))
      continue;
    const auto &tensorType = input.type().tensor_type();
    Type element = fromONNXType(graph.context, tensorType.elem_type());
    if (!element)
      return emitError(NameLoc::get(graph.builder.getStringAttr(input.name()),
                                    graph.fileLoc))
             << "graph input '" << input.name() << "' has element type "
             << dtypeName(tensorType.elem_type()) << ", which is not supported";
    ImportedValue &v = graph.values[input.name()];
    for (const auto &dim : tensorType.shape().dim())
      v.shape.push_back(dim.dim_value());
    v.elementType = element;
    Location loc =
        NameLoc::get(graph.builder.getStringAttr(input.name()), graph.fileLoc);
    v.forms = {{Perm(), graph.entry->addArgument(
                            RankedTensorType::get(v.shape, element), loc)}};
    graph.argAttrs.push_back(
        graph.builder.getDictionaryAttr(graph.builder.getNamedAttr(
            npu::graph::NPUDialect::getONNXNameAttrName(),
            graph.builder.getStringAttr(input.name()))));
  }
  return success();
}

/// Integer initializers (index tables, shapes) are part of the graph and
/// known at import time; float ones are weights: arguments, or constants
/// with --weights=constants.
LogicalResult FunctionBuilder::addInitializers() {
  bool weightsAreConstants =
      graph.options.weights == npu::ONNXWeights::Constants;
  for (const onnx::TensorProto &t : graphOf(graph).initializer()) {
    Location loc =
        NameLoc::get(graph.builder.getStringAttr(t.name()), graph.fileLoc);
    Type element = fromONNXType(graph.context, t.data_type());
    if (!element && t.data_type() != onnx::TensorProto::UINT8)
      return emitError(loc)
             << "initializer '" << t.name() << "' has element type "
             << dtypeName(t.data_type()) << ", which is not supported";
    ImportedValue &v = graph.values[t.name()];
    v.shape.assign(t.dims().begin(), t.dims().end());
    v.elementType = element ? element : graph.builder.getI8Type();
    if (isFloatType(t.data_type()) && !weightsAreConstants) {
      v.weight = &t;
      continue;
    }
    std::string error;
    FailureOr<HostTensor> data = readTensor(t, graph.model.dir, error);
    if (failed(data))
      return emitError(loc) << "initializer '" << t.name() << "' " << error;
    v.constant = std::move(*data);
  }
  return success();
}

LogicalResult FunctionBuilder::importNode(const onnx::NodeProto &node) {
  NodeImporter n(graph, node);
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return n.emitError() << "ops of domain '" << node.domain()
                         << "' are not supported";
  for (size_t i = 0; i < n.numInputs(); ++i)
    if (n.hasInput(i) && !graph.values.count(node.input(i)))
      return n.emitError() << "input '" << node.input(i)
                           << "' is not defined before the node";
  bool known = true;
  for (size_t i = 0; i < n.numInputs(); ++i)
    known &= !n.hasInput(i) || n.isConstant(i);
  // Shape and Size only read their input's static shape.
  known |= node.op_type() == "Shape" || node.op_type() == "Size";
  const auto &folders = getConstantFolders();
  const auto &importers = getOpImporters();
  auto folder = folders.find(node.op_type());
  auto importer = importers.find(node.op_type());
  // A large result is imported as an op where one exists, rather than
  // folded on the host.
  auto foldsSmall = [&] {
    return llvm::all_of(node.output(), [&](const std::string &output) {
      auto it = graph.model.inferred.find(output);
      return it == graph.model.inferred.end() || !it->second.hasShape ||
             countElements(it->second.shape) <= kMaxFoldedElements;
    });
  };
  if (known && importer != importers.end() && !foldsSmall())
    known = false;
  LogicalResult result = failure();
  if (known && folder != folders.end()) {
    result = folder->second(n);
  } else if (importer != importers.end()) {
    n.recordConstantReads();
    result = importer->second(n);
  } else if (folder != folders.end())
    return n.emitError() << "is supported only when its inputs are known at "
                            "import time (shape arithmetic)";
  else
    return n.emitError() << "op type '" << node.op_type()
                         << "' is not supported";
  if (failed(result) || failed(n.checkAllAttrsRead()))
    return failure();
  for (size_t i = 0; i < n.numOutputs(); ++i)
    if (n.isOutputUsed(i) && !graph.values.count(node.output(i)))
      return n.emitError() << "output #" << i << " ('" << node.output(i)
                           << "') is not supported";
  return success();
}

LogicalResult FunctionBuilder::returnGraphOutputs() {
  SmallVector<Value> results;
  SmallVector<DictionaryAttr> resultAttrs;
  for (const onnx::ValueInfoProto &output : graphOf(graph).output()) {
    Location loc =
        NameLoc::get(graph.builder.getStringAttr(output.name()), graph.fileLoc);
    auto it = graph.values.find(output.name());
    if (it == graph.values.end())
      return emitError(loc) << "graph output '" << output.name()
                            << "' is not produced by any node";
    onnx::NodeProto returnNode;
    returnNode.set_name(output.name());
    returnNode.set_op_type("graph output");
    returnNode.add_input(output.name());
    NodeImporter n(graph, returnNode);
    n.recordConstantReads();
    Value value = n.value(0);
    if (!value)
      return failure();
    results.push_back(value);
    resultAttrs.push_back(
        graph.builder.getDictionaryAttr(graph.builder.getNamedAttr(
            npu::graph::NPUDialect::getONNXNameAttrName(),
            graph.builder.getStringAttr(output.name()))));
  }
  graph.builder.create<func::ReturnOp>(func.getLoc(), results);
  func.setFunctionType(FunctionType::get(graph.context,
                                         graph.entry->getArgumentTypes(),
                                         ValueRange(results).getTypes()));
  func.setAllArgAttrs(graph.argAttrs);
  func.setAllResultAttrs(resultAttrs);
  return success();
}

LogicalResult FunctionBuilder::run() {
  graph.entry = func.addEntryBlock();
  graph.builder.setInsertionPointToEnd(graph.entry);
  const onnx::GraphProto &g = graphOf(graph);
  for (const onnx::NodeProto &node : g.node())
    for (const std::string &input : node.input())
      graph.consumers[input].push_back(&node);
  for (const onnx::ValueInfoProto &output : g.output())
    graph.graphOutputs.insert(output.name());
  if (failed(addGraphInputs()) || failed(addInitializers()))
    return failure();
  for (const onnx::NodeProto &node : g.node()) {
    if (node.output_size() && graph.absorbed.contains(node.output(0)))
      continue;
    if (failed(importNode(node)))
      return failure();
  }
  return returnGraphOutputs();
}

/// importONNX at the batch `options` binds (a `probe`: one importONNX
/// tries, to keep the batch dynamic). Returns null after an error, or
/// without one when `unboundBatch` is given and the model leaves its batch
/// unbound (it is set then).
static OwningOpRef<ModuleOp> importGraph(StringRef bytes, StringRef modelPath,
                                         MLIRContext *context,
                                         const npu::ONNXImportOptions &options,
                                         bool *unboundBatch = nullptr,
                                         ProbeRecord *probe = nullptr) {
  Location fileLoc = FileLineColLoc::get(context, modelPath, 0, 0);
  LoadError error;
  FailureOr<LoadedModel> model =
      loadModel(bytes, modelPath, options, error, probe != nullptr);
  if (failed(model)) {
    if (error.unboundBatch && unboundBatch)
      *unboundBatch = true;
    else if (error.node.empty())
      emitError(fileLoc) << "'" << modelPath << "' " << error.message;
    else
      emitError(NameLoc::get(StringAttr::get(context, error.node), fileLoc))
          << "node '" << error.node << "' (" << error.opType
          << "): " << error.message;
    return {};
  }
  OpBuilder builder(context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  const onnx::ModelProto &proto = model->model;
  module->getOperation()->setAttr(
      npu::graph::NPUDialect::getONNXSourceAttrName(),
      builder.getStringAttr(proto.producer_name() + " " +
                            proto.producer_version() + ", opset " +
                            std::to_string(model->opset)));
  builder.setInsertionPointToEnd(module->getBody());
  auto func = builder.create<func::FuncOp>(fileLoc, options.functionName,
                                           builder.getFunctionType({}, {}));
  GraphImporter graph(context, options, *model, fileLoc);
  graph.probe = probe;
  if (failed(FunctionBuilder(graph, func).run()) || failed(verify(*module)))
    return {};
  if (probe)
    for (const auto &[name, value] : graph.values)
      probe->shapes[name] = value.shape;
  return module;
}

/// The function a module imported by importGraph holds.
static func::FuncOp getGraphFunction(ModuleOp module) {
  return *module.getOps<func::FuncOp>().begin();
}

OwningOpRef<ModuleOp> npu::importONNX(StringRef bytes, StringRef modelPath,
                                      MLIRContext *context,
                                      const ONNXImportOptions &options) {
  context->loadDialect<npu::graph::NPUDialect, func::FuncDialect>();
  constexpr int64_t kMaxChunk = 1 << 16;
  if (options.batchChunk < 0 || options.batchChunk > kMaxChunk) {
    emitError(FileLineColLoc::get(context, modelPath, 0, 0))
        << "the batch chunk must be in [0, " << kMaxChunk << "], got "
        << options.batchChunk;
    return {};
  }
  bool unboundBatch = false;
  OwningOpRef<ModuleOp> module =
      importGraph(bytes, modelPath, context, options, &unboundBatch);
  if (module || !unboundBatch)
    return module;
  // The batch stays dynamic: one sample's graph, checked against two
  // samples' (mapOverBatch).
  ProbeRecord atBatchOne(1);
  SmallVector<ProbeRecord, 2> records;
  for (int64_t batch : kProbeBatches)
    records.emplace_back(batch, &atBatchOne);
  // The model at `batch` (only batch 1's import gives the weights' data).
  auto importAt = [&](int64_t batch, ProbeRecord &record) {
    npu::ONNXImportOptions at = options;
    at.batch = batch;
    if (batch != 1)
      at.weightData = nullptr;
    return importGraph(bytes, modelPath, context, at, nullptr, &record);
  };
  auto probe = [&](int64_t batch, ProbeRecord &record) {
    OwningOpRef<ModuleOp> probed = importAt(batch, record);
    if (!probed)
      emitError(FileLineColLoc::get(context, modelPath, 0, 0))
          << "'" << modelPath << "' leaves its batch dynamic, and keeping it "
          << "so imports the graph at batch 1, 2 and 7; at batch " << batch
          << " it fails as above: bind the batch with --batch=N";
    return probed;
  };
  module = probe(1, atBatchOne);
  if (!module)
    return {};
  SmallVector<OwningOpRef<ModuleOp>> probed;
  SmallVector<func::FuncOp> probes;
  for (auto [batch, record] : llvm::zip(kProbeBatches, records)) {
    probed.push_back(probe(batch, record));
    if (!probed.back())
      return {};
    probes.push_back(getGraphFunction(*probed.back()));
  }
  // The chunk region's graph: the model at the chunk's batch. It only
  // speeds up whole chunks, so a model that does not import there (a
  // folded tensor past the host's limit) runs one sample at a time.
  ProbeRecord atChunk(options.batchChunk, &atBatchOne);
  OwningOpRef<ModuleOp> chunk;
  if (options.batchChunk >= 2) {
    ScopedDiagnosticHandler quiet(context,
                                  [](Diagnostic &) { return success(); });
    chunk = importAt(options.batchChunk, atChunk);
  }
  if (options.batchChunk >= 2 && !chunk)
    emitWarning(FileLineColLoc::get(context, modelPath, 0, 0))
        << "the graph does not import at its batch chunk ("
        << options.batchChunk << " samples): every sample runs apart";
  if (failed(checkBatchDerivedReads(records[0], records[1])) ||
      failed(mapOverBatch(getGraphFunction(*module), probes,
                          chunk ? getGraphFunction(*chunk) : nullptr)) ||
      failed(verify(*module)))
    return {};
  return module;
}

void npu::registerONNXImportDialects(DialectRegistry &registry) {
  registry.insert<npu::graph::NPUDialect, func::FuncDialect>();
}
