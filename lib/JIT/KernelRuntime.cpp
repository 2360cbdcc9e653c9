//===- KernelRuntime.cpp - functions the JIT-compiled kernels call --------===//
//
// npudev.vsort, npudev.vunique and float npudev.matmul lower to calls of
// these (as IREE's ukernels): `_mlir_ciface_npu_rt_{sort,unique,merge}_<type>`
// and `_mlir_ciface_npu_rt_{sort,merge}_kv_<key>_<value>` on
// rank-1 strided memref descriptors with the simulator's ordering, and
// `_mlir_ciface_npu_rt_matmul_{f32,f16,bf16}` (MatmulKernel.cpp, on the
// instruction set the kernel was compiled for); the kernels'
// `malloc` and `free` (memref.alloc and memref.dealloc) are the workspace
// cache's (WorkspaceAllocator.cpp). A mixed launch is `npu_rt_run_mixed`,
// its flags `_mlir_ciface_npu_rt_{set,wait}_flag`: with one thread every
// task a fiber of it, with more every task on a thread of its own
// (ConcurrentTasks), as many running at once as the JIT has threads.
//
//===----------------------------------------------------------------------===//

#include "KernelRuntime.h"
#include "npu/Dialect/NPUDev/NPUDevEnums.h"
#include "npu/JIT/MatmulKernel.h"
#include "npu/JIT/WorkspaceAllocator.h"
#include "npu/Runtime/ConcurrentTasks.h"
#include "npu/Runtime/ElementKind.h"
#include "npu/Runtime/HostMemory.h"
#include "npu/Runtime/RuntimeABI.h"
#include "npu/Support/Ordering.h"

#include "llvm/ExecutionEngine/JITSymbol.h"
#include "llvm/Support/ErrorHandling.h"

#include <cstdint>
#include <cstring>

using namespace npu;

namespace {
/// The descriptor of a rank-1 memref, as the LLVM lowering lays it out.
template <typename T> struct Row {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t size;
  int64_t stride;

  T &at(int64_t i) { return aligned[offset + i * stride]; }
};

/// How the runtime sorts elements stored as T: as themselves, except the
/// 16-bit floats, which are sorted as the doubles they hold and stored back
/// exactly (as the simulator sorts every float).
template <typename T> struct SortKey {
  using type = T;
  static T load(T v) { return v; }
  static T store(T v) { return v; }
};
template <ElementKind Kind> struct SortKey<Float16Bits<Kind>> {
  using type = double;
  static double load(Float16Bits<Kind> v) {
    return loadFloat(reinterpret_cast<const uint8_t *>(&v.bits), Kind);
  }
  static Float16Bits<Kind> store(double v) {
    Float16Bits<Kind> stored;
    storeFloat(reinterpret_cast<uint8_t *>(&stored.bits), Kind, v);
    return stored;
  }
};
template <typename T> using SortKeyType = typename SortKey<T>::type;

template <typename T> std::vector<SortKeyType<T>> read(Row<T> *row) {
  std::vector<SortKeyType<T>> values(row->size);
  for (int64_t i = 0; i < row->size; ++i)
    values[i] = SortKey<T>::load(row->at(i));
  return values;
}

template <typename T>
void write(Row<T> *row, const std::vector<SortKeyType<T>> &values) {
  for (size_t i = 0; i < values.size(); ++i)
    row->at(i) = SortKey<T>::store(values[i]);
}

template <typename T> void sortRow(Row<T> *in, Row<T> *out) {
  std::vector<SortKeyType<T>> values = read(in);
  sortValues(values);
  write(out, values);
}

template <typename K, typename V>
void sortPairsRow(Row<K> *keys, Row<K> *out, Row<V> *values,
                  Row<V> *outValues) {
  std::vector<SortKeyType<K>> k = read(keys);
  std::vector<V> v = read(values);
  sortPairs(k, v);
  write(out, k);
  write(outValues, v);
}

/// Merges runs a and b (and, when `va` is not null, their values).
template <typename K, typename V>
void mergeRows(Row<K> *a, Row<K> *b, Row<K> *out, Row<V> *va, Row<V> *vb,
               Row<V> *vout) {
  std::vector<SortKeyType<K>> ka = read(a), kb = read(b);
  int64_t n = 0;
  mergeRuns(ka, kb, [&](bool fromB, size_t i) {
    out->at(n) = SortKey<K>::store(fromB ? kb[i] : ka[i]);
    if (vout)
      vout->at(n) = fromB ? vb->at(i) : va->at(i);
    ++n;
  });
}

template <typename T> int64_t uniqueRow(Row<T> *in, Row<T> *out) {
  std::vector<SortKeyType<T>> values = read(in);
  uniqueValues(values);
  write(out, values);
  return values.size();
}
} // namespace

