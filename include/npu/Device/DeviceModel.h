//===- DeviceModel.h - what an NPU looks like to the compiler ---*- C++ -*-===//
//
// The figures the lowerings size their tiles from and the simulator times
// kernels with: cores, on-chip memory per space, DMA and global memory
// bandwidth, vector and cube throughput, clock. Built-in presets, or a JSON
// description (docs/device-model.md), validated field by field. A lowered
// module carries its device as the attribute `npudev.device`
// (npu/Dialect/NPUDev/DeviceAttr.h), written from toJSON and read back
// through fromJSON, so every reader applies the same rules.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DEVICE_DEVICEMODEL_H
#define NPU_DEVICE_DEVICEMODEL_H

#include "npu/Device/DeviceEnums.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <string>

namespace npu {

struct DeviceModel {
  std::string name;
  /// Compute topology: `clusters` of `coresPerCluster` cores each. With
  /// `cubeCoresPerCluster` zero every core has a vector and a matrix unit
  /// (unified); otherwise the `coresPerCluster` cores are vector cores and
  /// each cluster also has `cubeCoresPerCluster` cube cores, each with
  /// only the matrix unit and cube memory.
  unsigned clusters = 1;
  unsigned coresPerCluster = 1;
  unsigned cubeCoresPerCluster = 0;
  double clockGHz = 1.0;
  /// On-chip capacity in bytes: vector and cube per core, shared per
  /// cluster.
  int64_t vectorBytes = 0;
  int64_t cubeBytes = 0;
  int64_t sharedBytes = 0;
  /// One core's DMA engine: bandwidth (GB/s) for bytes HBM serves, and
  /// fixed latency (cycles).
  double dmaGBps = 0;
  double dmaLatencyCycles = 0;
  /// One core's DMA bandwidth (GB/s) for bytes the L2 serves, reading and
  /// writing.
  double dmaL2ReadGBps = 0;
  double dmaL2WriteGBps = 0;
  /// Whether copies into global memory run on an engine of their own, in
  /// parallel with the copies out of it (1), or on the same one (0).
  int64_t dmaOutEngine = 0;
  /// The smallest transaction the DMA engine makes with global memory:
  /// an indexed copy (gather, scatter) moves each row in whole bursts.
  int64_t dmaBurstBytes = 1;
  /// Requests one core's DMA engine keeps in flight: an indexed copy
  /// issues a request per row, so its rows take at least
  /// dmaLatencyCycles / dmaMaxOutstanding cycles each.
  int64_t dmaMaxOutstanding = 1;
  /// Global memory bandwidth shared by all cores (GB/s).
  double globalGBps = 0;
  /// The L2 shared by every core between global memory and the DMA
  /// engines: capacity (0: none, every global byte crosses HBM), line,
  /// ways per set (least recently used replaced), aggregate bandwidth
  /// (GB/s) and the latency of a copy it serves whole.
  int64_t l2Bytes = 0;
  int64_t l2LineBytes = 128;
  int64_t l2Ways = 16;
  double l2GBps = 1;
  double l2LatencyCycles = 0;
  /// Global memory capacity in bytes: what lowerings plan workspaces
  /// against (allocations are not checked against it).
  int64_t globalBytes = 0;
  /// Vector unit: bytes of operands processed per cycle per core, and the
  /// fixed cycles of issuing one vector instruction.
  double vectorBytesPerCycle = 0;
  double vectorIssueCycles = 0;
  /// Matrix unit: multiply-accumulates per cycle per core (f16 inputs; f32
  /// inputs run at half that rate).
  double cubeMacsPerCycle = 0;
  /// Scalar unit: cycles per scalar (arith, control) op.
  double scalarCycles = 1;
  /// Scalar unit: cycles of one load or store of an element of global
  /// memory (no cache on the path).
  double globalLoadCycles = 0;

  /// The unified cores, or the vector cores of a split device.
  unsigned getNumCores() const { return clusters * coresPerCluster; }
  /// One core's DMA bandwidth (GB/s) for a copy that reads (or, with
  /// `write`, writes) global memory through the L2 (`throughL2`) or HBM.
  double getDmaGBps(bool throughL2, bool write) const {
    if (!throughL2)
      return dmaGBps;
    return write ? dmaL2WriteGBps : dmaL2ReadGBps;
  }
  /// Whether vector and cube units sit on cores of their own.
  bool hasSplitCores() const { return cubeCoresPerCluster != 0; }
  /// The cores that run a launch `on kind`: every core of a unified device
  /// (its cores have both units), the cores of that kind on a split device
  /// (none for `unified`).
  unsigned getNumCores(CoreKind kind) const;
  /// Capacity of `space` for one core (vector, cube) or cluster (shared);
  /// -1 for global memory (unbounded here).
  int64_t getCapacity(MemorySpace space) const;
  /// Peak vector throughput over the whole device, in elements per second,
  /// for elements of `elementBytes`.
  double getPeakVectorElementsPerSecond(unsigned elementBytes) const;

  /// The built-in presets, by name: "mlu590" and "ascend910b".
  static llvm::ArrayRef<DeviceModel> getPresets();
  /// The device of a module that names none and of a description without
  /// "base": the mlu590 preset.
  static const DeviceModel &getDefault();
  /// The machine this process runs on, as a device to build the JIT's
  /// kernels for ("host"): mlu590's structure and timing, one unified core
  /// per hardware thread, vector and cube memory a quarter of a core's L2,
  /// shared memory and L2 the last-level cache, global memory the RAM.
  /// Unlike the presets it differs from machine to machine.
  static DeviceModel getHost();
  /// A preset by name ("host": getHost()), or an error naming the known
  /// ones.
  static llvm::Expected<DeviceModel> getPreset(llvm::StringRef name);
  /// Reads a description (see docs/device-model.md): "name", "base" (the
  /// preset the other fields default to, getDefault() if absent) and the
  /// numeric fields. An error names the field: an unknown key, a
  /// non-number, a fraction where an integer is due, a value out of its
  /// range, or a core
  /// count (clusters x cores_per_cluster) above 65536.
  static llvm::Expected<DeviceModel> fromJSON(const llvm::json::Object &object);
  /// fromJSON of the text of a JSON object.
  static llvm::Expected<DeviceModel> parseJSON(llvm::StringRef text);
  /// A preset name, or the path of a JSON description.
  static llvm::Expected<DeviceModel> load(llvm::StringRef presetOrPath);
  /// Every field, "name" first: fromJSON(toJSON()) gives this model back.
  llvm::json::Object toJSON() const;
  /// Calls `fn(key, isInteger, value)` for each numeric field, in the
  /// description's order.
  void forEachField(
      llvm::function_ref<void(llvm::StringRef, bool, double)> fn) const;

  /// The first field (in the description's order, "name" first) whose
  /// value differs in `other`, if any.
  std::optional<std::string> findDifference(const DeviceModel &other) const;
  bool operator==(const DeviceModel &other) const {
    return !findDifference(other);
  }
  bool operator!=(const DeviceModel &other) const { return !(*this == other); }
};

} // namespace npu

#endif // NPU_DEVICE_DEVICEMODEL_H
