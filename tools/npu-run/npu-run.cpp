//===- npu-run.cpp - run a device kernel from an .mlir file ---------------===//
//
// npu-run FILE.mlir [--entry=F] [--mode=sim|jit] [--device=PRESET|FILE.json]
//         [--input=a.npy,b.npy,...] [--weights=W.npz] [--random-inputs=SEED]
//         [--output-dir=DIR] [--print-outputs] [--report] [--trace=FILE]
//         [--checked] [--jit-threads=N] [--jit-max-vector-bits=B]
//         [--jit-perf-profile] [--jit-runs=N]
// npu-run --list-simulated-ops
//
// The run's device is the one the module names in `npudev.device` (a
// --device that disagrees is an error), else --device, else mlu590. A module
// that still holds npu graph ops is first lowered to device kernels for it
// (npu-graph-to-device). Arguments take, in order, the --input
// files, the --weights archive's array named as the argument (a weight
// argument's npu.onnx_name), then generated data when --random-inputs is
// given (npu-run says which); the result buffers of a graph-level function
// start as zeros and need no data, and take their sizes read at run time
// (`npudev.sizes`) from the inputs; so do such outputs, and row counts, of a
// function lowered earlier by npu-opt. Outputs are the arguments marked
// `npudev.output` (all memref arguments when none is), written as DIR/argN.npy;
// an output marked `npudev.rows = N` (a data-dependent row count) is cut to the
// rows argument N holds.
//
//===----------------------------------------------------------------------===//

#include "npu/Conversion/LoweredSignature.h"
#include "npu/Conversion/Pipelines.h"
#include "npu/Device/DeviceModel.h"
#include "npu/Dialect/NPU/NPUDialect.h"
#include "npu/Dialect/NPUDev/DeviceAttr.h"
#include "npu/Dialect/NPUDev/NPUDevDialect.h"
#include "npu/Dialect/NPUDev/Semantics.h"
#include "npu/InitAll.h"
#include "npu/JIT/Jit.h"
#include "npu/Runtime/HostMemory.h"
#include "npu/Simulator/Execution.h"
#include "npu/Simulator/Simulator.h"
#include "npu/Support/Npy.h"
#include "npu/Support/Npz.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstring>
#include <random>

using namespace mlir;
using namespace npu;
namespace cl = llvm::cl;

namespace {
enum class Mode { Sim, Jit };

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .mlir>"),
                               cl::init("-"));
cl::opt<std::string> entry("entry", cl::desc("function to run (default: the "
                                             "first function with a body)"));
cl::opt<Mode>
    mode("mode", cl::desc("executor"), cl::init(Mode::Sim),
         cl::values(clEnumValN(Mode::Sim, "sim", "the simulator (default)"),
                    clEnumValN(Mode::Jit, "jit",
                               "native code through MLIR's ExecutionEngine")));
cl::opt<std::string>
    deviceName("device",
               cl::desc("device preset or JSON description (default: the "
                        "device the module names, else mlu590)"));
cl::opt<std::string>
    weightsFile("weights",
                cl::desc(".npz of the weight arguments (npu-import-onnx "
                         "--weights-file): each argument with an "
                         "npu.onnx_name takes the array of that name"),
                cl::value_desc("filename"));
cl::list<std::string> inputs("input", cl::desc(".npy files, one per argument"),
                             cl::CommaSeparated);
cl::opt<unsigned> randomSeed(
    "random-inputs",
    cl::desc("generate the arguments not given by --input from this seed: "
             "floats uniform in [-1, 1), integers in [0, 16); a weight "
             "argument (npu.weight) of rank 2 or more in +-1/sqrt(its "
             "elements per leading index), of rank 0 or 1 in [0.5, 1.5), so "
             "that an imported network's activations stay finite"),
    cl::ValueOptional);
cl::opt<std::string> outputDir("output-dir",
                               cl::desc("write outputs as DIR/argN.npy"));
cl::opt<bool> printOutputs("print-outputs",
                           cl::desc("print the output arrays"));
cl::opt<bool> printReport("report", cl::desc("print the simulation report"));
cl::opt<unsigned> reportLayers(
    "report-layers",
    cl::desc("with --report, how many layers to list, slowest first (a "
             "layer is the launches built from one graph op); 0 lists all"),
    cl::init(10));