#define NPU_RT_FUNCTIONS(SUFFIX, T)                                            \
  extern "C" void _mlir_ciface_npu_rt_sort_##SUFFIX(Row<T> *in, Row<T> *out) { \
    sortRow(in, out);                                                          \
  }                                                                            \
  extern "C" int64_t _mlir_ciface_npu_rt_unique_##SUFFIX(Row<T> *in,           \
                                                         Row<T> *out) {        \
    return uniqueRow(in, out);                                                 \
  }                                                                            \
  extern "C" void _mlir_ciface_npu_rt_merge_##SUFFIX(Row<T> *a, Row<T> *b,     \
                                                     Row<T> *out) {            \
    mergeRows<T, int64_t>(a, b, out, nullptr, nullptr, nullptr);               \
  }
#define NPU_RUNTIME_SORT_TYPE NPU_RT_FUNCTIONS
#include "npu/Runtime/SortTypes.def"
#undef NPU_RT_FUNCTIONS

// Key-value sorts: every sorted key type with i32 or i64 values.
#define NPU_RT_SORT_PAIRS(KS, K, VS, V)                                        \
  extern "C" void _mlir_ciface_npu_rt_sort_kv_##KS##_##VS(                     \
      Row<K> *keys, Row<K> *out, Row<V> *values, Row<V> *outValues) {          \
    sortPairsRow(keys, out, values, outValues);                                \
  }                                                                            \
  extern "C" void _mlir_ciface_npu_rt_merge_kv_##KS##_##VS(                    \
      Row<K> *a, Row<K> *b, Row<K> *out, Row<V> *va, Row<V> *vb,               \
      Row<V> *vout) {                                                          \
    mergeRows(a, b, out, va, vb, vout);                                        \
  }
#define NPU_RUNTIME_SORT_TYPE(KS, K)                                           \
  NPU_RT_SORT_PAIRS(KS, K, i32, int32_t) NPU_RT_SORT_PAIRS(KS, K, i64, int64_t)
#include "npu/Runtime/SortTypes.def"

namespace {
/// `_mlir_ciface_npu_rt_matmul_<input>` on one instruction set's kernel.
template <jit::MatmulIsa Isa, jit::MatmulInput Input>
void matmulEntry(jit::MatrixRef *a, jit::MatrixRef *b, jit::MatrixRef *c,
                 bool accumulate) {
  jit::matmul(Isa, Input, *a, *b, *c, accumulate);
}

template <jit::MatmulInput Input> void *getMatmulEntry(jit::MatmulIsa isa) {
  switch (isa) {
  case jit::MatmulIsa::Avx512:
    return reinterpret_cast<void *>(
        &matmulEntry<jit::MatmulIsa::Avx512, Input>);
  case jit::MatmulIsa::Avx2:
    return reinterpret_cast<void *>(&matmulEntry<jit::MatmulIsa::Avx2, Input>);
  case jit::MatmulIsa::Scalar:
    break;
  }
  return reinterpret_cast<void *>(&matmulEntry<jit::MatmulIsa::Scalar, Input>);
}
} // namespace

