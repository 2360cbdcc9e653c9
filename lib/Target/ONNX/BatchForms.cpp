//===- BatchForms.cpp - how folded values depend on the batch -------------===//
//
// A model whose batch stays dynamic is imported at a few batches (probes),
// and shape arithmetic folded on the host could hide the batch in a
// constant: N / 8 is 0 at batch 1, 2 and 7, min(N, 7) is N there. No set
// of probes can tell such a value from a constant or from N, so the
// probes follow it symbolically instead: each element of a folded tensor
// has a BatchForm, none, a line slope * N + offset, or opaque, as a claim
// about every batch N >= 1 (a batch of 0 runs no sample). Shape's extents
// that differ from batch 1's are lines; integer sums, differences,
// products and exact quotients of lines by constants stay lines; a
// comparison, min or max whose result is the same at every batch has none
// or is one operand; anything else the batch reaches (float arithmetic
// among it) is opaque. An op that reads an opaque value, or a line where
// the graph would not show it, fails the import
// (checkBatchDerivedReads). Each rule is O(1) per element.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include <cmath>

using namespace npu::onnx_import;
using llvm::StringRef;

/// `form` with a value of none as the constant line through `value`.
static BatchForm asLine(BatchForm form, double value) {
  return form.kind == BatchForm::None ? BatchForm::affine(0, value) : form;
}

/// A line's value at batch `n`.
static double at(const BatchForm &line, double n) {
  return line.slope * n + line.offset;
}

/// A line of slope 0 depends on nothing. One too steep for int64 at any
/// batch below 2^31, or whose offset double cannot hold exactly, is not
/// followed: the tensor's values wrap where the line would not.
static BatchForm simplify(BatchForm form) {
  if (form.kind != BatchForm::Affine)
    return form;
  if (std::fabs(form.slope) > 0x1p31 || std::fabs(form.offset) > 0x1p53)
    return BatchForm::opaque();
  return form.slope == 0 ? BatchForm() : form;
}

static bool isIntegral(double v) { return std::floor(v) == v; }

/// Whether the line is 0 at some batch N >= 1.
static bool hasBatchRoot(const BatchForm &line) {
  double root = -line.offset / line.slope;
  return line.slope != 0 && root >= 1 && isIntegral(root);
}

/// The form of a comparison `d op 0` of the line d over every batch
/// N >= 1: none when its result never changes, else opaque. A line is
/// monotonic, so an order comparison changes at most once: it never does
/// when it agrees at N = 1 and as N grows.
static BatchForm compareForm(StringRef op, BatchForm d) {
  if (d.slope == 0)
    return BatchForm();
  if (op == "Equal")
    return hasBatchRoot(d) ? BatchForm::opaque() : BatchForm();
  auto holds = [&](double v) {
    return op == "Less"          ? v < 0
           : op == "LessOrEqual" ? v <= 0
           : op == "Greater"     ? v > 0
                                 : v >= 0;
  };
  bool atOne = holds(at(d, 1)), asNGrows = holds(d.slope);
  return atOne == asNGrows ? BatchForm() : BatchForm::opaque();
}

/// x / y of two lines: constant where they are proportional and y is never
/// 0; an integer division of a line by a constant that divides it exactly
/// is a line.
static BatchForm divideForms(BatchForm x, BatchForm y) {
  if (y.slope != 0) {
    bool proportional = x.slope * y.offset == x.offset * y.slope;
    return proportional && !hasBatchRoot(y) ? BatchForm() : BatchForm::opaque();
  }
  double c = y.offset;
  if (c == 0 || !isIntegral(x.slope / c) || !isIntegral(x.offset / c))
    return BatchForm::opaque();
  return simplify(BatchForm::affine(x.slope / c, x.offset / c));
}

