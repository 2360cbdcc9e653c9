//===- SimulatorInterfaces.td - the simulator's view -------*- tablegen -*-===//
//
// What an op means to the simulator: one interface, implemented as external
// models in lib/Simulator for every op the simulator runs (npudev, arith,
// math, scf, memref), the way upstream attaches BufferizableOpInterface to
// arith from a separate library.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_SIMULATOR_INTERFACES_TD
#define NPU_SIMULATOR_INTERFACES_TD

include "mlir/IR/OpBase.td"

def SimulatedOpInterface : OpInterface<"SimulatedOpInterface"> {
  let cppNamespace = "::npu::sim";
  let description = [{
    An op the simulator can execute. `simulate` computes the op's results
    and memory effects from the run-time values of its operands, reached
    through `exec` (operands and results by position, nested regions run
    through `exec.runRegion`), and charges its cost to the running core
    (`exec.chargeScalar`, `chargeVector`, `chargeCube`, `chargeDma`): the
    op's meaning and its cost are written in one place, the timing model
    (pipes, overlap, bandwidth sharing) stays in the interpreter.

    It fails with a diagnostic at the op on a fault: an out-of-bounds
    access, a read of an element never written, a division by zero.
  }];
  let methods = [
    InterfaceMethod<
      "Executes the op on the values in `exec` and charges its cost.",
      "::mlir::LogicalResult", "simulate",
      (ins "::npu::sim::OpExecution &":$exec)>
  ];
}

#endif // NPU_SIMULATOR_INTERFACES_TD
