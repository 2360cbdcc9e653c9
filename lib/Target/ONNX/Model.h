//===- Model.h - an ONNX model read, checked and shape-inferred -*- C++ -*-===//

#ifndef NPU_LIB_TARGET_ONNX_MODEL_H
#define NPU_LIB_TARGET_ONNX_MODEL_H

#include "Importer.h"

#include "onnx/onnx_pb.h"

#include "llvm/ADT/StringSet.h"

namespace npu::onnx_import {

/// A value's type as ONNX shape inference gives it (-1: unknown extent).
struct InferredType {
  int32_t dtype = 0;
  bool hasShape = false;
  llvm::SmallVector<int64_t> shape;
};

/// A parsed model that passed the checker, with inferred shapes.
struct LoadedModel {
  onnx::ModelProto model;
  int64_t opset = 0;
  /// The model's directory, against which external data resolves.
  std::string dir;
  llvm::StringSet<> initializers;
  llvm::StringMap<InferredType> inferred;
};

/// Why a model did not load: a sentence about the model as a whole, which
/// follows its path ("... is not an ONNX model"), or about one node.
struct LoadError {
  /// The node at fault and its op type; empty for the whole model.
  std::string node, opType;
  std::string message;
  /// The model could be imported but for a graph input's dynamic leading
  /// dimension, which no batch was given to bind.
  bool unboundBatch = false;
};

/// The most elements (and the largest size of a dimension) any tensor of an
/// imported model may have: more fit no device's memory, and every size
/// bounded keeps the arithmetic on them far from overflowing.
inline constexpr int64_t kMaxElements = int64_t(1) << 40;

/// Bytes per element of an ONNX dtype with a fixed size; 0 for the others
/// (strings, complex numbers).
int64_t getElementBytes(int32_t dtype);

/// A node's name: its own, else its first output's.
std::string nodeName(const onnx::NodeProto &node);

/// Drops the Mean and InvStdDev outputs of every LayerNormalization node,
/// which checkBeforeONNX has found unread: libonnx 1.12 shapes them from
/// the input's dimensions at `axis` without checking it (2^31: SIGSEGV),
/// even when nothing reads them.
void dropUnreadStatistics(onnx::GraphProto &graph);

/// What the ONNX checker and shape inference would trip on, checked before
/// either runs: unsupported ops, windowed ops' sizes, tensors whose data
/// does not match their shape, sizes past kMaxElements (ModelChecks.cpp).
mlir::LogicalResult checkBeforeONNX(const onnx::ModelProto &model,
                                    LoadError &error);
/// The sizes of the graph's inputs, outputs and value types.
mlir::LogicalResult checkValueTypes(const onnx::GraphProto &graph,
                                    LoadError &error);

/// Parses `bytes`, checks the opset (13 to 17) and what libonnx would trip
/// on, binds the batch, runs the ONNX checker and shape inference. A
/// `probe` (an import at a batch the user did not give, to keep it
/// dynamic) binds the batch of the inputs that leave it dynamic only.
mlir::FailureOr<LoadedModel> loadModel(llvm::StringRef bytes,
                                       llvm::StringRef path,
                                       const ONNXImportOptions &options,
                                       LoadError &error, bool probe = false);

/// The file an external initializer's data lives in.
std::string externalDataPath(const onnx::TensorProto &tensor,
                             llvm::StringRef dir);

/// "FLOAT", "INT64", ... for diagnostics.
std::string dtypeName(int32_t dtype);

} // namespace npu::onnx_import

#endif // NPU_LIB_TARGET_ONNX_MODEL_H
