//===- NPUDevOps.td - npudev ops ---------------------------*- tablegen -*-===//

#ifndef NPUDEV_OPS_TD
#define NPUDEV_OPS_TD

include "npudev/NPUDevBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class NPUDev_Op<string mnemonic, list<Trait> traits = []>
    : Op<NPUDev_Dialect, mnemonic, traits>;

def NPUDev_ScalarType : AnyTypeOf<[AnyFloat, AnySignlessInteger, Index]>;

//===----------------------------------------------------------------------===//
// Kernels and tasks
//===----------------------------------------------------------------------===//

def NPUDev_LaunchOp : NPUDev_Op<"launch", [
    SingleBlockImplicitTerminator<"::npu::dev::EndOp">,
    RecursiveMemoryEffects]> {
  let summary = "runs its body once per task, tasks spread over the cores";
  let description = [{
    `tasks` tasks run the body; inside, `npudev.task_id` is the task's index
    in `[0, tasks)` and `npudev.task_dim` is `tasks`. `task_type` says how
    tasks occupy the device: `block` one core, `unionN` N clusters at once
    (the simulator gives consecutive tasks to consecutive cores). A launch
    has at most 2^20 (1,048,576) tasks: more is a bound on the work an
    input can ask for, not a device limit, and the verifier rejects it.

    `on` says which cores run the tasks: `unified` (the default) cores
    with both a vector and a matrix unit, as every core of mlu590; `vector`
    or `cube` cores, which have only the named unit and its on-chip memory.
    On a device whose cores are split by kind (ascend910b: AIV and AIC) a
    launch must name the kind. A vector launch may not use the matrix unit
    or cube memory, a cube launch neither the vector unit nor vector
    memory; DMA and scalar code run on every kind.

    The verifier adds up the on-chip buffers live at once in each memory
    space (an `npudev.alloc` lives to the end of its block) and rejects a
    kernel that needs more than the device of the enclosing module
    (`npudev.device`, default `mlu590`) has.
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntPositive]>:$tasks,
      DefaultValuedAttr<NPUDev_TaskTypeAttr,
                        "::npu::dev::TaskType::union1">:$task_type,
      DefaultValuedAttr<NPUDev_CoreKindAttr,
                        "::npu::dev::CoreKind::unified">:$cores);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "`tasks` `(` $tasks `)` (`on` `` $cores^)? "
                       "attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "int64_t":$tasks,
      CArg<"::npu::dev::CoreKind", "::npu::dev::CoreKind::unified">:$cores)>];
}

def NPUDev_MixedLaunchOp : NPUDev_Op<"mixed_launch", [
    SingleBlockImplicitTerminator<"::npu::dev::EndOp">,
    RecursiveMemoryEffects]> {
  let summary = "cube tasks and vector tasks that run at once and signal "
                "each other";
  let description = [{
    `cube_tasks` tasks run the `cube` region on cube cores and
    `vector_tasks` tasks the `vector` region on vector cores, all at the
    same time (on a device with unified cores, each task takes its own
    core). In each region `npudev.task_id` counts that region's tasks. The
    tasks exchange data through global memory and order their accesses
    with cross-core flags (`npudev.set_flag`, `npudev.wait_flag`), as
    Ascend's AIC and AIV cores do: a cube task computes a tile into a
    global workspace and sets a flag of the vector task that consumes it.

    Every task must have a core of its kind to itself, since a task may
    wait for any other: the verifier checks the counts against the
    device. Each region is checked as a launch of its kind, and its
    on-chip buffers against that kind's capacity.
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntPositive]>:$cube_tasks,
      ConfinedAttr<I64Attr, [IntPositive]>:$vector_tasks);
  let regions = (region SizedRegion<1>:$cube, SizedRegion<1>:$vector);
  let assemblyFormat = "`cube` `(` $cube_tasks `)` $cube `vector` `(` "
                       "$vector_tasks `)` $vector attr-dict";
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "int64_t":$cubeTasks,
                                 "int64_t":$vectorTasks)>];
  let extraClassDeclaration = [{
    /// The region run by `kind` tasks (cube or vector) and their count.
    ::mlir::Region &getRegion(::npu::dev::CoreKind kind) {
      return kind == ::npu::dev::CoreKind::cube ? getCube() : getVector();
    }
    int64_t getTasks(::npu::dev::CoreKind kind) {
      return kind == ::npu::dev::CoreKind::cube ? getCubeTasks()
                                                 : getVectorTasks();
    }
  }];
}

