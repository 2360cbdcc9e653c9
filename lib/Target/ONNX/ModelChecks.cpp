//===- ModelChecks.cpp - what libonnx would trip on, checked first --------===//
//
// The ONNX checker and shape inference (Debian's libonnx 1.12) trust parts
// of a model they are handed: a stride of 0 divides by zero, a truncated
// shape initializer is read past its end, LayerNormalization's statistics
// outputs index its input's dimensions by an unchecked axis. So before
// either runs, every node, tensor and value type is checked here, and every
// size bounded (kMaxElements), each rule an error naming the node, the
// initializer or the graph value. One pass over the model; O(model size).
//
//===----------------------------------------------------------------------===//

#include "Model.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace npu::onnx_import;

namespace {

/// An error about the model as a whole ("'m.onnx' " precedes it).
LogicalResult modelError(LoadError &error, const Twine &message) {
  error = LoadError{"", "", message.str()};
  return failure();
}

LogicalResult nodeError(LoadError &error, const onnx::NodeProto &node,
                        const Twine &message) {
  error = LoadError{nodeName(node), node.op_type(), message.str()};
  return failure();
}

std::string formatShape(ArrayRef<int64_t> shape) {
  return "[" +
         llvm::join(llvm::map_range(
                        shape, [](int64_t d) { return std::to_string(d); }),
                    ", ") +
         "]";
}

/// `what` (a tensor's description) has dimensions in [0, kMaxElements] and
/// at most kMaxElements elements.
std::optional<std::string> checkShape(const Twine &what,
                                      ArrayRef<int64_t> shape) {
  for (auto [i, d] : llvm::enumerate(shape))
    if (d < 0 || d > kMaxElements)
      return (what + " has dimension " + Twine(i) + " of " + Twine(d) +
              "; sizes are 0 to 2^40")
          .str();
  if (countElements(shape) > kMaxElements)
    return (what + " of shape " + formatShape(shape) +
            " has more than 2^40 elements")
        .str();
  return std::nullopt;
}

/// How many values the typed repeated field of `t`'s type holds.
int64_t typedValues(const onnx::TensorProto &t) {
  switch (t.data_type()) {
  case onnx::TensorProto::FLOAT:
    return t.float_data_size();
  case onnx::TensorProto::DOUBLE:
    return t.double_data_size();
  case onnx::TensorProto::INT64:
    return t.int64_data_size();
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
    return t.uint64_data_size();
  default:
    return t.int32_data_size();
  }
}

/// A tensor's shape is in bounds and its inline data has the size its
/// shape needs (external data is read, and checked, when used).
std::optional<std::string> checkTensor(const Twine &what,
                                       const onnx::TensorProto &t) {
  SmallVector<int64_t> shape(t.dims().begin(), t.dims().end());
  if (std::optional<std::string> bad = checkShape(what, shape))
    return bad;
  int64_t bytes = getElementBytes(t.data_type());
  if (!bytes || t.data_location() == onnx::TensorProto::EXTERNAL)
    return std::nullopt;
  int64_t n = countElements(shape);
  if (t.has_raw_data()) {
    if (static_cast<int64_t>(t.raw_data().size()) != n * bytes)
      return (what + " holds " + Twine(t.raw_data().size()) +
              " bytes of data, not the " + Twine(n * bytes) + " its shape " +
              formatShape(shape) + " needs")
          .str();
    return std::nullopt;
  }
  if (typedValues(t) != n)
    return (what + " holds " + Twine(typedValues(t)) + " values, not the " +
            Twine(n) + " of its shape " + formatShape(shape))
        .str();
  return std::nullopt;
}

/// Why an op that decides its result's shape from the data at run time
/// cannot be imported into a graph of static shapes, or "" for other ops.
StringRef dataDependence(StringRef op) {
  if (llvm::is_contained({"NonZero", "Unique", "NonMaxSuppression"}, op))
    return "makes a tensor whose shape depends on the data";
  if (llvm::is_contained({"If", "Loop"}, op))
    return "runs a subgraph chosen or repeated at run time";
  return "";
}

/// The ops whose strides, dilations and kernel divide or step in libonnx.
bool isWindowed(StringRef op) {
  return llvm::is_contained(
      {"Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool"}, op);
}

/// A windowed op's sizes: strides, dilations, kernel and group at least 1,
/// pads at least 0, none past kMaxElements.
LogicalResult checkWindow(const onnx::NodeProto &node, LoadError &error) {
  for (const onnx::AttributeProto &attr : node.attribute()) {
    StringRef name = attr.name();
    int64_t least = llvm::is_contained(
                        {"strides", "dilations", "kernel_shape", "group"}, name)
                        ? 1
                    : llvm::is_contained({"pads", "output_padding"}, name) ? 0
                                                                           : -1;
    if (least < 0)
      continue;
    SmallVector<int64_t> values(attr.ints().begin(), attr.ints().end());
    if (attr.has_i())
      values.push_back(attr.i());
    for (int64_t v : values)
      if (v < least || v > kMaxElements)
        return nodeError(error, node,
                         "attribute '" + name + "' = " + Twine(v) +
                             " is outside [" + Twine(least) + ", 2^40]");
  }
  return success();
}

LogicalResult checkNode(const onnx::NodeProto &node,
                        const llvm::StringSet<> &usedValues, LoadError &error) {
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return nodeError(error, node,
                     "ops of domain '" + node.domain() + "' are not supported");
  StringRef op = node.op_type();
  StringRef dynamic = dataDependence(op);
  if (!dynamic.empty())
    return nodeError(error, node,
                     "op type '" + op + "' " + dynamic +
                         "; the importer supports static shapes only");
  if (!getOpImporters().count(op) && !getConstantFolders().count(op))
    return nodeError(error, node, "op type '" + op + "' is not supported");
  if (isWindowed(op) && failed(checkWindow(node, error)))
    return failure();
  // libonnx shapes the statistics from the input's dimensions below
  // `axis`, unchecked; the importer does not support them anyway (unread
  // ones are dropped: dropUnreadStatistics).
  if (op == "LayerNormalization")
    for (int i = 1; i < node.output_size(); ++i)
      if (!node.output(i).empty() && usedValues.contains(node.output(i)))
        return nodeError(error, node,
                         "the Mean and InvStdDev outputs are not supported");
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.has_t())
      if (std::optional<std::string> bad =
              checkTensor("attribute '" + attr.name() + "'", attr.t()))
        return nodeError(error, node, *bad);
  return success();
}

