//===- DeviceModel.cpp - presets and JSON descriptions --------------------===//
//
// Presets are "-like": figures a kernel engineer would plan with, taken from
// the design notes and public material where they exist and stated as
// assumptions otherwise (docs/device-model.md gives each source).
//
//===----------------------------------------------------------------------===//

#include "npu/Device/DeviceModel.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace npu;
using llvm::ArrayRef;
using llvm::StringRef;

static DeviceModel makeMLU590() {
  DeviceModel m;
  m.name = "mlu590";
  m.clusters = 12; // 48 cores: seed 000 divides by 48 for one core's share.
  m.coresPerCluster = 4;
  m.clockGHz = 1.5;
  m.vectorBytes = 512 * 1024; // NRAM
  m.cubeBytes = 512 * 1024;   // WRAM
  m.sharedBytes = 4 * 1024 * 1024;
  m.globalGBps = 2765;         // Seed 000.
  m.dmaGBps = 2765.0 / 48 * 2; // A core may draw twice its fair share.
  m.dmaLatencyCycles = 300;
  // 14.7 TFLOPS f32 (seed 000) over 48 cores at 1.5 GHz: ~204 flop/cycle,
  // ~102 f32 elements/cycle for a binary op, i.e. ~408 bytes/cycle.
  m.vectorBytesPerCycle = 408;
  m.vectorIssueCycles = 16;
  m.cubeMacsPerCycle = 2048;
  m.scalarCycles = 1;
  return m;
}

static DeviceModel makeAscend910B() {
  DeviceModel m;
  m.name = "ascend910b";
  m.clusters = 24; // 24 AI cores, each one AIC (cube) + two AIV (vector).
  m.coresPerCluster = 2;
  m.clockGHz = 1.8;
  m.vectorBytes = 192 * 1024; // UB per AIV.
  m.cubeBytes = 512 * 1024;   // L1 per AIC.
  m.sharedBytes = 0;          // No cluster scratch: exchange through L2/HBM.
  m.globalGBps = 1600;        // HBM2e.
  m.dmaGBps = 1600.0 / 48 * 2;
  m.dmaLatencyCycles = 500;
  m.vectorBytesPerCycle = 256; // 128 f16 / 64 f32 lanes.
  m.vectorIssueCycles = 8;
  m.cubeMacsPerCycle = 4096; // 16x16x16 f16 fractal per cycle.
  m.scalarCycles = 1;
  return m;
}

ArrayRef<DeviceModel> DeviceModel::getPresets() {
  static const DeviceModel presets[] = {makeMLU590(), makeAscend910B()};
  return presets;
}

llvm::Expected<DeviceModel> DeviceModel::getPreset(StringRef name) {
  for (const DeviceModel &m : getPresets())
    if (m.name == name)
      return m;
  std::string known;
  for (const DeviceModel &m : getPresets())
    known += (known.empty() ? "" : ", ") + m.name;
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unknown device preset '" + name +
                                     "' (known: " + known + ")");
}

int64_t DeviceModel::getCapacity(DeviceMemorySpace space) const {
  switch (space) {
  case DeviceMemorySpace::Global:
    return -1;
  case DeviceMemorySpace::Vector:
    return vectorBytes;
  case DeviceMemorySpace::Cube:
    return cubeBytes;
  case DeviceMemorySpace::Shared:
    return sharedBytes;
  }
  llvm_unreachable("unknown memory space");
}

double
DeviceModel::getPeakVectorElementsPerSecond(unsigned elementBytes) const {
  return vectorBytesPerCycle / elementBytes * clockGHz * 1e9 * getNumCores();
}

namespace {
/// Reads the optional numeric fields of a JSON object into a model.
class FieldReader {
public:
  FieldReader(const llvm::json::Object &object, llvm::json::Path path)
      : object(object), path(path) {}

  template <typename T> void read(StringRef key, T &field) {
    const llvm::json::Value *value = object.get(key);
    if (!value)
      return;
    std::optional<double> number = value->getAsNumber();
    if (!number || *number < 0) {
      path.field(key).report("expected a non-negative number");
      ok = false;
      return;
    }
    field = static_cast<T>(*number);
  }

  bool ok = true;

private:
  const llvm::json::Object &object;
  llvm::json::Path path;
};
} // namespace

llvm::Expected<DeviceModel> DeviceModel::parseJSON(StringRef text) {
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(text);
  if (!json)
    return json.takeError();
  const llvm::json::Object *object = json->getAsObject();
  if (!object)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "device description must be an object");
  StringRef base = object->getString("base").value_or("mlu590");
  llvm::Expected<DeviceModel> model = getPreset(base);
  if (!model)
    return model.takeError();
  model->name = object->getString("name").value_or(model->name).str();

  llvm::json::Path::Root root("device");
  FieldReader r(*object, root);
  r.read("clusters", model->clusters);
  r.read("cores_per_cluster", model->coresPerCluster);
  r.read("clock_ghz", model->clockGHz);
  r.read("vector_bytes", model->vectorBytes);
  r.read("cube_bytes", model->cubeBytes);
  r.read("shared_bytes", model->sharedBytes);
  r.read("dma_gbps", model->dmaGBps);
  r.read("dma_latency_cycles", model->dmaLatencyCycles);
  r.read("global_gbps", model->globalGBps);
  r.read("vector_bytes_per_cycle", model->vectorBytesPerCycle);
  r.read("vector_issue_cycles", model->vectorIssueCycles);
  r.read("cube_macs_per_cycle", model->cubeMacsPerCycle);
  r.read("scalar_cycles", model->scalarCycles);
  if (!r.ok)
    return root.getError();
  if (model->clusters == 0 || model->coresPerCluster == 0 ||
      model->clockGHz <= 0 || model->dmaGBps <= 0 || model->globalGBps <= 0 ||
      model->vectorBytesPerCycle <= 0)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "device '" + model->name +
            "': clusters, cores_per_cluster, clock_ghz, dma_gbps, "
            "global_gbps and vector_bytes_per_cycle must be positive");
  return model;
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
  return parseJSON((*file)->getBuffer());
}