//===----------------------------------------------------------------------===//
// Mixed launches
//===----------------------------------------------------------------------===//

namespace {
/// The mixed launch running on this thread's behalf.
struct MixedRun {
  ConcurrentTasks *tasks;
  int64_t cubeTasks, vectorTasks;
  std::mutex errorMutex;
  /// The first error, without the op's name.
  std::string error;

  void fail(const char *op, const std::string &message) {
    {
      std::lock_guard<std::mutex> lock(errorMutex);
      if (error.empty())
        error = "'" + std::string(op) + "' op " + message;
    }
    tasks->abort();
  }
};
thread_local MixedRun *currentRun = nullptr;
thread_local size_t currentTask = 0;
/// The error of the last mixed launch run from this thread.
thread_local std::string mixedLaunchError;
} // namespace

using TaskFunction = void (*)(int64_t, void *);

extern "C" void npu_rt_run_mixed(TaskFunction cube, TaskFunction vector,
                                 void *captures, int64_t cubeTasks,
                                 int64_t vectorTasks, int64_t threads) {
  ConcurrentTasks tasks(cubeTasks + vectorTasks, threads);
  MixedRun run{&tasks, cubeTasks, vectorTasks, {}, {}};
  tasks.run([&](size_t t) {
    currentRun = &run;
    currentTask = t;
    int64_t id = static_cast<int64_t>(t);
    if (id < cubeTasks)
      cube(id, captures);
    else
      vector(id - cubeTasks, captures);
    return true;
  });
  if (tasks.isDeadlocked() && run.error.empty())
    run.error =
        "'npudev.mixed_launch' op " + describeDeadlock(tasks, cubeTasks);
  if (mixedLaunchError.empty())
    mixedLaunchError = run.error;
}

extern "C" void _mlir_ciface_npu_rt_set_flag(int32_t kind, int64_t task,
                                             int32_t flag) {
  MixedRun &run = *currentRun;
  bool cube = kind == static_cast<int32_t>(dev::CoreKind::cube);
  int64_t count = cube ? run.cubeTasks : run.vectorTasks;
  if (task < 0 || task >= count)
    return run.fail("npudev.set_flag", describeMissingTask(cube, task, count));
  size_t target = cube ? task : run.cubeTasks + task;
  unsigned pending = run.tasks->signal(target, flag);
  if (pending > ConcurrentTasks::kMaxPending)
    run.fail("npudev.set_flag",
             describeFlagOverflow(run.cubeTasks, target, flag, pending));
}

/// After a failure the wait returns at once: the launch finishes with
/// whatever its buffers hold, and the kernel reports the error.
extern "C" void _mlir_ciface_npu_rt_wait_flag(int32_t flag) {
  // With one thread the tasks are fibers of it: others ran in between and
  // set currentTask.
  size_t self = currentTask;
  currentRun->tasks->wait(self, flag);
  currentTask = self;
}

std::string npu::jit::takeMixedLaunchError() {
  std::string error;
  error.swap(mixedLaunchError);
  return error;
}

// memref.alloc and memref.dealloc lower to malloc and free; the kernels'
// `malloc` and `free` are these. (The names keep LLVM's knowledge that
// malloc returns fresh memory, which the vectorizer needs: calling
// functions of other names cost the sparse-conv kernel 40%.)
// A kernel cannot handle a null buffer (it would write through it): an
// allocation past the host's memory, from a size read at run time that a
// device larger than the host accepts, ends the run with an error instead
// of asking the C library (whose overcommit might grant it).
static void *workspaceMalloc(size_t size) {
  void *block = size <= static_cast<uint64_t>(getHostMemoryBytes())
                    ? jit::allocateWorkspace(size, alignof(std::max_align_t))
                    : nullptr;
  if (!block && size)
    llvm::report_fatal_error(
        llvm::Twine("the JIT's kernel needs a ") + llvm::Twine(size) +
            "-byte buffer, and this host's memory (" +
            llvm::Twine(getHostMemoryBytes()) + " bytes) cannot hold it",
        /*gen_crash_diag=*/false);
  return block;
}
static void workspaceFree(void *pointer) { jit::freeWorkspace(pointer); }
// LLVM may turn malloc and memset into calloc.
static void *workspaceCalloc(size_t count, size_t size) {
  size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes))
    bytes = SIZE_MAX;
  void *pointer = workspaceMalloc(bytes);
  if (pointer)
    std::memset(pointer, 0, bytes);
  return pointer;
}

