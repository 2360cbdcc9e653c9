//===- DeviceModel.cpp - presets and JSON descriptions --------------------===//
//
// Presets are "-like": figures a kernel engineer would plan with, taken from
// the design notes and public material where they exist and stated as
// assumptions otherwise (docs/device-model.md gives each source).
//
//===----------------------------------------------------------------------===//

#include "npu/Device/DeviceModel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <thread>

#include <unistd.h>

#include <cstdio>

#include "npu/Device/DeviceEnums.cpp.inc"

using namespace npu;
using llvm::ArrayRef;
using llvm::StringRef;

static DeviceModel makeMLU590() {
  DeviceModel m;
  m.name = "mlu590";
  // 48 cores: mlu-ops' get_indice_pairs design (mluOpGetIndicePairs)
  // divides by 48 for one core's share.
  m.clusters = 12;
  m.coresPerCluster = 4;
  m.clockGHz = 1.5;
  m.vectorBytes = 512 * 1024; // NRAM
  m.cubeBytes = 512 * 1024;   // WRAM
  m.sharedBytes = 4 * 1024 * 1024;
  m.globalGBps = 2765;               // mlu-ops' figure for MLU590.
  m.globalBytes = int64_t(48) << 30; // Assumption: 48 GiB of HBM.
  m.dmaGBps = 2765.0 / 48 * 2;       // A core may draw twice its fair share.
  m.dmaL2ReadGBps = m.dmaL2WriteGBps = m.dmaGBps; // Assumption: the same.
  m.dmaLatencyCycles = 300;
  m.dmaBurstBytes = 64;     // Assumption: a 64-byte memory transaction.
  m.dmaMaxOutstanding = 16; // Assumption (docs/device-model.md).
  // Assumptions (docs/device-model.md): an L2 a quarter of the 910B's,
  // three times the HBM bandwidth.
  m.l2Bytes = int64_t(48) << 20;
  m.l2LineBytes = 128;
  m.l2Ways = 16;
  m.l2GBps = 3 * 2765;
  m.l2LatencyCycles = 150;
  // 14.7 TFLOPS f32 (mlu-ops' figure for MLU590) over 48 cores at 1.5 GHz:
  // ~204 flop/cycle, ~102 f32 elements/cycle for a binary op, i.e. ~408
  // bytes/cycle.
  m.vectorBytesPerCycle = 408;
  m.vectorIssueCycles = 16;
  m.cubeMacsPerCycle = 2048;
  m.scalarCycles = 1;
  // Calibrated: mluOpUnique of 4,025,700 int32 measured on MLU590 at
  // 4,614 us (mlu-ops' get_indice_pairs design).
  // The sort strategy of get_indice_pairs does that unique (tile sort,
  // merge passes, run count, scan), and its merge-path co-rank searches
  // are bound by scalar loads of global memory (docs/device-model.md).
  m.globalLoadCycles = 481;
  return m;
}

static DeviceModel makeAscend910B() {
  DeviceModel m;
  m.name = "ascend910b";
  // 24 AI cores, each one AIC (cube core: L1 and L0A/L0B/L0C buffers) and
  // two AIV (vector cores: a unified buffer), which share data only through
  // global memory (and L2).
  m.clusters = 24;
  m.coresPerCluster = 2;
  m.cubeCoresPerCluster = 1;
  m.clockGHz = 1.8;
  m.vectorBytes = 192 * 1024; // UB per AIV.
  m.cubeBytes = 512 * 1024;   // L1 per AIC.
  m.sharedBytes = 0;          // No cluster scratch: exchange through L2/HBM.
  m.globalGBps = 1600;        // HBM2e.
  m.globalBytes = int64_t(64) << 30; // 64 GiB of HBM2e.
  // CANN's platform description of the 910B2 (Ascend910B2.ini,
  // [AICoreMemoryRates]) gives one core's rates in bytes per cycle: 32
  // from DDR, 110 reading and 86 writing through the L2.
  m.dmaGBps = 32 * 1.8;
  m.dmaL2ReadGBps = 110 * 1.8;
  m.dmaL2WriteGBps = 86 * 1.8;
  // CANN's pipe types: copies in (MTE2) and out (MTE3 from the vector
  // core's UB, FIXPIPE from the cube's L0C) are queues of their own, which
  // run in parallel.
  m.dmaOutEngine = 1;
  m.dmaLatencyCycles = 500;
  // The 910 generation accesses global memory in 512-byte units (128 on
  // the 950, Huawei's Ascend roadmap): an indexed row costs at least that.
  m.dmaBurstBytes = 512;
  m.dmaMaxOutstanding = 16; // Assumption (docs/device-model.md).
  // CANN's L2 cache tiling guide: 192 MB of L2 at about 7 TB/s mixed
  // read/write, against about 1.6 TB/s of HBM. Line, ways and latency
  // are assumptions.
  m.l2Bytes = int64_t(192) << 20;
  m.l2LineBytes = 512;
  m.l2Ways = 16;
  m.l2GBps = 7000;
  m.l2LatencyCycles = 250;
  m.vectorBytesPerCycle = 256; // 128 f16 / 64 f32 lanes.
  m.vectorIssueCycles = 8;
  m.cubeMacsPerCycle = 4096; // 16x16x16 f16 fractal per cycle.
  m.scalarCycles = 1;
  m.globalLoadCycles = 500; // Assumption: the DMA latency.
  return m;
}

