//===- DeviceModel.h - what an NPU looks like to the compiler ---*- C++ -*-===//
//
// The figures the lowerings size their tiles from and the simulator times
// kernels with: cores, on-chip memory per space, DMA and global memory
// bandwidth, vector and cube throughput, clock. Built-in presets, or a JSON
// description (docs/device-model.md).
//
//===----------------------------------------------------------------------===//

#ifndef NPU_DEVICE_DEVICEMODEL_H
#define NPU_DEVICE_DEVICEMODEL_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace npu {

/// The memory spaces of a device. Numbering is shared with the npudev
/// dialect's MemorySpace enum.
enum class DeviceMemorySpace : uint32_t {
  Global = 0, ///< GDRAM / HBM, shared by all cores.
  Vector = 1, ///< Per-core scratch for vector ops (NRAM / UB).
  Cube = 2,   ///< Per-core buffer feeding the matrix unit (WRAM / L1).
  Shared = 3, ///< Per-cluster shared scratch (SRAM).
};

struct DeviceModel {
  std::string name;
  /// Compute topology.
  unsigned clusters = 1;
  unsigned coresPerCluster = 1;
  double clockGHz = 1.0;
  /// On-chip capacity in bytes: vector and cube per core, shared per
  /// cluster.
  int64_t vectorBytes = 0;
  int64_t cubeBytes = 0;
  int64_t sharedBytes = 0;
  /// One core's DMA engine: bandwidth (GB/s) and fixed latency (cycles).
  double dmaGBps = 0;
  double dmaLatencyCycles = 0;
  /// Global memory bandwidth shared by all cores (GB/s).
  double globalGBps = 0;
  /// Vector unit: bytes of operands processed per cycle per core, and the
  /// fixed cycles of issuing one vector instruction.
  double vectorBytesPerCycle = 0;
  double vectorIssueCycles = 0;
  /// Matrix unit: multiply-accumulates per cycle per core (f16 inputs; f32
  /// inputs run at half that rate).
  double cubeMacsPerCycle = 0;
  /// Scalar unit: cycles per scalar (arith, control) op.
  double scalarCycles = 1;

  unsigned getNumCores() const { return clusters * coresPerCluster; }
  /// Capacity of `space` for one core (vector, cube) or cluster (shared);
  /// -1 for global memory (unbounded here).
  int64_t getCapacity(DeviceMemorySpace space) const;
  /// Peak vector throughput over the whole device, in elements per second,
  /// for elements of `elementBytes`.
  double getPeakVectorElementsPerSecond(unsigned elementBytes) const;

  /// The built-in presets, by name: "mlu590" and "ascend910b".
  static llvm::ArrayRef<DeviceModel> getPresets();
  /// A preset by name, or an error naming the known ones.
  static llvm::Expected<DeviceModel> getPreset(llvm::StringRef name);
  /// Parses a JSON description (see docs/device-model.md); fields not given
  /// keep the value of the preset named by "base", or of "mlu590".
  static llvm::Expected<DeviceModel> parseJSON(llvm::StringRef text);
  /// A preset name, or the path of a JSON description.
  static llvm::Expected<DeviceModel> load(llvm::StringRef presetOrPath);
};

} // namespace npu

#endif // NPU_DEVICE_DEVICEMODEL_H