BatchForm npu::onnx_import::combineForms(StringRef op, BatchForm x,
                                         double xValue, BatchForm y,
                                         double yValue, bool integer) {
  if (x.kind == BatchForm::None && y.kind == BatchForm::None)
    return BatchForm();
  // Float arithmetic rounds where a line would not (N / 7 * 7, an f32
  // constant compared for equality): only integers are followed.
  if (x.kind == BatchForm::Opaque || y.kind == BatchForm::Opaque || !integer)
    return BatchForm::opaque();
  x = asLine(x, xValue);
  y = asLine(y, yValue);
  BatchForm d = BatchForm::affine(x.slope - y.slope, x.offset - y.offset);
  if (op == "Add")
    return simplify(BatchForm::affine(x.slope + y.slope, x.offset + y.offset));
  if (op == "Sub")
    return simplify(d);
  if (op == "Mul") {
    if (x.slope == 0)
      std::swap(x, y);
    if (y.slope != 0)
      return BatchForm::opaque();
    return simplify(BatchForm::affine(x.slope * y.offset, x.offset * y.offset));
  }
  if (op == "Div")
    return divideForms(x, y);
  if (op == "Max" || op == "Min") {
    // The same operand wins at every N >= 1 when x - y keeps its sign.
    bool xNotBelow = at(d, 1) >= 0 && d.slope >= 0;
    bool xNotAbove = at(d, 1) <= 0 && d.slope <= 0;
    if (!xNotBelow && !xNotAbove)
      return BatchForm::opaque();
    return simplify(xNotBelow == (op == "Max") ? x : y);
  }
  if (llvm::is_contained(
          {"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"}, op))
    return compareForm(op, d);
  return BatchForm::opaque();
}

BatchForm npu::onnx_import::applyUnaryForm(StringRef op, BatchForm x) {
  if (x.kind != BatchForm::Affine)
    return x;
  bool integral = isIntegral(x.slope) && isIntegral(x.offset);
  if (op == "Neg")
    return BatchForm::affine(-x.slope, -x.offset);
  // Identities on an integral line (to f32, exact for the batches below
  // 2^24 any device holds), or one that never turns negative (positive)
  // for N >= 1.
  if ((op == "Floor" || op == "Ceil" || op == "CastToInteger" ||
       op == "CastToFloat") &&
      integral)
    return x;
  if (op == "Abs" && x.slope >= 0 && at(x, 1) >= 0)
    return x;
  if (op == "Abs" && x.slope <= 0 && at(x, 1) <= 0)
    return BatchForm::affine(-x.slope, -x.offset);
  return BatchForm::opaque();
}

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

void HostTensor::setForm(int64_t i, BatchForm form) {
  if (form.kind == BatchForm::None && batchForms.empty())
    return;
  if (batchForms.empty())
    batchForms.assign(std::max<int64_t>(numElements(), 0), BatchForm());
  batchForms[i] = form;
}

void HostTensor::setAllOpaque() {
  batchForms.assign(std::max<int64_t>(numElements(), 0), BatchForm::opaque());
  shapeForm = BatchForm::Opaque;
}

bool HostTensor::dependsOnBatch() const {
  return shapeForm != BatchForm::None ||
         llvm::any_of(batchForms, [](const BatchForm &f) {
           return f.kind != BatchForm::None;
         });
}

void npu::onnx_import::inheritShapeForms(NodeImporter &n, HostTensor &out) {
  StringRef op = n.opType();
  if (op == "Shape" || op == "Size")
    return;
  BatchForm::Kind inherited = BatchForm::None;
  for (size_t i = 0; i < n.numInputs(); ++i)
    if (n.hasInput(i) && n.input(i).constant)
      inherited = std::max(inherited, n.input(i).constant->shapeForm);
  if (inherited == BatchForm::None)
    return;
  // An op that moves elements by their flat index, or by indices, bounds or
  // counts along an axis the batch sizes, moves them differently at each
  // batch.
  bool keepsIndices =
      llvm::is_contained({"Expand",    "Tile",        "Squeeze",
                          "Unsqueeze", "Transpose",   "Where",
                          "Cast",      "Neg",         "Reciprocal",
                          "Sqrt",      "Floor",       "Ceil",
                          "Abs",       "Not",         "Add",
                          "Sub",       "Mul",         "Div",
                          "Pow",       "Mod",         "Max",
                          "Min",       "Equal",       "Less",
                          "Greater",   "LessOrEqual", "GreaterOrEqual",
                          "And",       "Or"},
                         op);
  if (inherited == BatchForm::Opaque || !keepsIndices)
    out.setAllOpaque();
  out.shapeForm = std::max(out.shapeForm, inherited);
}