/// A cache's size in bytes as sysconf reports it (`name`), else `fallback`.
static int64_t getCacheBytes(int name, int64_t fallback) {
  long bytes = sysconf(name);
  return bytes > 0 ? bytes : fallback;
}

DeviceModel DeviceModel::getHost() {
  DeviceModel m = makeMLU590();
  m.name = "host";
  m.clusters = 1;
  m.coresPerCluster = std::max(1u, std::thread::hardware_concurrency());
  // A quarter of a core's L2: a kernel's two tile slots and its other
  // buffers stay in L2 while a tile is computed and written back.
#ifdef _SC_LEVEL2_CACHE_SIZE
  int64_t l2 = getCacheBytes(_SC_LEVEL2_CACHE_SIZE, 512 * 1024);
  int64_t llc = getCacheBytes(_SC_LEVEL3_CACHE_SIZE, l2 * m.coresPerCluster);
#else
  int64_t l2 = 512 * 1024, llc = l2 * m.coresPerCluster;
#endif
  m.vectorBytes = m.cubeBytes = l2 / 4;
  m.sharedBytes = m.l2Bytes = llc;
  long pages = sysconf(_SC_PHYS_PAGES), pageBytes = sysconf(_SC_PAGESIZE);
  if (pages > 0 && pageBytes > 0)
    m.globalBytes = int64_t(pages) * pageBytes;
  return m;
}

ArrayRef<DeviceModel> DeviceModel::getPresets() {
  // The first is the default.
  static const DeviceModel presets[] = {makeMLU590(), makeAscend910B()};
  return presets;
}

const DeviceModel &DeviceModel::getDefault() { return getPresets().front(); }

llvm::Expected<DeviceModel> DeviceModel::getPreset(StringRef name) {
  for (const DeviceModel &m : getPresets())
    if (m.name == name)
      return m;
  if (name == "host")
    return getHost();
  std::string known;
  for (const DeviceModel &m : getPresets())
    known += m.name + ", ";
  known += "host";
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unknown device preset '" + name +
                                     "' (known: " + known + ")");
}

int64_t DeviceModel::getCapacity(MemorySpace space) const {
  switch (space) {
  case MemorySpace::global:
    return -1;
  case MemorySpace::vector:
    return vectorBytes;
  case MemorySpace::cube:
    return cubeBytes;
  case MemorySpace::shared:
    return sharedBytes;
  }
  llvm_unreachable("unknown memory space");
}

unsigned DeviceModel::getNumCores(CoreKind kind) const {
  if (!hasSplitCores())
    return getNumCores();
  switch (kind) {
  case CoreKind::unified:
    return 0;
  case CoreKind::vector:
    return getNumCores();
  case CoreKind::cube:
    return clusters * cubeCoresPerCluster;
  }
  llvm_unreachable("unknown core kind");
}

double
DeviceModel::getPeakVectorElementsPerSecond(unsigned elementBytes) const {
  return vectorBytesPerCycle / elementBytes * clockGHz * 1e9 * getNumCores();
}

//===----------------------------------------------------------------------===//
// Descriptions: one table of fields for reading, validating and writing
//===----------------------------------------------------------------------===//

namespace {
/// One numeric field of a description: its key, whether it must be an
/// integer, its inclusive range, and how to reach it in the model.
struct Field {
  StringRef key;
  bool integer;
  double min, max;
  double (*get)(const DeviceModel &);
  void (*set)(DeviceModel &, double);
};
} // namespace

