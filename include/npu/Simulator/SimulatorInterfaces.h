//===- SimulatorInterfaces.h - the simulator's view of ops ------*- C++ -*-===//

#ifndef NPU_SIMULATOR_SIMULATORINTERFACES_H
#define NPU_SIMULATOR_SIMULATORINTERFACES_H

#include "mlir/IR/OpDefinition.h"

namespace npu::sim {
class OpExecution;
} // namespace npu::sim

#include "npu/Simulator/SimulatorInterfaces.h.inc"

#endif // NPU_SIMULATOR_SIMULATORINTERFACES_H
