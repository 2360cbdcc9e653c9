//===- SimulatorInterfaces.cpp - the simulator's view of ops --------------===//

#include "npu/Simulator/SimulatorInterfaces.h"

#include "npu/Simulator/SimulatorInterfaces.cpp.inc"