def NPUDev_SetFlagOp : NPUDev_Op<"set_flag"> {
  let summary = "signals a cross-core flag of another task";
  let description = [{
    Adds one to flag `flag` (0 to 15) of task `task` of kind `to` in the
    enclosing `npudev.mixed_launch`. The flag is set once everything the
    setting core issued before it has completed (its DMA writes are in
    global memory), so data written before `set_flag` is visible to the
    task that waits for it. A flag counts up to 15 pending signals; one
    more is an error, as on the hardware.
  }];
  let arguments = (ins
      ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<15>]>:$flag,
      NPUDev_CoreKindAttr:$to, Index:$task);
  let assemblyFormat = "$flag `for` $to $task attr-dict";
  let hasVerifier = 1;
}

def NPUDev_WaitFlagOp : NPUDev_Op<"wait_flag"> {
  let summary = "waits until a cross-core flag of this task is set";
  let description = [{
    Waits until flag `flag` of the running task has a pending signal and
    takes it. If every task of the launch that has not finished waits, no
    flag can be set any more: both executors fail with a deadlock error.
  }];
  let arguments = (ins
      ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<15>]>:$flag);
  let assemblyFormat = "$flag attr-dict";
  let hasVerifier = 1;
}

def NPUDev_AsyncOp : NPUDev_Op<"async", [
    SingleBlockImplicitTerminator<"::npu::dev::EndOp">,
    RecursiveMemoryEffects]> {
  let summary = "issues its body to the core's units without waiting";
  let description = [{
    The ops of the body are issued in order, each after the one before it
    and once its unit is free, while the task goes on; the token completes
    when the last of them does and `npudev.wait` waits for it. So a core
    computes a matmul on its cube unit while its vector unit works on the
    previous tile (double buffering), and both show in the timing. The
    results are those of running the body where it stands: the task must
    not touch what the body writes, nor write what it reads, before the
    wait.
  }];
  let results = (outs NPUDev_TokenType:$token);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins)>];
}

def NPUDev_EndOp : NPUDev_Op<"end", [Terminator, Pure,
    ParentOneOf<["::npu::dev::LaunchOp", "::npu::dev::MixedLaunchOp",
                 "::npu::dev::AsyncOp"]>]> {
  let summary = "end of a launch, mixed launch or async body";
  let assemblyFormat = "attr-dict";
}