cl::opt<int32_t> jitThreads(
    "jit-threads",
    cl::desc("host threads running the tasks in --mode=jit (default 1)"),
    cl::init(1));
cl::opt<bool> checkedJit(
    "checked",
    cl::desc("with --mode=jit, bounds-check every memory access and fail "
             "as the simulator does (which always checks)"));
cl::opt<bool> jitPerfProfile(
    "jit-perf-profile",
    cl::desc("with --mode=jit, register the compiled code with Linux perf "
             "(writes jit-<pid>.dump under $JITDUMPDIR/.debug/jit)"));
cl::opt<unsigned> jitMaxVectorBits(
    "jit-max-vector-bits",
    cl::desc("with --mode=jit, use vectors of at most this many bits, as a "
             "host without wider ones would: 256 (AVX2), 128 (no AVX); 0, "
             "the default, uses what the host has"),
    cl::init(0));
cl::opt<unsigned> jitRuns(
    "jit-runs",
    cl::desc("with --mode=jit, run the compiled kernel this many times on "
             "the same arguments (outputs are the last run's) and print the "
             "compile time and the fastest and median run times to stderr"),
    cl::init(1));
cl::opt<unsigned> pipelineStages(
    "pipeline-stages",
    cl::desc("iterations in flight in the tile loops of kernels lowered "
             "from graph ops: 2 to 4, 0 for the device model's choice, 1 "
             "for none"),
    cl::init(0));
cl::opt<std::string> tracePath("trace",
                               cl::desc("write a Chrome trace-event JSON"));
cl::opt<bool> listSimulatedOps(
    "list-simulated-ops",
    cl::desc("print the ops the simulator runs (every one also lowers in "
             "the JIT) and exit"));
} // namespace

static int fail(const llvm::Twine &message) {
  llvm::errs() << "npu-run: " << message << "\n";
  return 1;
}

static std::optional<ElementKind> kindOfNpy(NpyDType type) {
  switch (type) {
  case NpyDType::F16:
    return ElementKind::F16;
  case NpyDType::F32:
    return ElementKind::F32;
  case NpyDType::F64:
    return ElementKind::F64;
  case NpyDType::I8:
    return ElementKind::I8;
  case NpyDType::I32:
    return ElementKind::I32;
  case NpyDType::I64:
    return ElementKind::I64;
  case NpyDType::Bool:
    return ElementKind::I1;
  }
  return std::nullopt;
}

static std::optional<NpyDType> npyOfKind(ElementKind kind) {
  for (NpyDType t : {NpyDType::F16, NpyDType::F32, NpyDType::F64, NpyDType::I8,
                     NpyDType::I32, NpyDType::I64, NpyDType::Bool})
    if (kindOfNpy(t) == kind)
      return t;
  if (kind == ElementKind::Index)
    return NpyDType::I64;
  // .npy has no bfloat16: bf16 travels as float32 (docs/simulator.md).
  if (kind == ElementKind::BF16)
    return NpyDType::F32;
  return std::nullopt;
}

/// `array`'s elements converted to `kind` (float to float: rounded to
/// nearest even when narrowing).
static HostArray convertFloats(const HostArray &array, ElementKind kind) {
  HostArray out;
  out.kind = kind;
  out.shape = array.shape;
  unsigned from = getElementBytes(array.kind), to = getElementBytes(kind);
  out.data.resize(array.getNumElements() * to);
  for (int64_t i = 0, e = array.getNumElements(); i < e; ++i)
    storeFloat(out.data.data() + i * to, kind,
               loadFloat(array.data.data() + i * from, array.kind));
  return out;
}