/// The values a node reads or the graph returns.
llvm::StringSet<> usedValues(const onnx::GraphProto &graph) {
  llvm::StringSet<> used;
  for (const onnx::NodeProto &node : graph.node())
    for (const std::string &input : node.input())
      used.insert(input);
  for (const onnx::ValueInfoProto &output : graph.output())
    used.insert(output.name());
  return used;
}

} // namespace

std::string npu::onnx_import::nodeName(const onnx::NodeProto &node) {
  return node.name().empty() && node.output_size() ? node.output(0)
                                                   : node.name();
}

LogicalResult npu::onnx_import::checkValueTypes(const onnx::GraphProto &graph,
                                                LoadError &error) {
  for (auto [kind, list] : {std::make_pair("graph input", &graph.input()),
                            std::make_pair("graph output", &graph.output()),
                            std::make_pair("value", &graph.value_info())})
    for (const onnx::ValueInfoProto &info : *list) {
      if (!info.type().has_tensor_type() ||
          !info.type().tensor_type().has_shape())
        continue;
      // Dynamic dimensions (dim_param) count as 1 here.
      SmallVector<int64_t> shape;
      for (const auto &dim : info.type().tensor_type().shape().dim())
        shape.push_back(dim.has_dim_value() ? dim.dim_value() : 1);
      if (std::optional<std::string> bad =
              checkShape(Twine(kind) + " '" + info.name() + "'", shape))
        return modelError(error, *bad);
    }
  return success();
}

LogicalResult npu::onnx_import::checkBeforeONNX(const onnx::ModelProto &model,
                                                LoadError &error) {
  const onnx::GraphProto &graph = model.graph();
  for (const onnx::TensorProto &t : graph.initializer())
    if (std::optional<std::string> bad =
            checkTensor("initializer '" + t.name() + "'", t))
      return modelError(error, *bad);
  if (failed(checkValueTypes(graph, error)))
    return failure();
  llvm::StringSet<> used = usedValues(graph);
  for (const onnx::NodeProto &node : graph.node())
    if (failed(checkNode(node, used, error)))
      return failure();
  return success();
}

void npu::onnx_import::dropUnreadStatistics(onnx::GraphProto &graph) {
  for (onnx::NodeProto &node : *graph.mutable_node())
    if (node.op_type() == "LayerNormalization" && node.output_size() > 1)
      node.mutable_output()->DeleteSubrange(1, node.output_size() - 1);
}