#define NPU_DEVICE_FIELD(KEY, MEMBER, INTEGER, MIN, MAX)                       \
  Field {                                                                      \
    KEY, INTEGER, MIN, MAX,                                                    \
        [](const DeviceModel &m) { return static_cast<double>(m.MEMBER); },    \
        [](DeviceModel &m, double v) {                                         \
          m.MEMBER = static_cast<decltype(m.MEMBER)>(v);                       \
        }                                                                      \
  }

/// 2^40 bytes: a terabyte of on-chip memory is beyond any device, and
/// capacities times core counts stay far inside int64_t.
constexpr double kMaxBytes = 1099511627776.0;
/// 2^49 bytes (512 TiB) of global memory.
constexpr double kMaxGlobalBytes = 562949953421312.0;
/// Cores in all: clusters x cores_per_cluster stays within unsigned and
/// within what the simulator schedules.
constexpr int64_t kMaxCores = 65536;

// Zero is allowed only where the model survives it: no shared or cube
// memory, no DMA latency, free instruction issue, free scalar ops.
static const Field kFields[] = {
    NPU_DEVICE_FIELD("clusters", clusters, true, 1, kMaxCores),
    NPU_DEVICE_FIELD("cores_per_cluster", coresPerCluster, true, 1, kMaxCores),
    NPU_DEVICE_FIELD("cube_cores_per_cluster", cubeCoresPerCluster, true, 0,
                     kMaxCores),
    NPU_DEVICE_FIELD("clock_ghz", clockGHz, false, 0.001, 100),
    NPU_DEVICE_FIELD("vector_bytes", vectorBytes, true, 1, kMaxBytes),
    NPU_DEVICE_FIELD("cube_bytes", cubeBytes, true, 0, kMaxBytes),
    NPU_DEVICE_FIELD("shared_bytes", sharedBytes, true, 0, kMaxBytes),
    NPU_DEVICE_FIELD("dma_gbps", dmaGBps, false, 0.001, 1e6),
    NPU_DEVICE_FIELD("dma_latency_cycles", dmaLatencyCycles, false, 0, 1e9),
    NPU_DEVICE_FIELD("dma_l2_read_gbps", dmaL2ReadGBps, false, 0.001, 1e6),
    NPU_DEVICE_FIELD("dma_l2_write_gbps", dmaL2WriteGBps, false, 0.001, 1e6),
    NPU_DEVICE_FIELD("dma_out_engine", dmaOutEngine, true, 0, 1),
    NPU_DEVICE_FIELD("dma_burst_bytes", dmaBurstBytes, true, 1, 1 << 20),
    NPU_DEVICE_FIELD("dma_max_outstanding", dmaMaxOutstanding, true, 1,
                     1 << 20),
    NPU_DEVICE_FIELD("global_gbps", globalGBps, false, 0.001, 1e6),
    NPU_DEVICE_FIELD("l2_bytes", l2Bytes, true, 0, kMaxBytes),
    NPU_DEVICE_FIELD("l2_line_bytes", l2LineBytes, true, 1, 1 << 20),
    NPU_DEVICE_FIELD("l2_ways", l2Ways, true, 1, 1 << 16),
    NPU_DEVICE_FIELD("l2_gbps", l2GBps, false, 0.001, 1e6),
    NPU_DEVICE_FIELD("l2_latency_cycles", l2LatencyCycles, false, 0, 1e9),
    NPU_DEVICE_FIELD("global_bytes", globalBytes, true, 1, kMaxGlobalBytes),
    NPU_DEVICE_FIELD("vector_bytes_per_cycle", vectorBytesPerCycle, false,
                     0.001, 1e9),
    NPU_DEVICE_FIELD("vector_issue_cycles", vectorIssueCycles, false, 0, 1e9),
    NPU_DEVICE_FIELD("cube_macs_per_cycle", cubeMacsPerCycle, false, 0.001,
                     1e12),
    NPU_DEVICE_FIELD("scalar_cycles", scalarCycles, false, 0, 1e6),
    NPU_DEVICE_FIELD("global_load_cycles", globalLoadCycles, false, 0, 1e9),
};
#undef NPU_DEVICE_FIELD

static llvm::Error describeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "device description: " + message);
}