/// A zero-filled array for an argument of `type`, at most the device's
/// global memory.
static FailureOr<HostArray> allocateArgument(Type type, unsigned index,
                                             const DeviceModel &device) {
  auto memref = dyn_cast<MemRefType>(type);
  Type element = memref ? memref.getElementType() : type;
  std::optional<ElementKind> kind = getElementKind(element);
  if (!kind) {
    fail("argument #" + llvm::Twine(index) + " has an unsupported type");
    return failure();
  }
  HostArray array;
  array.kind = *kind;
  if (memref) {
    if (!memref.hasStaticShape()) {
      fail("argument #" + llvm::Twine(index) +
           " has a dynamic shape: give it with --input");
      return failure();
    }
    std::optional<int64_t> size = dev::getStaticByteSize(memref);
    // The device may have more memory than the host that holds it.
    if (size && *size <= device.globalBytes && *size > getHostMemoryBytes()) {
      std::string message;
      llvm::raw_string_ostream(message)
          << "argument #" << index << " ('" << type << "') needs " << *size
          << " bytes, more than this host's memory (" << getHostMemoryBytes()
          << " bytes)";
      fail(message);
      return failure();
    }
    if (!size || *size > device.globalBytes) {
      std::string message;
      llvm::raw_string_ostream os(message);
      os << "argument #" << index << " ('" << type << "') needs ";
      if (size)
        os << *size << " bytes";
      else
        os << "more bytes than fit in 64 bits";
      os << ", more than the global memory of device '" << device.name << "' ("
         << device.globalBytes << " bytes)";
      fail(message);
      return failure();
    }
    array.shape.assign(memref.getShape().begin(), memref.getShape().end());
  }
  array.data.resize(array.getNumElements() * getElementBytes(*kind));
  return array;
}

/// Random data for an argument of `type`: floats uniform in [-1, 1),
/// integers uniform in [0, 16). A weight's floats are scaled as a
/// network's initialisation would (--random-inputs): uniform in
/// +-1/sqrt(fan-in) for a matrix or filter (its elements per leading
/// index), in [0.5, 1.5) for a vector (a bias, or a normalisation's scale
/// or variance, which must be positive).
static FailureOr<HostArray> randomArgument(Type type, unsigned index,
                                           const DeviceModel &device,
                                           bool weight, std::mt19937_64 &rng) {
  FailureOr<HostArray> array = allocateArgument(type, index, device);
  if (failed(array))
    return failure();
  double scale = 1.0, offset = 0.0;
  int64_t n = array->getNumElements();
  if (weight && array->shape.size() >= 2 && array->shape[0] > 0)
    scale = 1.0 / std::sqrt(double(std::max<int64_t>(n / array->shape[0], 1)));
  else if (weight)
    scale = 0.5, offset = 1.0;
  unsigned bytes = getElementBytes(array->kind);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t r = rng();
    uint8_t *p = array->data.data() + i * bytes;
    if (isFloat(array->kind))
      storeFloat(p, array->kind,
                 (double(r >> 11) * 0x1.0p-52 - 1.0) * scale + offset);
    else
      storeInt(p, array->kind, static_cast<int64_t>(r % 16));
  }
  return array;
}

/// An argument of `type` from .npy data; a bf16 argument takes float32
/// data, rounded to nearest even, and an index argument int64 data (the
/// type npu-run writes index outputs in).
static HostArray argumentFromNpy(NpyArray npy, Type type) {
  HostArray array;
  array.kind = *kindOfNpy(npy.type);
  array.shape = npy.shape;
  array.data = std::move(npy.data);
  auto memref = dyn_cast<MemRefType>(type);
  Type element = memref ? memref.getElementType() : type;
  if (element.isBF16() && array.kind == ElementKind::F32)
    return convertFloats(array, ElementKind::BF16);
  if (element.isIndex() && array.kind == ElementKind::I64)
    array.kind = ElementKind::Index;
  return array;
}

/// Argument `index` (of `type`) from the .npy at `path`.
static FailureOr<HostArray> readArgument(StringRef path, unsigned index,
                                         Type type) {
  llvm::Expected<NpyArray> npy = readNpy(path);
  if (!npy) {
    fail(llvm::toString(npy.takeError()));
    return failure();
  }
  return argumentFromNpy(std::move(*npy), type);
}

/// The --weights archive's arrays by name; empty without --weights.
static FailureOr<llvm::StringMap<NpyArray>> readWeights() {
  llvm::StringMap<NpyArray> byName;
  if (weightsFile.empty())
    return byName;
  llvm::Expected<NpzArrays> arrays = readNpz(weightsFile);
  if (!arrays) {
    fail(llvm::toString(arrays.takeError()));
    return failure();
  }
  for (auto &[name, array] : *arrays)
    byName[name] = std::move(array);
  return byName;
}

