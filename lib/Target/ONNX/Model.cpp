//===- Model.cpp - reading, checking and shape-inferring an ONNX model ----===//
//
// The model's protobuf is parsed, its opset checked, a dynamic batch bound,
// the ONNX checker and ONNX shape inference (strict, no data propagation) run,
// and the inferred value types kept so that the importer can compare its own
// result types against them. Initializer data is read on demand, inline or
// from external files. Linear in the model's size.
//
//===----------------------------------------------------------------------===//

#include "Model.h"

#include "onnx/checker.h"
#include "onnx/shape_inference/implementation.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace mlir;
using namespace npu::onnx_import;

static constexpr int64_t kMinOpset = 13, kMaxOpset = 17;

bool npu::onnx_import::isFloatType(int32_t dtype) {
  switch (dtype) {
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::DOUBLE:
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
    return true;
  default:
    return false;
  }
}

Type npu::onnx_import::fromONNXType(MLIRContext *context, int32_t dtype) {
  Builder b(context);
  switch (dtype) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::INT64:
    return b.getI64Type();
  case onnx::TensorProto::INT32:
    return b.getI32Type();
  case onnx::TensorProto::INT16:
    return b.getI16Type();
  case onnx::TensorProto::INT8:
    return b.getI8Type();
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  default:
    return {};
  }
}

int32_t npu::onnx_import::toONNXType(Type type) {
  if (type.isF32())
    return onnx::TensorProto::FLOAT;
  if (type.isF64())
    return onnx::TensorProto::DOUBLE;
  if (type.isF16())
    return onnx::TensorProto::FLOAT16;
  if (type.isBF16())
    return onnx::TensorProto::BFLOAT16;
  switch (type.getIntOrFloatBitWidth()) {
  case 1:
    return onnx::TensorProto::BOOL;
  case 8:
    return onnx::TensorProto::INT8;
  case 16:
    return onnx::TensorProto::INT16;
  case 32:
    return onnx::TensorProto::INT32;
  default:
    return onnx::TensorProto::INT64;
  }
}

std::string npu::onnx_import::dtypeName(int32_t dtype) {
  return onnx::TensorProto::DataType_IsValid(dtype)
             ? onnx::TensorProto::DataType_Name(
                   static_cast<onnx::TensorProto::DataType>(dtype))
             : "type " + std::to_string(dtype);
}

//===----------------------------------------------------------------------===//
// Tensor data
//===----------------------------------------------------------------------===//

/// The external-data entry `key` of `tensor`, "" when absent.
static std::string externalEntry(const onnx::TensorProto &tensor,
                                 llvm::StringRef key) {
  for (const onnx::StringStringEntryProto &entry : tensor.external_data())
    if (entry.key() == key)
      return entry.value();
  return "";
}

std::string npu::onnx_import::externalDataPath(const onnx::TensorProto &tensor,
                                               llvm::StringRef dir) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, externalEntry(tensor, "location"));
  return std::string(path);
}

/// Decodes one little-endian element of `dtype` at `p` into `out`.
static void decodeElement(int32_t dtype, const char *p, HostTensor &out,
                          int64_t i) {
  auto load = [&](auto value) {
    std::memcpy(&value, p, sizeof(value));
    return value;
  };
  switch (dtype) {
  case onnx::TensorProto::FLOAT:
    out.floats[i] = load(float());
    return;
  case onnx::TensorProto::DOUBLE:
    out.floats[i] = load(double());
    return;
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16: {
    const llvm::fltSemantics &sem = dtype == onnx::TensorProto::FLOAT16
                                        ? llvm::APFloat::IEEEhalf()
                                        : llvm::APFloat::BFloat();
    out.floats[i] =
        llvm::APFloat(sem, llvm::APInt(16, load(uint16_t()))).convertToDouble();
    return;
  }
  case onnx::TensorProto::INT64:
    out.ints[i] = load(int64_t());
    return;
  case onnx::TensorProto::INT32:
    out.ints[i] = load(int32_t());
    return;
  case onnx::TensorProto::INT16:
    out.ints[i] = load(int16_t());
    return;
  case onnx::TensorProto::INT8:
    out.ints[i] = load(int8_t());
    return;
  default: // UINT8, BOOL
    out.ints[i] = load(uint8_t());
    return;
  }
}