/// `v` as a person writes it: 1.5, 0.001, 65536, 1e+15.
static std::string formatNumber(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.15g", v);
  return text;
}

/// The value of `field` in `value`, or an error naming the field.
static llvm::Expected<double> readField(const Field &field,
                                        const llvm::json::Value &value) {
  std::optional<double> number = value.getAsNumber();
  if (!number)
    return describeError("field '" + field.key + "' must be a number");
  if (field.integer && !value.getAsInteger())
    return describeError("field '" + field.key + "' must be an integer, got " +
                         formatNumber(*number));
  if (*number < field.min || *number > field.max)
    return describeError(
        "field '" + field.key + "' must be between " + formatNumber(field.min) +
        " and " + formatNumber(field.max) + ", got " + formatNumber(*number));
  return *number;
}

llvm::Expected<DeviceModel>
DeviceModel::fromJSON(const llvm::json::Object &object) {
  // Unknown keys first, in sorted order so the message is deterministic.
  std::vector<std::string> keys;
  for (const auto &entry : object)
    keys.push_back(entry.first.str());
  llvm::sort(keys);
  for (const std::string &key : keys)
    if (key != "name" && key != "base" &&
        llvm::none_of(kFields, [&](const Field &f) { return f.key == key; }))
      return describeError("unknown field '" + key + "'");

  const llvm::json::Value *base = object.get("base");
  if (base && !base->getAsString())
    return describeError("field 'base' must be a preset name");
  llvm::Expected<DeviceModel> model =
      base ? getPreset(*base->getAsString()) : getDefault();
  if (!model)
    return model.takeError();
  if (const llvm::json::Value *name = object.get("name")) {
    if (!name->getAsString())
      return describeError("field 'name' must be a string");
    model->name = name->getAsString()->str();
  }
  for (const Field &field : kFields) {
    const llvm::json::Value *value = object.get(field.key);
    if (!value)
      continue;
    llvm::Expected<double> number = readField(field, *value);
    if (!number)
      return number.takeError();
    field.set(*model, *number);
  }
  int64_t cores = int64_t(model->clusters) *
                  (model->coresPerCluster + model->cubeCoresPerCluster);
  if (cores > kMaxCores)
    return describeError("clusters x (cores_per_cluster + "
                         "cube_cores_per_cluster) is " +
                         llvm::Twine(cores) + " cores, more than " +
                         llvm::Twine(kMaxCores));
  return model;
}

void DeviceModel::forEachField(
    llvm::function_ref<void(StringRef, bool, double)> fn) const {
  for (const Field &field : kFields)
    fn(field.key, field.integer, field.get(*this));
}

llvm::json::Object DeviceModel::toJSON() const {
  llvm::json::Object object;
  object["name"] = name;
  forEachField([&](StringRef key, bool integer, double value) {
    if (integer)
      object[key] = static_cast<int64_t>(value);
    else
      object[key] = value;
  });
  return object;
}

std::optional<std::string>
DeviceModel::findDifference(const DeviceModel &other) const {
  if (name != other.name)
    return std::string("name");
  for (const Field &field : kFields)
    if (field.get(*this) != field.get(other))
      return field.key.str();
  return std::nullopt;
}

llvm::Expected<DeviceModel> DeviceModel::parseJSON(StringRef text) {
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json)
    return json.takeError();
  const llvm::json::Object *object = json->getAsObject();
  if (!object)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "device description must be an object");
  return fromJSON(*object);
}

llvm::Expected<DeviceModel> DeviceModel::load(StringRef presetOrPath) {
  if (!presetOrPath.ends_with(".json"))
    return getPreset(presetOrPath);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(presetOrPath);
  if (!file)
    return llvm::createStringError(file.getError(),
                                   "cannot read device description '" +
                                       presetOrPath + "'");
  llvm::Expected<DeviceModel> model = parseJSON((*file)->getBuffer());
  if (model)
    return model;
  // Name the file: "device description 'f.json': field ...", and say that
  // a truncated or mistyped file is no JSON at all.
  std::string reason = llvm::toString(model.takeError());
  StringRef rest(reason);
  std::string named = ("device description '" + presetOrPath + "'").str();
  if (rest.consume_front("device description: "))
    named += ": " + rest.str();
  else if (rest.consume_front("device description "))
    named += " " + rest.str();
  else
    named += " is not valid JSON: " + reason;
  return llvm::createStringError(llvm::inconvertibleErrorCode(), named);
}