llvm::orc::SymbolMap
npu::jit::getRuntimeSymbols(llvm::orc::MangleAndInterner interner,
                            MatmulIsa matmulIsa) {
  llvm::orc::SymbolMap symbols;
  auto add = [&](const llvm::Twine &name, void *address) {
    symbols[interner(name.str())] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                     llvm::JITSymbolFlags::Exported};
  };
#define NPU_RT_SYMBOLS(SUFFIX, T)                                              \
  add("_mlir_ciface_npu_rt_sort_" #SUFFIX,                                     \
      reinterpret_cast<void *>(&_mlir_ciface_npu_rt_sort_##SUFFIX));           \
  add("_mlir_ciface_npu_rt_unique_" #SUFFIX,                                   \
      reinterpret_cast<void *>(&_mlir_ciface_npu_rt_unique_##SUFFIX));         \
  add("_mlir_ciface_npu_rt_merge_" #SUFFIX,                                    \
      reinterpret_cast<void *>(&_mlir_ciface_npu_rt_merge_##SUFFIX));
#define NPU_RUNTIME_SORT_TYPE NPU_RT_SYMBOLS
#include "npu/Runtime/SortTypes.def"
#define NPU_RT_PAIR_SYMBOL(KS, VS)                                             \
  add("_mlir_ciface_npu_rt_sort_kv_" #KS "_" #VS,                              \
      reinterpret_cast<void *>(&_mlir_ciface_npu_rt_sort_kv_##KS##_##VS));     \
  add("_mlir_ciface_npu_rt_merge_kv_" #KS "_" #VS,                             \
      reinterpret_cast<void *>(&_mlir_ciface_npu_rt_merge_kv_##KS##_##VS));
#define NPU_RUNTIME_SORT_TYPE(KS, K)                                           \
  NPU_RT_PAIR_SYMBOL(KS, i32) NPU_RT_PAIR_SYMBOL(KS, i64)
#include "npu/Runtime/SortTypes.def"
#undef NPU_RT_PAIR_SYMBOL
#undef NPU_RT_SYMBOLS
  auto addMatmul = [&](ElementKind kind, void *entry) {
    add(abi::kCInterfacePrefix +
            abi::getFunctionName("matmul", {*abi::getMatmulSuffix(kind)}),
        entry);
  };
  addMatmul(ElementKind::F32, getMatmulEntry<jit::MatmulInput::F32>(matmulIsa));
  addMatmul(ElementKind::F16, getMatmulEntry<jit::MatmulInput::F16>(matmulIsa));
  addMatmul(ElementKind::BF16,
            getMatmulEntry<jit::MatmulInput::BF16>(matmulIsa));
  add(abi::kRunMixed, reinterpret_cast<void *>(&npu_rt_run_mixed));
  add(abi::kCInterfacePrefix + abi::kSetFlag,
      reinterpret_cast<void *>(&_mlir_ciface_npu_rt_set_flag));
  add(abi::kCInterfacePrefix + abi::kWaitFlag,
      reinterpret_cast<void *>(&_mlir_ciface_npu_rt_wait_flag));
  add("malloc", reinterpret_cast<void *>(&workspaceMalloc));
  add("free", reinterpret_cast<void *>(&workspaceFree));
  add("calloc", reinterpret_cast<void *>(&workspaceCalloc));
  return symbols;
}