int64_t npu::onnx_import::getElementBytes(int32_t dtype) {
  switch (dtype) {
  case onnx::TensorProto::DOUBLE:
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::UINT64:
    return 8;
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::UINT32:
    return 4;
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::UINT16:
    return 2;
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT8:
  case onnx::TensorProto::BOOL:
    return 1;
  default:
    return 0;
  }
}

/// Fills `out` from the typed repeated fields of `tensor`.
static bool readTypedFields(const onnx::TensorProto &tensor, HostTensor &out) {
  int64_t n = out.numElements();
  auto copy = [&](const auto &field, auto convert) {
    if (field.size() != n)
      return false;
    for (int64_t i = 0; i < n; ++i)
      convert(i, field.Get(i));
    return true;
  };
  switch (tensor.data_type()) {
  case onnx::TensorProto::FLOAT:
    return copy(tensor.float_data(),
                [&](int64_t i, float v) { out.floats[i] = v; });
  case onnx::TensorProto::DOUBLE:
    return copy(tensor.double_data(),
                [&](int64_t i, double v) { out.floats[i] = v; });
  case onnx::TensorProto::INT64:
    return copy(tensor.int64_data(),
                [&](int64_t i, int64_t v) { out.ints[i] = v; });
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
    return copy(tensor.int32_data(), [&](int64_t i, int32_t v) {
      uint16_t bits = static_cast<uint16_t>(v);
      decodeElement(tensor.data_type(), reinterpret_cast<const char *>(&bits),
                    out, i);
    });
  default:
    return copy(tensor.int32_data(),
                [&](int64_t i, int32_t v) { out.ints[i] = v; });
  }
}

FailureOr<HostTensor>
npu::onnx_import::readTensor(const onnx::TensorProto &tensor,
                             llvm::StringRef dir, std::string &error) {
  int32_t dtype = tensor.data_type();
  int64_t bytes = getElementBytes(dtype);
  // decodeElement reads every type of getElementBytes but the wide unsigned.
  if (!bytes || dtype == onnx::TensorProto::UINT16 ||
      dtype == onnx::TensorProto::UINT32 ||
      dtype == onnx::TensorProto::UINT64) {
    error = "element type " + dtypeName(dtype) + " is not supported";
    return failure();
  }
  HostTensor out =
      HostTensor::zeros(dtype, llvm::SmallVector<int64_t>(tensor.dims().begin(),
                                                          tensor.dims().end()));
  int64_t n = out.numElements();
  if (n < 0) {
    error = "has a negative dimension";
    return failure();
  }
  std::unique_ptr<llvm::MemoryBuffer> file;
  llvm::StringRef raw;
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    std::string path = externalDataPath(tensor, dir);
    int64_t offset = std::atoll(externalEntry(tensor, "offset").c_str());
    auto buffer = llvm::MemoryBuffer::getFileSlice(path, n * bytes, offset);
    if (!buffer) {
      error = "external data '" + path +
              "' cannot be read: " + buffer.getError().message();
      return failure();
    }
    file = std::move(*buffer);
    raw = file->getBuffer();
  } else if (tensor.has_raw_data()) {
    raw = tensor.raw_data();
  } else {
    if (!readTypedFields(tensor, out)) {
      error = "holds a number of values other than its " + std::to_string(n) +
              " elements";
      return failure();
    }
    return out;
  }
  if (static_cast<int64_t>(raw.size()) != n * bytes) {
    error = "holds " + std::to_string(raw.size()) + " bytes of data, not the " +
            std::to_string(n * bytes) + " its shape needs";
    return failure();
  }
  for (int64_t i = 0; i < n; ++i)
    decodeElement(dtype, raw.data() + i * bytes, out, i);
  return out;
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

