//===- ImportONNX.h - ONNX models into the npu dialect ----------*- C++ -*-===//
//
// Reads an ONNX model (opset 13 to 17) and writes one func.func of npu ops.
// docs/onnx-import.md states the rules: static shapes, channels last,
// initializers as arguments or constants.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_TARGET_ONNX_IMPORTONNX_H
#define NPU_TARGET_ONNX_IMPORTONNX_H

#include "npu/Support/Npz.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <optional>
#include <string>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace npu {

/// What the importer makes of the graph's float initializers (the weights).
enum class ONNXWeights {
  /// Function arguments named after the initializer: weights are loaded at
  /// run time, and their data need not be present.
  Arguments,
  /// npu.constant ops holding the data.
  Constants,
};

/// Options of importONNX (npu-import-onnx's command line).
struct ONNXImportOptions {
  /// Binds a dynamic leading dimension (the batch) of every graph input.
  std::optional<int64_t> batch;
  /// With the batch left dynamic: the samples npu.map_batch's chunk region
  /// computes at once (the graph at that batch, run over as many whole
  /// chunks as the batch holds); 0 or 1 for none, each sample apart.
  int64_t batchChunk = 4;
  ONNXWeights weights = ONNXWeights::Arguments;
  /// The name of the function the graph becomes.
  std::string functionName = "main";
  /// When set (weights as arguments), receives each weight argument's data
  /// as the argument stores it (permuted as its npu.onnx_perm says), named
  /// by its npu.onnx_name: what `npu-run --weights` binds. bf16 weights are
  /// given as float32 (.npy has no bfloat16). An initializer without data
  /// is then an error.
  NpzArrays *weightData = nullptr;
};

/// Imports the serialized ONNX model `bytes`. `modelPath` names it in
/// diagnostics and locates external data (relative to its directory).
/// Errors go to the context's diagnostic handler, each naming the node, its
/// op type and the broken rule; returns null after one.
mlir::OwningOpRef<mlir::ModuleOp> importONNX(llvm::StringRef bytes,
                                             llvm::StringRef modelPath,
                                             mlir::MLIRContext *context,
                                             const ONNXImportOptions &options);

/// Registers the dialects an imported module uses.
void registerONNXImportDialects(mlir::DialectRegistry &registry);

} // namespace npu

#endif // NPU_TARGET_ONNX_IMPORTONNX_H
