//===- BatchFormTest.cpp - the importer's batch forms against evaluation --===//
//
// A folded value's BatchForm is a claim about every batch N >= 1 (a batch
// of 0 runs no sample): none, the value does not change; a line, it is
// slope * N + offset. Each test evaluates the op, as ONNX defines it, on
// operands that are lines or constants at N = 1 .. 64, and checks the
// form the importer derives from
// one probe's values against every N. An Opaque form claims nothing; the
// tests count that lines and constants do come out.
//
//===----------------------------------------------------------------------===//

#include "BatchForm.h"

#include "gtest/gtest.h"

#include <cmath>
#include <functional>
#include <vector>

using namespace npu::onnx_import;

namespace {

constexpr int64_t kLastBatch = 64;
/// The batch whose values the importer folds (a probe).
constexpr int64_t kProbe = 2;

/// An operand: a constant, or slope * N + offset.
struct Operand {
  BatchForm form;
  double constant = 0;
  double at(int64_t n) const {
    return form.kind == BatchForm::None ? constant
                                        : form.slope * n + form.offset;
  }
};

/// Constants and lines with small whole coefficients, as shape arithmetic
/// has them.
std::vector<Operand> getOperands() {
  std::vector<Operand> operands;
  for (double c : {-8.0, -1.0, 0.0, 1.0, 2.0, 3.0, 7.0, 8.0})
    operands.push_back({BatchForm(), c});
  for (double slope : {-2.0, -1.0, 1.0, 2.0, 4.0})
    for (double offset : {-7.0, -2.0, 0.0, 1.0, 3.0})
      operands.push_back({BatchForm::affine(slope, offset)});
  return operands;
}

/// Fails unless `form` describes `value` at every batch; counts the kinds.
void expectFormHolds(const BatchForm &form,
                     const std::function<double(int64_t)> &value,
                     const std::string &what, int counts[3]) {
  ++counts[form.kind];
  if (form.kind == BatchForm::Opaque)
    return;
  for (int64_t n = 1; n <= kLastBatch; ++n) {
    double expected = form.kind == BatchForm::None
                          ? value(kProbe)
                          : form.slope * n + form.offset;
    double actual = value(n);
    if (std::isnan(expected) && std::isnan(actual))
      continue;
    // A line of quotients (x / 3) rounds otherwise than the quotient.
    ASSERT_NEAR(actual, expected, 1e-12 * std::max(1.0, std::fabs(expected)))
        << what << " at N = " << n;
  }
}

/// ONNX's binary ops on int64 operands (Div truncates) and on floats.
double evaluateBinary(const std::string &op, double a, double b, bool integer) {
  if (op == "Add")
    return a + b;
  if (op == "Sub")
    return a - b;
  if (op == "Mul")
    return a * b;
  if (op == "Div")
    return integer ? (b == 0 ? 0 : std::trunc(a / b)) : a / b;
  if (op == "Max")
    return std::max(a, b);
  if (op == "Min")
    return std::min(a, b);
  if (op == "Mod")
    return b == 0 ? 0 : a - b * std::floor(a / b);
  if (op == "Equal")
    return a == b;
  if (op == "Less")
    return a < b;
  if (op == "LessOrEqual")
    return a <= b;
  if (op == "Greater")
    return a > b;
  return a >= b;
}

TEST(BatchFormTest, BinaryFormsHoldAtEveryBatch) {
  int counts[3] = {0, 0, 0};
  std::vector<Operand> operands = getOperands();
  for (const char *op :
       {"Add", "Sub", "Mul", "Div", "Max", "Min", "Mod", "Equal", "Less",
        "LessOrEqual", "Greater", "GreaterOrEqual"})
    for (bool integer : {true, false})
      for (const Operand &x : operands)
        for (const Operand &y : operands) {
          if (x.form.kind == BatchForm::None && y.form.kind == BatchForm::None)
            continue;
          BatchForm form = combineForms(op, x.form, x.at(kProbe), y.form,
                                        y.at(kProbe), integer);
          std::string what = std::string(op) + (integer ? " (int)" : "");
          expectFormHolds(
              form,
              [&](int64_t n) {
                return evaluateBinary(op, x.at(n), y.at(n), integer);
              },
              what, counts);
          if (testing::Test::HasFatalFailure())
            return;
        }
  // Each kind is reached: the rules are not all Opaque.
  EXPECT_GT(counts[BatchForm::None], 100);
  EXPECT_GT(counts[BatchForm::Affine], 1000);
  EXPECT_GT(counts[BatchForm::Opaque], 100);
}

TEST(BatchFormTest, UnaryFormsHoldAtEveryBatch) {
  int counts[3] = {0, 0, 0};
  std::vector<Operand> operands = getOperands();
  // Lines of halves too: Floor and a cast to an integer must not keep them.
  for (double slope : {-0.5, 0.5, 1.5})
    operands.push_back({BatchForm::affine(slope, 0.5)});
  std::pair<const char *, double (*)(double)> ops[] = {
      {"Neg", [](double v) { return -v; }},
      {"Floor", [](double v) { return std::floor(v); }},
      {"Ceil", [](double v) { return std::ceil(v); }},
      {"Abs", [](double v) { return std::fabs(v); }},
      {"Sqrt", [](double v) { return std::sqrt(v); }},
      {"CastToInteger", [](double v) { return std::trunc(v); }},
      {"CastToFloat", [](double v) { return v; }},
      {"CastToBool", [](double v) { return v != 0 ? 1.0 : 0.0; }}};
  for (auto [op, fn] : ops)
    for (const Operand &x : operands) {
      if (x.form.kind == BatchForm::None)
        continue;
      expectFormHolds(
          applyUnaryForm(op, x.form), [&](int64_t n) { return fn(x.at(n)); },
          op, counts);
      if (testing::Test::HasFatalFailure())
        return;
    }
  EXPECT_GT(counts[BatchForm::Affine], 50);
  EXPECT_GT(counts[BatchForm::Opaque], 10);
}

} // namespace