def NPUDev_TaskIdOp : NPUDev_Op<"task_id", [Pure]> {
  let summary = "index of the running task";
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def NPUDev_TaskDimOp : NPUDev_Op<"task_dim", [Pure]> {
  let summary = "number of tasks of the enclosing launch";
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

def NPUDev_AllocOp : NPUDev_Op<"alloc", [
    MemoryEffects<[MemAlloc<DefaultResource>]>]> {
  let summary = "static on-chip buffer, live to the end of its block";
  let results = (outs NPUDev_OnChipMemRef:$buffer);
  let assemblyFormat = "attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def NPUDev_DmaOp : NPUDev_Op<"dma"> {
  let summary = "synchronous copy between memory spaces";
  let description = [{
    Copies `source` into `target` (same shape and element type) on the
    core's DMA engine and waits for it. At least one side is on chip.

    `private_window` is its producer's promise that no other iteration of
    the loops around the copy writes what it reads (a CSR row's run of
    values, read and written back by that row alone): npu-pipeline-dma-loops
    may then read it ahead of those iterations.
  }];
  let arguments = (ins Arg<NPUDev_AnyMemRef, "", [MemRead]>:$source,
                       Arg<NPUDev_AnyMemRef, "", [MemWrite]>:$target,
                       UnitAttr:$private_window);
  let assemblyFormat =
      "$source `,` $target attr-dict `:` type($source) `to` type($target)";
  let hasVerifier = 1;
}

def NPUDev_DmaStartOp : NPUDev_Op<"dma_start"> {
  let summary = "asynchronous copy between memory spaces";
  let description = [{
    Starts the copy of `npudev.dma` and returns at once; the copy runs on the
    DMA engine until `npudev.wait` on the token. Neither buffer may be used
    before the wait.

    `consumes_source` is its producer's promise that the copy is the last
    read of the on-chip `source`'s values: nothing reads them again before
    writing them. The simulator holds the kernel to it (the values are
    gone, and a later read fails as a read of unwritten memory); the JIT
    may then let the op that computed them write `target` directly.
  }];
  let arguments = (ins Arg<NPUDev_AnyMemRef, "", [MemRead]>:$source,
                       Arg<NPUDev_AnyMemRef, "", [MemWrite]>:$target,
                       UnitAttr:$consumes_source);
  let results = (outs NPUDev_TokenType:$token);
  let assemblyFormat =
      "$source `,` $target attr-dict `:` type($source) `to` type($target)";
  let hasVerifier = 1;
}

def NPUDev_WaitOp : NPUDev_Op<"wait"> {
  let summary = "waits for an asynchronous DMA or npudev.async region";
  let description = [{
    A core's DMAs complete in the order they were started, so waiting for
    one also waits for every DMA started before it.
  }];
  let arguments = (ins NPUDev_TokenType:$token);
  let assemblyFormat = "$token attr-dict";
}

def NPUDev_WaitAllOp : NPUDev_Op<"wait_all"> {
  let summary = "waits for every DMA the task has started";
  let description = [{
    For loops that start a DMA per iteration, where carrying the last token
    out of the loop would be clumsy.
  }];
  let assemblyFormat = "attr-dict";
}

def NPUDev_DmaGatherOp : NPUDev_Op<"dma_gather"> {
  let summary = "synchronous copy of indexed rows into an on-chip buffer";
  let description = [{
    `target[i, ...] = source[indices[i], ...]` for each i in index order; a
    negative index fills row i with zeros (unused entries of a pair table
    are -1). `indices` is a rank-1 integer buffer on chip (in cube memory
    on a cube core, which has no vector memory). One descriptor per row on
    the DMA engine; an index at or past the row count of `source` is an
    error.
  }];
  let arguments = (ins Arg<NPUDev_AnyMemRef, "", [MemRead]>:$source,
                       Arg<NPUDev_OnChipMemRef, "", [MemRead]>:$indices,
                       Arg<NPUDev_OnChipMemRef, "", [MemWrite]>:$target);
  let assemblyFormat = "$source `[` $indices `]` `,` $target attr-dict `:` "
                       "type($source) `,` type($indices) `,` type($target)";
  let hasVerifier = 1;
}

def NPUDev_DmaScatterOp : NPUDev_Op<"dma_scatter"> {
  let summary = "synchronous copy of on-chip rows to indexed rows";
  let description = [{
    `target[indices[i], ...] = source[i, ...]` for each i in index order
    (with `add`, `+=`, one rounding per addition), so repeated indices
    resolve the same way in every executor: the last row wins, or the sum
    runs in index order. A negative index skips its row.
  }];
  let arguments = (ins Arg<NPUDev_OnChipMemRef, "", [MemRead]>:$source,
                       Arg<NPUDev_OnChipMemRef, "", [MemRead]>:$indices,
                       Arg<NPUDev_AnyMemRef, "", [MemRead, MemWrite]>:$target,
                       UnitAttr:$add);
  let assemblyFormat = "$source `,` $target `[` $indices `]` attr-dict `:` "
                       "type($source) `,` type($indices) `,` type($target)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Vector unit: one instruction over whole vector-space buffers
//===----------------------------------------------------------------------===//

class NPUDev_VectorOp<string mnemonic, list<Trait> traits = []>
    : NPUDev_Op<mnemonic, !listconcat(traits, [NPUDev_VectorUnit])> {
  let hasVerifier = 1;
}

def NPUDev_VBinaryOp : NPUDev_VectorOp<"vbinary"> {
  let summary = "out = lhs (op) rhs, elementwise";
  let arguments = (ins NPUDev_BinaryKindAttr:$kind,
      Arg<NPUDev_VectorMemRef, "", [MemRead]>:$lhs,
      Arg<NPUDev_VectorMemRef, "", [MemRead]>:$rhs,
      Arg<NPUDev_VectorMemRef, "", [MemWrite]>:$out);
  let assemblyFormat = "$kind $lhs `,` $rhs `,` $out attr-dict `:` "
                       "type($lhs) `,` type($rhs) `,` type($out)";
}

def NPUDev_VBinaryScalarOp : NPUDev_VectorOp<"vbinary_scalar"> {
  let summary = "out = in (op) scalar, elementwise";
  let arguments = (ins NPUDev_BinaryKindAttr:$kind,
      Arg<NPUDev_VectorMemRef, "", [MemRead]>:$input,
      NPUDev_ScalarType:$scalar,
      Arg<NPUDev_VectorMemRef, "", [MemWrite]>:$out);
  let assemblyFormat = "$kind $input `,` $scalar `,` $out attr-dict `:` "
                       "type($input) `,` type($scalar) `,` type($out)";
}

def NPUDev_VBinaryBroadcastOp : NPUDev_VectorOp<"vbinary_broadcast"> {
  let summary = "out = lhs (op) rhs, rhs spread along one dimension";
  let description = [{
    `rhs` is rank-1 with one element per index of `lhs` along `dimension`:
    `out[..., i, ...] = lhs[..., i, ...] (op) rhs[i]`. For a matrix,
    `along 0` gives each row its own operand (a column vector: subtracting
    each row's maximum in a softmax), `along 1` each column its own (a row
    vector: adding a bias).
  }];
  let arguments = (ins NPUDev_BinaryKindAttr:$kind,
      Arg<NPUDev_VectorMemRef, "", [MemRead]>:$lhs,
      Arg<NPUDev_VectorMemRef, "", [MemRead]>:$rhs,
      Arg<NPUDev_VectorMemRef, "", [MemWrite]>:$out,
      ConfinedAttr<I64Attr, [IntNonNegative]>:$dimension);
  let assemblyFormat = "$kind $lhs `,` $rhs `,` $out `along` $dimension "
                       "attr-dict `:` type($lhs) `,` type($rhs) `,` "
                       "type($out)";
}

def NPUDev_VUnaryOp : NPUDev_VectorOp<"vunary"> {
  let summary = "out = f(in), elementwise";
  let arguments = (ins NPUDev_UnaryKindAttr:$kind,
      Arg<NPUDev_VectorMemRef, "", [MemRead]>:$input,
      Arg<NPUDev_VectorMemRef, "", [MemWrite]>:$out);
  let assemblyFormat =
      "$kind $input `,` $out attr-dict `:` type($input) `,` type($out)";
}

def NPUDev_VCompareOp : NPUDev_VectorOp<"vcmp"> {
  let summary = "out = (lhs pred rhs) ? 1 : 0, elementwise";
  let description = [{
    The result is 1 or 0 in `out`'s element type, which may differ from the
    operands' (a mask).
  }];
  let arguments = (ins NPUDev_ComparePredicateAttr:$predicate,
      Arg<NPUDev_VectorMemRef, "", [MemRead]>:$lhs,
      Arg<NPUDev_VectorMemRef, "", [MemRead]>:$rhs,
      Arg<NPUDev_VectorMemRef, "", [MemWrite]>:$out);
  let assemblyFormat = "$predicate $lhs `,` $rhs `,` $out attr-dict `:` "
                       "type($lhs) `,` type($rhs) `,` type($out)";
}

def NPUDev_VCompareScalarOp : NPUDev_VectorOp<"vcmp_scalar"> {
  let summary = "out = (in pred scalar) ? 1 : 0, elementwise";
  let arguments = (ins NPUDev_ComparePredicateAttr:$predicate,
      Arg<NPUDev_VectorMemRef, "", [MemRead]>:$input,
      NPUDev_ScalarType:$scalar,
      Arg<NPUDev_VectorMemRef, "", [MemWrite]>:$out);
  let assemblyFormat = "$predicate $input `,` $scalar `,` $out attr-dict `:` "
                       "type($input) `,` type($scalar) `,` type($out)";
}

def NPUDev_VSelectOp : NPUDev_VectorOp<"vselect"> {
  let summary = "out = mask != 0 ? on_true : on_false, elementwise";
  let arguments = (ins Arg<NPUDev_VectorMemRef, "", [MemRead]>:$mask,
      Arg<NPUDev_VectorMemRef, "", [MemRead]>:$on_true,
      Arg<NPUDev_VectorMemRef, "", [MemRead]>:$on_false,
      Arg<NPUDev_VectorMemRef, "", [MemWrite]>:$out);
  let assemblyFormat = "$mask `,` $on_true `,` $on_false `,` $out attr-dict "
                       "`:` type($mask) `,` type($on_true) `,` "
                       "type($on_false) `,` type($out)";
}

def NPUDev_VReduceOp : NPUDev_VectorOp<"vreduce"> {
  let summary = "reduction along the innermost dimension";
  let description = [{
    `out` has `input`'s shape without its innermost dimension; a rank-1
    input reduces into a one-element `out`. Elements combine in order;
    f16 and bf16 accumulate in f32 and round once into `out`.
  }];
  let arguments = (ins NPUDev_ReduceKindAttr:$kind,
      Arg<NPUDev_VectorMemRef, "", [MemRead]>:$input,
      Arg<NPUDev_VectorMemRef, "", [MemWrite]>:$out);
  let assemblyFormat =
      "$kind $input `,` $out attr-dict `:` type($input) `,` type($out)";
}

def NPUDev_VCastOp : NPUDev_VectorOp<"vcast"> {
  let summary = "element type conversion";
  let description = [{
    Float to integer truncates toward zero; integer to float rounds to
    nearest; integers are signed.
  }];
  let arguments = (ins Arg<NPUDev_VectorMemRef, "", [MemRead]>:$input,
      Arg<NPUDev_VectorMemRef, "", [MemWrite]>:$out);
  let assemblyFormat =
      "$input `,` $out attr-dict `:` type($input) `,` type($out)";
}

def NPUDev_VFillOp : NPUDev_VectorOp<"vfill"> {
  let summary = "out = value everywhere";
  let arguments = (ins NPUDev_ScalarType:$value,
      Arg<NPUDev_VectorMemRef, "", [MemWrite]>:$out);
  let assemblyFormat =
      "$value `,` $out attr-dict `:` type($value) `,` type($out)";
}

def NPUDev_VTransposeOp : NPUDev_VectorOp<"vtranspose"> {
  let summary = "2-D transpose: out[j, i] = in[i, j]";
  let arguments = (ins Arg<NPUDev_VectorMemRef, "", [MemRead]>:$input,
      Arg<NPUDev_VectorMemRef, "", [MemWrite]>:$out);
  let assemblyFormat =
      "$input `,` $out attr-dict `:` type($input) `,` type($out)";
}

def NPUDev_VGatherOp : NPUDev_VectorOp<"vgather"> {
  let summary = "out[i, ...] = source[indices[i], ...]";
  let arguments = (ins Arg<NPUDev_VectorMemRef, "", [MemRead]>:$source,
      Arg<NPUDev_VectorMemRef, "", [MemRead]>:$indices,
      Arg<NPUDev_VectorMemRef, "", [MemWrite]>:$out);
  let assemblyFormat = "$source `[` $indices `]` `,` $out attr-dict `:` "
                       "type($source) `,` type($indices) `,` type($out)";
}

def NPUDev_VScatterOp : NPUDev_VectorOp<"vscatter"> {
  let summary = "out[indices[i], ...] = source[i, ...]";
  let arguments = (ins Arg<NPUDev_VectorMemRef, "", [MemRead]>:$source,
      Arg<NPUDev_VectorMemRef, "", [MemRead]>:$indices,
      Arg<NPUDev_VectorMemRef, "", [MemWrite]>:$out);
  let assemblyFormat = "$source `,` $out `[` $indices `]` attr-dict `:` "
                       "type($source) `,` type($indices) `,` type($out)";
}

def NPUDev_VCumsumOp : NPUDev_VectorOp<"vcumsum"> {
  let summary = "inclusive prefix sum along the innermost dimension";
  let description = [{
    f16 and bf16 accumulate in f32; each prefix is rounded into `out`.
  }];
  let arguments = (ins Arg<NPUDev_VectorMemRef, "", [MemRead]>:$input,
      Arg<NPUDev_VectorMemRef, "", [MemWrite]>:$out);
  let assemblyFormat =
      "$input `,` $out attr-dict `:` type($input) `,` type($out)";
}

def NPUDev_VSortOp : NPUDev_VectorOp<"vsort", [AttrSizedOperandSegments]> {
  let summary = "ascending sort of each innermost row, optionally with values";
  let description = [{
    Sorts each innermost row of `input` into `out`: ascending, NaNs last,
    stable. With `values(%v, %out_v)` (rank-1 buffers, i32 or i64 values
    of the same length) it is a key-value sort: `out_v` receives `v`
    permuted as the keys are, equal keys keeping their input order (the
    payload of a sort is usually a row number).
  }];
  let arguments = (ins Arg<NPUDev_VectorMemRef, "", [MemRead]>:$input,
      Arg<NPUDev_VectorMemRef, "", [MemWrite]>:$out,
      Arg<Optional<NPUDev_VectorMemRef>, "", [MemRead]>:$values,
      Arg<Optional<NPUDev_VectorMemRef>, "", [MemWrite]>:$out_values);
  let assemblyFormat =
      "$input `,` $out (`values` `(` $values^ `,` $out_values `)`)? attr-dict "
      "`:` type($input) `,` type($out) "
      "(`,` type($values)^ `,` type($out_values))?";
}

def NPUDev_VMergeOp : NPUDev_VectorOp<"vmerge", [AttrSizedOperandSegments]> {
  let summary = "merges two sorted runs, optionally with values";
  let description = [{
    The two-finger merge of rank-1 runs `a` and `b` into `out` (length
    |a| + |b|): the next element comes from `b` only when it sorts strictly
    before the next of `a` (ascending, NaNs last), so equal keys keep `a`
    first and a merge of sorted runs is stable. With `values(%va, %vb,
    %out_values)` (i32 or i64) the values move with their keys. Tile sorts
    followed by merges sort arrays larger than one on-chip buffer.
  }];
  let arguments = (ins Arg<NPUDev_VectorMemRef, "", [MemRead]>:$a,
      Arg<NPUDev_VectorMemRef, "", [MemRead]>:$b,
      Arg<NPUDev_VectorMemRef, "", [MemWrite]>:$out,
      Arg<Optional<NPUDev_VectorMemRef>, "", [MemRead]>:$a_values,
      Arg<Optional<NPUDev_VectorMemRef>, "", [MemRead]>:$b_values,
      Arg<Optional<NPUDev_VectorMemRef>, "", [MemWrite]>:$out_values);
  let assemblyFormat =
      "$a `,` $b `,` $out (`values` `(` $a_values^ `,` $b_values `,` "
      "$out_values `)`)? attr-dict `:` type($a) `,` type($b) `,` type($out) "
      "(`,` type($a_values)^ `,` type($b_values) `,` type($out_values))?";
}

def NPUDev_VUniqueOp : NPUDev_VectorOp<"vunique"> {
  let summary = "distinct values, ascending, and their count";
  let description = [{
    Writes the distinct values of the rank-1 `input` in ascending order to
    the front of `out` (same size) and returns how many there are; the rest
    of `out` is left unchanged.
  }];
  let arguments = (ins Arg<NPUDev_VectorMemRef, "", [MemRead]>:$input,
      Arg<NPUDev_VectorMemRef, "", [MemWrite]>:$out);
  let results = (outs Index:$count);
  let assemblyFormat =
      "$input `,` $out attr-dict `:` type($input) `,` type($out)";
}

def NPUDev_IotaOp : NPUDev_Op<"iota", [NPUDev_VectorUnit,
    PredOpTrait<"dimension is below the rank of out",
                CPred<"static_cast<int64_t>($dimension) < "
                      "::llvm::cast<::mlir::MemRefType>($out.getType())"
                      ".getRank()">>]> {
  let summary = "out[..., i, ...] = start + i along one dimension";
  let description = [{
    Writes each element of `out` with `start` plus its index along
    `dimension` (default 0), converted to the element type (integers wrap,
    floats round to nearest). Row and column numbers for masks (causal
    attention compares an iota along each dimension).
  }];
  let arguments = (ins Index:$start,
      Arg<NPUDev_VectorMemRef, "", [MemWrite]>:$out,
      DefaultValuedAttr<ConfinedAttr<I64Attr, [IntNonNegative]>, "0">:$dimension);
  let assemblyFormat = "$start `,` $out attr-dict `:` type($out)";
}

//===----------------------------------------------------------------------===//
// Input checks
//===----------------------------------------------------------------------===//

/// The kernel's error status (npu::dev::KernelStatusResource).
def NPUDev_KernelStatus : Resource<"::npu::dev::KernelStatusResource">;

def NPUDev_ReportRowsOp : NPUDev_Op<"report_rows", [NPUDev_VectorUnit,
    MemoryEffects<[MemWrite<NPUDev_KernelStatus>]>]> {
  let summary = "fails the kernel on rows of its input that break a rule";
  let description = [{
    `rows` (a rank-1 integer buffer) holds the numbers of input rows that
    break a rule and negative values elsewhere. When any entry is
    non-negative the kernel fails as the enclosing launch ends: later
    launches do not run, and the error is `message` with `{row}` replaced
    by the smallest such row of every task. If several report ops fire in
    one launch, the first in program order gives the error. So both
    executors name the same row whatever the task count and thread count:
    kernels check their input on the device instead of computing a silent
    wrong answer. The op writes the kernel's status (its declared effect),
    so no pass may erase, merge or reorder it across other effects.
  }];
  let arguments = (ins Arg<NPUDev_VectorMemRef, "", [MemRead]>:$rows,
                       StrAttr:$message);
  let assemblyFormat = "$rows `,` $message attr-dict `:` type($rows)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Matrix unit
//===----------------------------------------------------------------------===//

def NPUDev_MatmulOp : NPUDev_Op<"matmul", [NPUDev_CubeUnit,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "c (+)= a x b on the matrix unit";
  let description = [{
    `a` is [M, K], `b` is [K, N], `c` is [M, N], all on chip; with
    `transpose_a` `a` is [K, M] and multiplies as its transpose, with
    `transpose_b` `b` is [N, K] (attention's Q K^T reads K as it is
    stored). With `accumulate` the product is added to `c`. Inputs f16, bf16, f32 or i8;
    the accumulator f32 (float inputs) or i32 (i8 inputs). Each c[i, j]
    accumulates its K products in k order, one fused multiply-add each
    (float inputs are widened to f32 first), so every executor gives the
    same bits. `c` is read only with `accumulate`: without it the op
    only writes `c`, so a tile loop that computes into `c` and stores it
    carries nothing in it from one iteration to the next.
  }];
  let arguments = (ins NPUDev_OnChipMemRef:$a, NPUDev_OnChipMemRef:$b,
      NPUDev_OnChipMemRef:$c,
      UnitAttr:$accumulate, UnitAttr:$transpose_a, UnitAttr:$transpose_b);
  let assemblyFormat = "$a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) "
                       "`,` type($c)";
  let hasVerifier = 1;
}

#endif // NPUDEV_OPS_TD