/// "[3, 224, 224]", "[?, 3, 224, 224]".
static std::string formatDims(const onnx::TensorShapeProto &shape) {
  std::string text = "[";
  for (int d = 0; d < shape.dim_size(); ++d) {
    if (d)
      text += ", ";
    text += shape.dim(d).has_dim_value()
                ? std::to_string(shape.dim(d).dim_value())
                : "?";
  }
  return text + "]";
}

/// Binds the dynamic dimensions of the graph inputs: only the leading one,
/// and only to --batch (or, in a `probe`, the batch importONNX tries).
/// Without a batch, `unboundBatch` says one is left (importONNX then keeps
/// the batch dynamic).
static LogicalResult bindBatch(onnx::GraphProto &graph,
                               const llvm::StringSet<> &initializers,
                               std::optional<int64_t> batch, bool probe,
                               std::string &error, bool &unboundBatch) {
  if (batch && (*batch < 0 || *batch > kMaxElements)) {
    error = "cannot be imported with --batch=" + std::to_string(*batch) +
            ": a batch is 0 to 2^40";
    return failure();
  }
  for (onnx::ValueInfoProto &input : *graph.mutable_input()) {
    if (initializers.contains(input.name()))
      continue;
    if (!input.type().has_tensor_type() ||
        !input.type().tensor_type().has_shape()) {
      error =
          "graph input '" + input.name() + "' is not a tensor of known rank";
      return failure();
    }
    auto *shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    for (int d = 0; d < shape->dim_size(); ++d) {
      onnx::TensorShapeProto_Dimension *dim = shape->mutable_dim(d);
      if (dim->has_dim_value()) {
        // A fixed leading dimension may be anything (an image without a
        // batch axis starts with its channels): say what it is.
        if (d == 0 && batch && !probe && dim->dim_value() != *batch) {
          error = "--batch=" + std::to_string(*batch) +
                  " given, but graph input '" + input.name() + "' of shape " +
                  formatDims(*shape) +
                  " has no dynamic leading dimension to bind (it is fixed "
                  "at " +
                  std::to_string(dim->dim_value()) + ")";
          return failure();
        }
        continue;
      }
      std::string label =
          dim->has_dim_param() ? " ('" + dim->dim_param() + "')" : "";
      if (d != 0) {
        error = "graph input '" + input.name() + "' of shape " +
                formatDims(*shape) + " has dynamic dimension " +
                std::to_string(d) + label +
                "; only the leading dimension can be bound, by --batch";
        return failure();
      }
      if (!batch) {
        error = "graph input '" + input.name() + "' of shape " +
                formatDims(*shape) + " has a dynamic leading dimension" +
                label + "; bind it with --batch=N";
        unboundBatch = true;
        continue;
      }
      dim->set_dim_value(*batch);
    }
  }
  return success();
}

/// Runs the ONNX checker on a copy whose external initializers are graph
/// inputs instead. Given a ModelProto rather than a path, the checker looks
/// for their files relative to the working directory, not the model's; the
/// importer needs only their types, and reads (and checks) the data itself
/// when it is used.
static LogicalResult checkModel(const onnx::ModelProto &model,
                                std::string &error) {
  onnx::ModelProto copy = model;
  onnx::GraphProto *graph = copy.mutable_graph();
  auto *inits = graph->mutable_initializer();
  for (int i = inits->size() - 1; i >= 0; --i) {
    const onnx::TensorProto &t = inits->Get(i);
    if (t.data_location() != onnx::TensorProto::EXTERNAL)
      continue;
    onnx::ValueInfoProto *input = graph->add_input();
    input->set_name(t.name());
    auto *type = input->mutable_type()->mutable_tensor_type();
    type->set_elem_type(t.data_type());
    type->mutable_shape();
    for (int64_t d : t.dims())
      type->mutable_shape()->add_dim()->set_dim_value(d);
    inits->DeleteSubrange(i, 1);
  }
  try {
    onnx::checker::check_model(copy);
  } catch (const std::exception &e) {
    error = std::string("is not a valid ONNX model: ") + e.what();
    return failure();
  }
  return success();
}

