//===- MapBatch.cpp - npu.map_batch ---------------------------------------===//
//
// The verifier of npu.map_batch: the body's arguments are one row of each
// input, each result holds every sample's yielded rows, and the chunk
// region, if any, is the body at C samples. O(inputs + results).
//
//===----------------------------------------------------------------------===//

#include "OpDiagnostics.h"

#include "npu/Dialect/NPU/NPUOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace npu::graph;
using npu::graph::detail::formatShape;

/// `type` with `rows` in its leading dimension.
static RankedTensorType withLeadingSize(RankedTensorType type, int64_t rows) {
  SmallVector<int64_t> shape(type.getShape());
  shape.front() = rows;
  return RankedTensorType::get(shape, type.getElementType(),
                               type.getEncoding());
}

ValueRange MapBatchOp::getSampleResults() {
  return getSampleBlock().getTerminator()->getOperands();
}

int64_t MapBatchOp::getRowsPerSample(unsigned i) {
  return cast<RankedTensorType>(getSampleResults()[i].getType()).getDimSize(0);
}

int64_t MapBatchOp::getChunkSize() {
  if (getChunk().empty() || getChunk().front().getNumArguments() == 0)
    return 0;
  auto type =
      dyn_cast<RankedTensorType>(getChunk().front().getArgument(0).getType());
  return type && type.getRank() > 0 ? type.getDimSize(0) : 0;
}

/// The chunk region, when there is one, is the body at C samples: C rows
/// of each input, C times the body's rows of each result.
static LogicalResult verifyChunk(MapBatchOp op) {
  Region &chunk = op.getChunk();
  if (chunk.empty())
    return success();
  if (!chunk.hasOneBlock())
    return op.emitOpError("chunk region must have one block");
  Block &block = chunk.front();
  int64_t c = op.getChunkSize();
  if (block.getNumArguments() != op.getInputs().size() ||
      ShapedType::isDynamic(c) || c < 2)
    return op.emitOpError("chunk region takes ")
           << block.getNumArguments() << " arguments; it needs C >= 2 rows "
           << "of each of the " << op.getInputs().size() << " inputs";
  auto expect = [&](StringRef what, unsigned i, Type actual,
                    Type perSample) -> LogicalResult {
    auto sample = cast<RankedTensorType>(perSample);
    int64_t rows;
    if (llvm::MulOverflow(sample.getDimSize(0), c, rows))
      return op.emitOpError("chunk ")
             << what << " #" << i << ": " << c << " samples of the body's "
             << sample << " overflow a size";
    RankedTensorType expected = withLeadingSize(sample, rows);
    if (actual == expected)
      return success();
    return op.emitOpError("chunk ")
           << what << " #" << i << " has type " << actual << "; " << c
           << " samples of the body's " << sample << " make " << expected;
  };
  for (auto [i, arg] : llvm::enumerate(block.getArguments()))
    if (failed(expect("argument", i, arg.getType(),
                      op.getSampleBlock().getArgument(i).getType())))
      return failure();
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield || yield.getValues().size() != op.getNumResults())
    return op.emitOpError("chunk region must yield one value per result");
  for (auto [i, value, sample] :
       llvm::enumerate(yield.getValues(), op.getSampleResults()))
    if (failed(expect("yield", i, value.getType(), sample.getType())))
      return failure();
  return success();
}

/// The batch the inputs share (dynamic when any is read at run time), or
/// failure after a diagnostic.
static FailureOr<int64_t> verifyInputs(MapBatchOp op) {
  if (op.getInputs().empty())
    return op.emitOpError("needs at least one input: the batch is the "
                          "inputs' leading dimension");
  Block &body = op.getSampleBlock();
  if (body.getNumArguments() != op.getInputs().size())
    return op.emitOpError("body takes ")
           << body.getNumArguments() << " arguments; it needs one per input ("
           << op.getInputs().size() << ")";
  int64_t batch = ShapedType::kDynamic;
  for (auto [i, input] : llvm::enumerate(op.getInputs())) {
    auto type = cast<RankedTensorType>(input.getType());
    if (type.getRank() == 0)
      return op.emitOpError("input #")
             << i << " (" << type << ") has no leading dimension to split "
             << "into samples";
    RankedTensorType sample = withLeadingSize(type, 1);
    if (body.getArgument(i).getType() != sample)
      return op.emitOpError("body argument #")
             << i << " has type " << body.getArgument(i).getType()
             << "; a sample of input #" << i << " (" << type << ") is "
             << sample;
    int64_t rows = type.getDimSize(0);
    if (ShapedType::isDynamic(rows))
      continue;
    if (!ShapedType::isDynamic(batch) && rows != batch)
      return op.emitOpError("input #")
             << i << " has " << rows << " samples, an earlier input " << batch
             << ": the inputs share their batch";
    batch = rows;
  }
  // One input read at run time makes the batch so.
  if (llvm::any_of(op.getInputs(), [](Value v) {
        return cast<RankedTensorType>(v.getType()).isDynamicDim(0);
      }))
    return ShapedType::kDynamic;
  return batch;
}

LogicalResult MapBatchOp::verifyRegions() {
  FailureOr<int64_t> batch = verifyInputs(*this);
  if (failed(batch))
    return failure();
  ValueRange yielded = getSampleResults();
  if (yielded.size() != getNumResults())
    return emitOpError("body yields ")
           << yielded.size() << " values for " << getNumResults() << " results";
  for (auto [i, value, result] : llvm::enumerate(yielded, getResults())) {
    auto sample = cast<RankedTensorType>(value.getType());
    auto type = cast<RankedTensorType>(result.getType());
    if (sample.getRank() == 0)
      return emitOpError("body yields a rank-0 value for result #")
             << i << "; each sample's rows need a leading dimension";
    int64_t rows = sample.getDimSize(0);
    if (ShapedType::isDynamic(rows))
      return emitOpError("body yields ")
             << sample << " for result #" << i
             << ": its rows per sample must be static";
    int64_t total = ShapedType::kDynamic;
    if (!ShapedType::isDynamic(*batch) &&
        llvm::MulOverflow(*batch, rows, total))
      return emitOpError("result #") << i << ": " << *batch << " samples of "
                                     << rows << " rows overflow a size";
    RankedTensorType expected = withLeadingSize(sample, total);
    if (type != expected)
      return emitOpError("result #")
             << i << " has type " << type << "; "
             << (ShapedType::isDynamic(*batch)
                     ? std::string("a batch read at "
                                   "run time")
                     : std::to_string(*batch) + " samples")
             << " of the body's " << sample << " make " << expected;
  }
  return verifyChunk(*this);
}
