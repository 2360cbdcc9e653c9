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

/// Parses `bytes`, checks the opset (13 to 17), binds the batch, runs the
/// ONNX checker and shape inference. On failure sets `error` to a sentence
/// that follows the model's path ("... is not an ONNX model").
mlir::FailureOr<LoadedModel> loadModel(llvm::StringRef bytes,
                                       llvm::StringRef path,
                                       const ONNXImportOptions &options,
                                       std::string &error);

/// The file an external initializer's data lives in.
std::string externalDataPath(const onnx::TensorProto &tensor,
                             llvm::StringRef dir);

/// "FLOAT", "INT64", ... for diagnostics.
std::string dtypeName(int32_t dtype);

} // namespace npu::onnx_import

#endif // NPU_LIB_TARGET_ONNX_MODEL_H