/// The weight argument's name (npu.weight with npu.onnx_name), if any.
static std::optional<StringRef> getWeightName(func::FuncOp func, unsigned i) {
  auto name = func.getArgAttrOfType<StringAttr>(
      i, npu::graph::NPUDialect::getONNXNameAttrName());
  if (!name || !func.getArgAttr(i, npu::graph::NPUDialect::getWeightAttrName()))
    return std::nullopt;
  return name.getValue();
}

static void printArray(llvm::raw_ostream &os, unsigned index,
                       const HostArray &array) {
  os << "arg" << index << " [";
  llvm::interleaveComma(array.shape, os);
  os << "] = [";
  unsigned bytes = getElementBytes(array.kind);
  for (int64_t i = 0, e = array.getNumElements(); i < e; ++i) {
    const uint8_t *p = array.data.data() + i * bytes;
    if (i)
      os << ", ";
    if (isFloat(array.kind))
      os << llvm::format("%.9g", loadFloat(p, array.kind));
    else
      os << loadInt(p, array.kind);
  }
  os << "]\n";
}

/// The arguments marked npudev.output, or every memref argument when none
/// is marked.
static SmallVector<bool> selectOutputs(func::FuncOp func) {
  SmallVector<bool> marked, memrefs;
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    marked.push_back(!!func.getArgAttr(i, signature::kOutput));
    memrefs.push_back(isa<MemRefType>(type));
  }
  return llvm::is_contained(marked, true) ? marked : memrefs;
}

/// Per argument, the argument holding its row count (`npudev.rows`), or -1.
static SmallVector<int64_t> findRowCountArgs(func::FuncOp func) {
  SmallVector<int64_t> counts;
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
    auto rows = func.getArgAttrOfType<IntegerAttr>(i, signature::kRows);
    counts.push_back(rows ? rows.getInt() : -1);
  }
  return counts;
}

/// Cuts each output with a row count down to its counted rows (the kernels
/// store it at an upper bound of its rows).
static LogicalResult trimDynamicOutputs(func::FuncOp func,
                                        ArrayRef<int64_t> rowCountArgs,
                                        MutableArrayRef<HostArray> args) {
  for (auto [i, countArg] : llvm::enumerate(rowCountArgs)) {
    if (countArg < 0)
      continue;
    HostArray &array = args[i];
    const HostArray &count = args[countArg];
    int64_t rows = 0;
    if (count.kind == ElementKind::I64 && count.data.size() == sizeof(int64_t))
      std::memcpy(&rows, count.data.data(), sizeof(int64_t));
    if (array.shape.empty() || rows < 0 || rows > array.shape[0]) {
      fail("output #" + llvm::Twine(i) + " has row count " + llvm::Twine(rows) +
           " outside [0, " +
           llvm::Twine(array.shape.empty() ? 0 : array.shape[0]) + "]");
      return failure();
    }
    int64_t rowBytes =
        array.shape[0] ? int64_t(array.data.size()) / array.shape[0] : 0;
    array.shape[0] = rows;
    array.data.resize(rows * rowBytes);
  }
  return success();
}

/// Checks argument `index` against the type the user wrote (a tensor, for
/// a graph-level function), so a mismatch names that type rather than the
/// lowered memref's.
static LogicalResult checkDeclaredType(const HostArray &array, unsigned index,
                                       Type declared) {
  if (!isa<TensorType>(declared))
    return success();
  std::optional<ArgumentSpec> spec = ArgumentSpec::get(declared);
  std::string mismatch = spec ? spec->describeMismatch(array, index) : "";
  if (mismatch.empty())
    return success();
  fail(mismatch);
  return failure();
}

/// The rows an argument stored channel-aligned holds (`npudev.channels`),
/// std::nullopt for a dense argument.
static std::optional<int64_t> getStoredChannels(func::FuncOp func, unsigned i) {
  if (auto channels =
          func.getArgAttrOfType<IntegerAttr>(i, signature::kChannels))
    return channels.getInt();
  return std::nullopt;
}

/// `type` with its innermost dimension `length` long, dense.
static MemRefType withRowLength(MemRefType type, int64_t length) {
  SmallVector<int64_t> shape(type.getShape());
  shape.back() = length;
  return MemRefType::get(shape, type.getElementType(),
                         MemRefLayoutAttrInterface(), type.getMemorySpace());
}

