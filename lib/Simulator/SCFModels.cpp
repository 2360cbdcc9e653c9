//===- SCFModels.cpp - meaning and cost of scf control flow ---------------===//
//
// Loops and branches run their region through OpExecution; each loop
// iteration and each branch costs one scalar cycle (the compare-and-jump).
// Loop-carried values are copied out of the yielded slots before being
// written back, since a body may yield its arguments in another order.
//
//===----------------------------------------------------------------------===//

#include "Models.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace npu;
using namespace npu::sim;

namespace {

/// Copies what region `region` yielded, from position `first` on.
SmallVector<RtValue, 4> takeYielded(OpExecution &exec, unsigned region,
                                    unsigned first, unsigned count) {
  SmallVector<RtValue, 4> values;
  for (unsigned i = 0; i < count; ++i)
    values.push_back(exec.getYielded(region, first + i));
  return values;
}

struct For {
  static LogicalResult simulate(OpExecution &exec) {
    auto loop = cast<scf::ForOp>(exec.getOp());
    int64_t lb = exec.getInt(0), ub = exec.getInt(1), step = exec.getInt(2);
    if (step <= 0)
      return exec.emitOpError() << "step must be positive, got " << step;
    unsigned numCarried = loop.getNumRegionIterArgs();
    for (unsigned i = 0; i < numCarried; ++i)
      exec.getRegionArgument(0, i + 1) = exec.getValue(3 + i);
    RtValue &iv = exec.getRegionArgument(0, 0);
    for (int64_t i = lb; i < ub; i += step) {
      iv.i = i;
      exec.chargeScalar();
      if (failed(exec.runRegion(0)))
        return failure();
      if (numCarried == 0)
        continue;
      SmallVector<RtValue, 4> next = takeYielded(exec, 0, 0, numCarried);
      for (unsigned k = 0; k < numCarried; ++k)
        exec.getRegionArgument(0, k + 1) = std::move(next[k]);
    }
    for (unsigned k = 0; k < numCarried; ++k)
      exec.setValue(k, exec.getRegionArgument(0, k + 1));
    return success();
  }
};

struct If {
  static LogicalResult simulate(OpExecution &exec) {
    exec.chargeScalar();
    unsigned region = exec.getInt(0) ? 0 : 1;
    if (!exec.hasRegionBody(region))
      return success();
    if (failed(exec.runRegion(region)))
      return failure();
    unsigned numResults = exec.getOp()->getNumResults();
    for (unsigned k = 0; k < numResults; ++k)
      exec.setValue(k, exec.getYielded(region, k));
    return success();
  }
};

/// scf.while: region 0 ("before") ends in scf.condition(%cond, forwarded),
/// region 1 ("after") yields the next state.
struct While {
  static LogicalResult simulate(OpExecution &exec) {
    auto loop = cast<scf::WhileOp>(exec.getOp());
    unsigned numState = loop.getInits().size();
    unsigned numForwarded = loop.getNumResults();
    for (unsigned i = 0; i < numState; ++i)
      exec.getRegionArgument(0, i) = exec.getValue(i);
    while (true) {
      if (failed(exec.runRegion(0)))
        return failure();
      exec.chargeScalar();
      bool proceed = exec.getYielded(0, 0).i != 0;
      SmallVector<RtValue, 4> forwarded = takeYielded(exec, 0, 1, numForwarded);
      if (!proceed) {
        for (unsigned k = 0; k < numForwarded; ++k)
          exec.setValue(k, forwarded[k]);
        return success();
      }
      for (unsigned k = 0; k < numForwarded; ++k)
        exec.getRegionArgument(1, k) = std::move(forwarded[k]);
      if (failed(exec.runRegion(1)))
        return failure();
      SmallVector<RtValue, 4> state = takeYielded(exec, 1, 0, numState);
      for (unsigned k = 0; k < numState; ++k)
        exec.getRegionArgument(0, k) = std::move(state[k]);
    }
  }
};

} // namespace

void npu::sim::registerSCFModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, scf::SCFDialect *) {
    attachModel<For, scf::ForOp>(ctx);
    attachModel<If, scf::IfOp>(ctx);
    attachModel<While, scf::WhileOp>(ctx);
  });
}