static InferredType toInferredType(const onnx::TypeProto &type) {
  InferredType out;
  if (!type.has_tensor_type())
    return out;
  out.dtype = type.tensor_type().elem_type();
  if (!type.tensor_type().has_shape())
    return out;
  out.hasShape = true;
  for (const auto &dim : type.tensor_type().shape().dim())
    out.shape.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
  return out;
}

/// Every node output shape inference sized is within kMaxElements (a huge
/// Expand, a batch that multiplies past it).
static LogicalResult checkInferredSizes(const LoadedModel &loaded,
                                        LoadError &error) {
  for (const onnx::NodeProto &node : loaded.model.graph().node())
    for (const std::string &output : node.output()) {
      auto it = loaded.inferred.find(output);
      if (it == loaded.inferred.end() || !it->second.hasShape)
        continue;
      if (countElements(it->second.shape) > kMaxElements) {
        error = {nodeName(node), node.op_type(),
                 "output '" + output + "' would have more than 2^40 elements"};
        return failure();
      }
    }
  return success();
}

FailureOr<LoadedModel>
npu::onnx_import::loadModel(llvm::StringRef bytes, llvm::StringRef path,
                            const ONNXImportOptions &options,
                            LoadError &loadError, bool probe) {
  std::string &error = loadError.message;
  LoadedModel loaded;
  onnx::ModelProto &model = loaded.model;
  if (bytes.size() > static_cast<size_t>(INT32_MAX) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    error = "is not an ONNX model (its protobuf does not parse; truncated?)";
    return failure();
  }
  if (!model.has_graph()) {
    error = "is not an ONNX model (it has no graph)";
    return failure();
  }
  bool hasDefaultDomain = false;
  for (const onnx::OperatorSetIdProto &opset : model.opset_import()) {
    if (!opset.domain().empty() && opset.domain() != "ai.onnx")
      continue;
    hasDefaultDomain = true;
    loaded.opset = opset.version();
  }
  if (!hasDefaultDomain) {
    error = "imports no version of the default ONNX opset";
    return failure();
  }
  if (loaded.opset < kMinOpset || loaded.opset > kMaxOpset) {
    error = "uses opset " + std::to_string(loaded.opset) +
            "; npu-import-onnx reads opset " + std::to_string(kMinOpset) +
            " to " + std::to_string(kMaxOpset);
    return failure();
  }
  loaded.dir = std::string(llvm::sys::path::parent_path(path));
  for (const onnx::TensorProto &t : model.graph().initializer())
    loaded.initializers.insert(t.name());
  if (failed(checkBeforeONNX(model, loadError)))
    return failure();
  dropUnreadStatistics(*model.mutable_graph());
  if (failed(bindBatch(*model.mutable_graph(), loaded.initializers,
                       options.batch, probe, error, loadError.unboundBatch)) ||
      loadError.unboundBatch ||
      failed(checkValueTypes(model.graph(), loadError)) ||
      failed(checkModel(model, error)))
    return failure();
  try {
    // Strict: a node whose inference fails is an error. No data
    // propagation: the importer folds shape arithmetic itself, and
    // libonnx 1.12's propagation reads the type of an input that a failed
    // node left untyped (Shape after a malformed Conv: SIGSEGV).
    onnx::ShapeInferenceOptions inference(/*check_type=*/false,
                                          /*strict_mode=*/1,
                                          /*data_prop=*/false);
    onnx::shape_inference::InferShapes(
        model, onnx::OpSchemaRegistry::Instance(), inference);
  } catch (const std::exception &e) {
    error = std::string("fails ONNX shape inference: ") + e.what();
    return failure();
  }
  for (const auto *list :
       {&model.graph().value_info(), &model.graph().output()})
    for (const onnx::ValueInfoProto &info : *list)
      loaded.inferred[info.name()] = toInferredType(info.type());
  if (failed(checkInferredSizes(loaded, loadError)))
    return failure();
  return loaded;
}