/// Output `index`'s type with its dynamic sizes bound from the arguments
/// gathered before it (a graph function's result whose sizes are read at
/// run time).
static FailureOr<Type> bindOutputSizes(func::FuncOp func, unsigned index,
                                       Type type, ArrayRef<HostArray> args) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || memref.hasStaticShape())
    return type;
  llvm::Expected<SmallVector<int64_t>> shape = signature::bindOutputShape(
      func, index, memref.getShape(), args.size(),
      [&](unsigned arg) { return ArrayRef<int64_t>(args[arg].shape); });
  if (!shape) {
    fail(llvm::toString(shape.takeError()));
    return failure();
  }
  return MemRefType::get(*shape, memref.getElementType(), memref.getLayout(),
                         memref.getMemorySpace());
}

/// Zeros for output `index` of `type`, its run-time sizes bound from `args`.
static FailureOr<HostArray> allocateOutput(func::FuncOp func, unsigned index,
                                           Type type, ArrayRef<HostArray> args,
                                           const DeviceModel &device) {
  FailureOr<Type> bound = bindOutputSizes(func, index, type, args);
  if (failed(bound))
    return failure();
  return allocateArgument(*bound, index, device);
}

/// Whether argument `index` is a result of a function npu-lower-to-device
/// lowered, which needs no data: its output or its row count.
static bool isLoweredOutput(func::FuncOp func, unsigned index) {
  return func.getArgAttr(index, signature::kRowCount) ||
         func.getArgAttr(index, signature::kOutput);
}

/// The run's arguments in order: the --input files, then zeros for the
/// results of a graph-level function (arguments past `declaredTypes`),
/// then random data when --random-inputs is given. Which arguments are
/// random is printed, so made-up data is never silent.
static FailureOr<SmallVector<HostArray>>
gatherArguments(func::FuncOp func, ArrayRef<Type> declaredTypes,
                const DeviceModel &device) {
  unsigned numDataArgs = declaredTypes.size();
  std::mt19937_64 rng(randomSeed);
  SmallVector<HostArray> args;
  SmallVector<unsigned> randomArgs;
  FailureOr<llvm::StringMap<NpyArray>> weights = readWeights();
  if (failed(weights))
    return failure();
  size_t weightsTaken = 0;
  for (auto [i, storedType] : llvm::enumerate(func.getArgumentTypes())) {
    // An argument stored channel-aligned takes its value's rows, padded
    // here as the kernels store them.
    std::optional<int64_t> channels = getStoredChannels(func, i);
    Type type = storedType;
    if (channels)
      type = withRowLength(cast<MemRefType>(storedType), *channels);
    FailureOr<HostArray> arg = failure();
    std::optional<StringRef> weightName = getWeightName(func, i);
    if (i < inputs.size()) {
      arg = readArgument(inputs[i], i, type);
      if (succeeded(arg) && i < numDataArgs &&
          failed(checkDeclaredType(*arg, i, declaredTypes[i])))
        return failure();
    } else if (!weightsFile.empty() && weightName) {
      auto it = weights->find(*weightName);
      if (it == weights->end()) {
        fail("weight argument #" + llvm::Twine(i) + " ('" + *weightName +
             "') has no array in '" + weightsFile + "'");
        return failure();
      }
      arg = argumentFromNpy(std::move(it->second), type);
      ++weightsTaken;
      if (i < numDataArgs &&
          failed(checkDeclaredType(*arg, i, declaredTypes[i])))
        return failure();
    } else if (i >= numDataArgs) {
      arg = allocateOutput(func, i, type, args, device);
    } else if (isLoweredOutput(func, i)) {
      arg = allocateOutput(func, i, type, args, device);
    } else if (randomSeed.getNumOccurrences()) {
      arg = randomArgument(type, i, device, weightName.has_value(), rng);
      randomArgs.push_back(i);
    } else {
      fail("argument #" + llvm::Twine(i) + " of '" + func.getSymName() +
           "' has no data: give it with --input, or use --random-inputs");
    }
    if (failed(arg))
      return failure();
    if (channels)
      arg = padRows(*arg, cast<MemRefType>(storedType).getShape().back());
    args.push_back(std::move(*arg));
  }
  if (weightsTaken != weights->size()) {
    fail("'" + weightsFile + "' holds " + llvm::Twine(weights->size()) +
         " arrays, of which " + llvm::Twine(weightsTaken) +
         " name a weight argument of '" + func.getSymName() + "'");
    return failure();
  }
  if (!randomArgs.empty()) {
    llvm::errs() << "npu-run: random data (seed " << randomSeed << ") for "
                 << (randomArgs.size() == 1 ? "argument " : "arguments ");
    llvm::interleaveComma(randomArgs, llvm::errs(),
                          [](unsigned i) { llvm::errs() << "#" << i; });
    llvm::errs() << "\n";
  }
  return args;
}

