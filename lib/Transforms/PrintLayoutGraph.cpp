//===- PrintLayoutGraph.cpp - Graphviz picture of layout decisions --------===//
//
// Writes each function as a dot digraph: one node per graph input, op and
// graph output, coloured by stored layout as the LayoutAlignToNPU design
// draws them, and one edge per use labelled with the tensor type.
// O(ops + uses).
//
//===----------------------------------------------------------------------===//

#include "npu/Dialect/NPU/NPUOps.h"
#include "npu/Transforms/LayoutAlign.h"
#include "npu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

namespace npu {
#define GEN_PASS_DEF_PRINTLAYOUTGRAPH
#include "npu/Transforms/Passes.h.inc"
} // namespace npu

using namespace mlir;
using namespace npu;
using namespace npu::graph;

namespace {
constexpr StringLiteral kAlignedFill = "#f6d55c";  // yellow
constexpr StringLiteral kDenseFill = "#c8c8c8";    // grey
constexpr StringLiteral kAdaptiveFill = "#8fd18f"; // green
constexpr StringLiteral kToAlignFill = "#8ab8ff";  // blue
constexpr StringLiteral kToDenseFill = "#ffb36b";  // orange

/// The fill colour of a node that stores (or runs in) `mode`.
StringRef fillFor(AlignMode mode) {
  switch (mode) {
  case AlignMode::ALIGN:
    return kAlignedFill;
  case AlignMode::NALIGN:
    return kDenseFill;
  case AlignMode::BOTH:
    return kAdaptiveFill;
  case AlignMode::UNKNOWN:
    return "white";
  }
  llvm_unreachable("unknown AlignMode");
}

/// "1x32x32x64xf32" for a ranked tensor, the type itself otherwise.
std::string formatEdgeLabel(Type type) {
  std::string label;
  llvm::raw_string_ostream os(label);
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor) {
    os << type;
    return label;
  }
  for (int64_t dim : tensor.getShape()) {
    if (ShapedType::isDynamic(dim))
      os << '?';
    else
      os << dim;
    os << 'x';
  }
  os << tensor.getElementType();
  return label;
}

class DotWriter {
public:
  DotWriter(raw_ostream &os, AlignMode graphIOMode)
      : os(os), graphIOMode(graphIOMode) {}

  void write(func::FuncOp func) {
    os << "digraph \"" << func.getSymName() << "\" {\n"
       << "  node [style=filled, shape=box, fontname=\"Helvetica\"];\n"
       << "  edge [fontname=\"Helvetica\", fontsize=10];\n";
    for (BlockArgument arg : func.getArguments()) {
      std::string id = "in" + std::to_string(arg.getArgNumber());
      os << "  " << id << " [label=\""
         << (isWeightArgument(arg) ? "weight #" : "input #")
         << arg.getArgNumber() << "\", shape=ellipse, fillcolor=\""
         << fillFor(getGraphInputMode(arg, graphIOMode)) << "\"];\n";
      names[arg] = id;
    }
    unsigned counter = 0;
    func.walk([&](Operation *op) {
      if (op == func)
        return;
      std::string id = "op" + std::to_string(counter++);
      writeNode(op, id);
      for (Value operand : op->getOperands())
        if (auto it = names.find(operand); it != names.end())
          os << "  " << it->second << " -> " << id << " [label=\""
             << formatEdgeLabel(operand.getType()) << "\"];\n";
      for (Value result : op->getResults())
        names[result] = id;
    });
    os << "}\n";
  }

private:
  void writeNode(Operation *op, StringRef id) {
    os << "  " << id << " [label=\"" << op->getName();
    if (auto norm = dyn_cast<ChannelNormOp>(op)) {
      bool toAlign = norm.getTargetMode() == AlignMode::ALIGN;
      os << "\\n"
         << stringifyChannelNormDirection(norm.getDirection())
         << "\", shape=diamond, fillcolor=\""
         << (toAlign ? kToAlignFill : kToDenseFill) << "\"];\n";
      return;
    }
    AlignMode intrinsic = getIntrinsicAlignMode(op, graphIOMode);
    std::optional<AlignMode> stored;
    for (Type type : op->getResultTypes())
      if (isLayoutRelevant(type) && !stored)
        stored = getLayoutMode(type);
    if (op->hasTrait<OpTrait::IsTerminator>())
      os << "\\n(graph output)";
    os << "\", fillcolor=\"" << fillFor(stored.value_or(intrinsic)) << "\"";
    // An adapting op keeps a green border once its layout is decided.
    if (intrinsic == AlignMode::BOTH && stored)
      os << ", color=\"" << kAdaptiveFill << "\", penwidth=3";
    os << "];\n";
  }

  raw_ostream &os;
  AlignMode graphIOMode;
  DenseMap<Value, std::string> names;
};

struct PrintLayoutGraphPass
    : public npu::impl::PrintLayoutGraphBase<PrintLayoutGraphPass> {
  using PrintLayoutGraphBase::PrintLayoutGraphBase;

  void runOnOperation() override {
    markAllAnalysesPreserved();
    if (output == "-") {
      DotWriter(llvm::errs(), graphIOMode).write(getOperation());
      return;
    }
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(output, &error);
    if (!file) {
      getOperation().emitError("cannot write the layout graph: ") << error;
      return signalPassFailure();
    }
    DotWriter(file->os(), graphIOMode).write(getOperation());
    file->keep();
  }
};
} // namespace
