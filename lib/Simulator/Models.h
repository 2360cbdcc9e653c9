//===- Models.h - registering the simulator's op models ---------*- C++ -*-===//
//
// Private to lib/Simulator. Each *Models.cpp file gives the ops of one
// dialect their meaning and cost (SimulatedOpInterface) and contributes them
// through one registration function.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_LIB_SIMULATOR_MODELS_H
#define NPU_LIB_SIMULATOR_MODELS_H

#include "npu/Simulator/Execution.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

namespace npu::sim {

void registerArithModels(mlir::DialectRegistry &registry);
void registerMathModels(mlir::DialectRegistry &registry);
void registerSCFModels(mlir::DialectRegistry &registry);
void registerMemRefModels(mlir::DialectRegistry &registry);
void registerNPUDevModels(mlir::DialectRegistry &registry);

/// The external model of one op, for a model written once for many ops:
/// `Impl::simulate(OpExecution &)` gives the meaning.
template <typename Impl> struct ModelFor {
  template <typename OpT>
  struct Of : SimulatedOpInterface::ExternalModel<Of<OpT>, OpT> {
    mlir::LogicalResult simulate(mlir::Operation *, OpExecution &exec) const {
      return Impl::simulate(exec);
    }
  };
};

/// Attaches `Impl` to each op of `OpTs` that has no simulator model yet
/// (simulate() may register the models of a context more than once).
template <typename Impl, typename... OpTs>
void attachModel(mlir::MLIRContext *ctx) {
  (
      [&] {
        if (!mlir::OperationName(OpTs::getOperationName(), ctx)
                 .template hasInterface<SimulatedOpInterface>())
          OpTs::template attachInterface<
              typename ModelFor<Impl>::template Of<OpTs>>(*ctx);
      }(),
      ...);
}

} // namespace npu::sim

#endif // NPU_LIB_SIMULATOR_MODELS_H