static func::FuncOp findEntry(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && (entry.empty() || func.getSymName() == entry))
      return func;
  return nullptr;
}

/// The device of the run, recorded on the module: the one the module names
/// (a --device that disagrees is an error naming both), else --device, else
/// mlu590. Recording it lets the launch verifier and the graph lowering
/// check against the device the simulator then times.
static FailureOr<DeviceModel> selectDevice(ModuleOp module) {
  std::optional<DeviceModel> requested;
  if (!deviceName.empty()) {
    llvm::Expected<DeviceModel> loaded = DeviceModel::load(deviceName);
    if (!loaded) {
      fail(llvm::toString(loaded.takeError()));
      return failure();
    }
    requested = *loaded;
  }
  bool named = static_cast<bool>(dev::findDeviceAttr(module));
  FailureOr<DeviceModel> device =
      dev::selectDevice(module, requested, "npu-run", "--device");
  if (failed(device) || named)
    return device;
  module->setAttr(dev::NPUDevDialect::getDeviceAttrName(),
                  dev::getDeviceAttr(module.getContext(), *device));
  if (failed(verify(module)))
    return failure();
  return device;
}

/// Lowers graph-level IR to device kernels for the module's device. IR
/// already at device level runs as written: its loops are not pipelined.
static LogicalResult lowerGraphOps(ModuleOp module) {
  auto isTensor = [](Type type) { return isa<TensorType>(type); };
  WalkResult graphLevel = module.walk([&](Operation *op) {
    auto func = dyn_cast<func::FuncOp>(op);
    bool graph =
        (op->getDialect() && op->getDialect()->getNamespace() == "npu") ||
        (func && (llvm::any_of(func.getArgumentTypes(), isTensor) ||
                  llvm::any_of(func.getResultTypes(), isTensor)));
    return graph ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (!graphLevel.wasInterrupted())
    return success();
  PassManager pm(module.getContext());
  GraphToDevicePipelineOptions options;
  options.pipelineStages = pipelineStages.getValue();
  buildGraphToDevicePipeline(pm, options);
  return pm.run(module);
}

/// Compiles `entry` and runs it --jit-runs times on `args`, printing the
/// times when asked to run more than once (each run's arguments are the
/// same: inputs are never written, outputs are overwritten whole).
static LogicalResult runCompiled(ModuleOp module, StringRef entry,
                                 MutableArrayRef<HostArray> args,
                                 const jit::JitOptions &options) {
  if (jitRuns == 0) {
    fail("--jit-runs must be at least 1");
    return failure();
  }
  if (jitRuns == 1)
    return jit::runJit(module, entry, args, options);
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point since) {
    return std::chrono::duration<double>(Clock::now() - since).count();
  };
  Clock::time_point start = Clock::now();
  FailureOr<std::unique_ptr<jit::CompiledKernel>> kernel =
      jit::CompiledKernel::compile(module, entry, options);
  if (failed(kernel))
    return failure();
  double compile = seconds(start);
  std::vector<double> times;
  for (unsigned i = 0; i < jitRuns; ++i) {
    start = Clock::now();
    if (llvm::Error error = (*kernel)->run(args)) {
      fail(llvm::toString(std::move(error)));
      return failure();
    }
    times.push_back(seconds(start));
  }
  llvm::sort(times);
  llvm::errs() << llvm::formatv(
      "npu-run: jit compile {0:f3} s; {1} runs: fastest {2:f3} ms, median "
      "{3:f3} ms\n",
      compile, times.size(), 1e3 * times.front(),
      1e3 * times[times.size() / 2]);
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "npu-mlir kernel runner\n");

  DialectRegistry registry;
  registerAllDialects(registry);
  sim::registerSimulatorModels(registry);
  MLIRContext context(registry);
  // Diagnostics point at the source line; the op's generic form adds
  // nothing a user can act on (a launch prints as its whole body).
  context.printOpOnDiagnostic(false);
  if (listSimulatedOps) {
    context.loadAllAvailableDialects();
    std::vector<std::string> names;
    for (RegisteredOperationName name : context.getRegisteredOperations())
      if (name.hasInterface<sim::SimulatedOpInterface>())
        names.push_back(name.getStringRef().str());
    llvm::sort(names);
    for (const std::string &name : names)
      llvm::outs() << name << "\n";
    return 0;
  }
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(inputFile, &error);
  if (!file)
    return fail(error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  FailureOr<DeviceModel> device = selectDevice(*module);
  if (failed(device))
    return 1;
  func::FuncOp func = findEntry(*module);
  if (!func)
    return fail(entry.empty() ? "no function with a body"
                              : "no function named '" + entry + "'");
  // Lowering a graph-level function appends its results (and their row
  // counts) as arguments: those start as zeros and need no data.
  SmallVector<Type> declaredTypes(func.getArgumentTypes());
  if (failed(lowerGraphOps(*module)))
    return 1;

  if (inputs.size() > func.getNumArguments())
    return fail(llvm::Twine(inputs.size()) + " --input files for '" +
                func.getSymName() + "', which takes " +
                llvm::Twine(func.getNumArguments()) +
                (func.getNumArguments() == 1 ? " argument" : " arguments"));
  FailureOr<SmallVector<HostArray>> args =
      gatherArguments(func, declaredTypes, *device);
  if (failed(args))
    return 1;

  if (mode == Mode::Jit && (printReport || !tracePath.empty()))
    return fail("--report and --trace need --mode=sim");
  // Output selection reads the signature before the JIT lowers it.
  SmallVector<bool> outputs = selectOutputs(func);
  SmallVector<int64_t> rowCountArgs = findRowCountArgs(func);
  SmallVector<std::optional<int64_t>> storedChannels;
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    storedChannels.push_back(getStoredChannels(func, i));
  sim::SimulatorOptions options;
  options.collectTrace = !tracePath.empty();
  sim::SimulationReport report;
  std::vector<sim::TraceEvent> trace;
  jit::JitOptions jitOptions{3, jitThreads, checkedJit, jitMaxVectorBits,
                             jitPerfProfile};
  LogicalResult ran =
      mode == Mode::Jit
          ? runCompiled(*module, func.getSymName(), *args, jitOptions)
          : sim::simulate(func, *args, options, report, &trace);
  if (failed(ran))
    return 1;
  for (auto [arg, channels] : llvm::zip(*args, storedChannels))
    if (channels)
      arg = cutRows(arg, *channels);

  if (failed(trimDynamicOutputs(func, rowCountArgs, *args)))
    return 1;
  for (auto [i, isOutput] : llvm::enumerate(outputs)) {
    if (!isOutput)
      continue;
    if (printOutputs)
      printArray(llvm::outs(), i, (*args)[i]);
    if (outputDir.empty())
      continue;
    if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
      return fail("cannot create '" + outputDir + "': " + ec.message());
    std::optional<NpyDType> npyType = npyOfKind((*args)[i].kind);
    if (!npyType)
      return fail("argument #" + llvm::Twine(i) +
                  " has an element type .npy output does not support");
    SmallString<128> path(outputDir);
    llvm::sys::path::append(path, "arg" + std::to_string(i) + ".npy");
    // bf16 is widened to f32; index has int64's bytes already.
    const HostArray &value = (*args)[i];
    HostArray stored = isFloat(value.kind) && *kindOfNpy(*npyType) != value.kind
                           ? convertFloats(value, *kindOfNpy(*npyType))
                           : value;
    NpyArray npy{*npyType, stored.shape, stored.data};
    if (llvm::Error e = writeNpy(path, npy))
      return fail(llvm::toString(std::move(e)));
  }
  if (printReport)
    report.print(llvm::outs(), *device, reportLayers);
  if (!tracePath.empty()) {
    std::unique_ptr<llvm::ToolOutputFile> out =
        openOutputFile(tracePath, &error);
    if (!out)
      return fail(error);
    sim::writeChromeTrace(trace, *device, out->os());
    out->keep();
  }
  return 0;
}
