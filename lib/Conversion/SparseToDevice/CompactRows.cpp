//===- CompactRows.cpp - a row loop run at its non-empty rows only --------===//
//
// Used by npu-sparse-tile-positions. A row loop whose body does nothing
// for a row with an empty run still spends a pipelined iteration on it
// (its bookkeeping, copies of nothing): on R-MAT rows, 44% are empty. The
// loop i in [lb, ub) becomes blocks of B rows:
//
//   for r0 in [lb, ub) step B:
//     n = 0
//     for q in [0, min(B, ub - r0)):   // i = r0 + q; a few scalar cycles
//       rows[n] = i; read_j[n] = <the body's read j at i>
//       n += (the run length at i > 0)
//     for p in [0, n):                 // the old body at i = rows[p],
//       ...                            // its reads from read_j[p]
//
// The listing loop reads indptr at r0 + q and r0 + q + 1, runs that
// npu-sparse-stage-runs stages; the body loop takes its row and reads from
// lists it never writes, so npu-pipeline-dma-loops may issue its copies
// ahead. The listed rows run in their order and the skipped ones did
// nothing, so the bytes do not change. O(ops in the body).
//
//===----------------------------------------------------------------------===//

#include "CompactRows.h"
#include "TileSupport.h"
#include "npu/Dialect/NPUDev/NPUDevOps.h"
#include "npu/Dialect/NPUDev/Semantics.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace npu;
using namespace npu::sparse;

namespace {

/// The ops of `rows`' body that `values` are computed from, in body order.
/// They are pure ops and reads of read-only memory: the body's other ops
/// (copies, vector work, loops) give no value that an index or a run's
/// bounds could be computed from (matchIdleWhenEmptyRows' check, kept by
/// the rewrite since).
SmallVector<Operation *> getSlice(scf::ForOp rows, ArrayRef<Value> values) {
  DenseSet<Operation *> slice;
  SmallVector<Value> work(values.begin(), values.end());
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != rows.getBody() || !slice.insert(def).second)
      continue;
    llvm::append_range(work, def->getOperands());
  }
  SmallVector<Operation *> ordered;
  for (Operation &op : *rows.getBody())
    if (slice.contains(&op))
      ordered.push_back(&op);
  return ordered;
}

/// `index` without additions of 0 (npu-sparse-lower-iterations' flat
/// prefix of a parentless axis is 0 + i).
Value stripAddedZeros(Value index) {
  while (auto add = index.getDefiningOp<arith::AddIOp>()) {
    if (isConstantIntValue(add.getLhs(), 0))
      index = add.getRhs();
    else if (isConstantIntValue(add.getRhs(), 0))
      index = add.getLhs();
    else
      break;
  }
  return index;
}

/// The body's reads of read-only memory, each element's second and later
/// reads replaced by its first (the row bounds are read by the loop over
/// the run and again for its start).
SmallVector<memref::LoadOp>
mergeDuplicateReads(const IdleWhenEmptyRows &match) {
  scf::ForOp rows = match.rows;
  SmallVector<memref::LoadOp> reads;
  for (auto load :
       llvm::make_early_inc_range(rows.getBody()->getOps<memref::LoadOp>())) {
    if (!match.readOnly.contains(load.getMemRef()))
      continue;
    auto same = llvm::find_if(reads, [&](memref::LoadOp other) {
      return other.getMemRef() == load.getMemRef() &&
             llvm::equal(llvm::map_range(other.getIndices(), stripAddedZeros),
                         llvm::map_range(load.getIndices(), stripAddedZeros));
    });
    if (same == reads.end()) {
      reads.push_back(load);
      continue;
    }
    load.replaceAllUsesWith(same->getResult());
    load.erase();
  }
  return reads;
}

} // namespace

std::optional<IdleWhenEmptyRows>
npu::sparse::matchIdleWhenEmptyRows(scf::ForOp runLoop) {
  auto rows = dyn_cast<scf::ForOp>(runLoop->getParentOp());
  std::optional<int64_t> step =
      rows ? getConstantIntValue(rows.getStep()) : std::nullopt;
  if (!step || *step != 1 || !rows.getInitArgs().empty() ||
      !rows->getParentOfType<dev::LaunchOp>())
    return std::nullopt;
  // What the run's loop does runs only for a non-empty run; the rest of
  // the body must only compute and read memory the row loop never writes.
  DenseSet<Value> written = getWrittenMemRefs(rows.getRegion());
  IdleWhenEmptyRows match{rows, {}};
  for (Operation &op : rows.getBody()->without_terminator()) {
    if (&op == runLoop.getOperation() || isPure(&op))
      continue;
    auto load = dyn_cast<memref::LoadOp>(op);
    if (!load || !isGlobal(load.getMemRef()) ||
        written.contains(dev::getViewRoot(load.getMemRef())))
      return std::nullopt;
    match.readOnly.insert(load.getMemRef());
  }
  return match;
}

void npu::sparse::compactRows(const IdleWhenEmptyRows &match, Value runLength,
                              int64_t block) {
  scf::ForOp rows = match.rows;
  SmallVector<memref::LoadOp> reads = mergeDuplicateReads(match);
  SmallVector<Value> listed{runLength};
  for (memref::LoadOp load : reads)
    listed.push_back(load.getResult());
  SmallVector<Operation *> slice = getSlice(rows, listed);

  OpBuilder b(rows);
  Location loc = rows.getLoc();
  KernelBuilder k(b, loc);
  Value rowList = allocTaskTile(b, k, rows, {block}, b.getI32Type());
  SmallVector<Value> readLists;
  for (memref::LoadOp load : reads)
    readLists.push_back(allocTaskTile(b, k, rows, {block}, load.getType()));

  Value step = k.index(block);
  auto blocks = b.create<scf::ForOp>(loc, rows.getLowerBound(),
                                     rows.getUpperBound(), step);
  b.setInsertionPointToStart(blocks.getBody());
  Value first = blocks.getInductionVar();
  Value size = k.min(step, k.sub(rows.getUpperBound(), first));
  // The listing loop: the slice at each row, its row and reads stored at
  // the count so far, which only a non-empty run advances.
  Value zero = k.index(0), one = k.index(1);
  Value count = k.forLoop(zero, size, one, zero, [&](Value q, Value n) {
    IRMapping map;
    map.map(rows.getInductionVar(), k.add(first, q));
    for (Operation *op : slice)
      b.clone(*op, map);
    Value row = b.create<arith::IndexCastOp>(
        loc, b.getI32Type(), map.lookup(rows.getInductionVar()));
    k.store(row, rowList, n);
    for (auto [load, list] : llvm::zip(reads, readLists))
      k.store(map.lookup(load.getResult()), list, n);
    Value nonEmpty = k.lt(zero, map.lookupOrDefault(runLength));
    return k.select(nonEmpty, k.add(n, one), n);
  });
  // The old body at the listed rows.
  auto listedRows = b.create<scf::ForOp>(loc, zero, count, one);
  Block *body = listedRows.getBody();
  body->getOperations().splice(body->begin(), rows.getBody()->getOperations(),
                               rows.getBody()->begin(),
                               std::prev(rows.getBody()->end()));
  b.setInsertionPointToStart(body);
  Value p = listedRows.getInductionVar();
  rows.getInductionVar().replaceAllUsesWith(k.toIndex(k.load(rowList, p)));
  for (auto [load, list] : llvm::zip(reads, readLists)) {
    b.setInsertionPoint(load);
    load.replaceAllUsesWith(k.load(list, p));
    load.erase();
  }
  rows.erase();
}
