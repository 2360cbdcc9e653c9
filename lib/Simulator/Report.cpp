//===- Report.cpp - simulation report and Chrome trace --------------------===//

#include "npu/Simulator/Simulator.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

using namespace npu;
using namespace npu::sim;

void SimulationReport::print(llvm::raw_ostream &os,
                             const DeviceModel &device) const {
  os << "device:              " << device.name << " ("
     << device.getNumCores(dev::CoreKind::vector)
     << (device.hasSplitCores() ? " vector + " : "");
  if (device.hasSplitCores())
    os << device.getNumCores(dev::CoreKind::cube) << " cube";
  os << " cores, " << llvm::format("%.2f", device.clockGHz) << " GHz)\n";
  os << "cores used:          " << coresUsed << "\n";
  os << "cycles:              " << llvm::format("%.0f", cycles) << "\n";
  os << "time:                " << llvm::format("%.3f", seconds * 1e6)
     << " us\n";
  for (unsigned p = 0; p < kNumPipes; ++p)
    os << "busy " << llvm::left_justify(getPipeName(static_cast<Pipe>(p)), 7)
       << "        " << llvm::format("%.0f", pipeBusyCycles[p])
       << " cycles (all cores)\n";
  os << "global bytes moved:  " << globalBytes << "\n";
  os << "vector bytes:        " << llvm::format("%.0f", vectorBytes) << "\n";
  os << "cube MACs:           " << llvm::format("%.0f", cubeMacs) << "\n";
  static const char *spaces[] = {"global", "vector", "cube", "shared"};
  for (unsigned s = 1; s < 4; ++s)
    os << "peak " << llvm::left_justify(spaces[s], 7) << "        "
       << peakBytes[s] << " bytes per core\n";
  os << "io efficiency:       " << llvm::format("%.1f%%", 100 * ioEfficiency)
     << "\n";
  os << "compute efficiency:  "
     << llvm::format("%.1f%%", 100 * computeEfficiency) << "\n";
  os << "cube utilisation:    " << llvm::format("%.1f%%", 100 * cubeUtilization)
     << "\n";
  if (stepCycles.size() < 2)
    return;
  os << "time by step:\n";
  for (const auto &[name, stepTime] : stepCycles)
    os << "  " << llvm::left_justify(name, 28)
       << llvm::format("%10.3f us  %5.1f%%\n",
                       stepTime / (device.clockGHz * 1e3),
                       cycles > 0 ? 100 * stepTime / cycles : 0.0);
}

std::string npu::sim::getCoreName(const DeviceModel &device, unsigned core) {
  if (!device.hasSplitCores())
    return "core " + std::to_string(core);
  unsigned vectorCores = device.getNumCores(dev::CoreKind::vector);
  if (core < vectorCores)
    return "vector core " + std::to_string(core);
  return "cube core " + std::to_string(core - vectorCores);
}

void npu::sim::writeChromeTrace(llvm::ArrayRef<TraceEvent> events,
                                const DeviceModel &device,
                                llvm::raw_ostream &os) {
  double cyclesPerMicrosecond = device.clockGHz * 1e3;
  llvm::json::OStream json(os);
  json.object([&] {
    json.attribute("displayTimeUnit", "ns");
    json.attributeArray("traceEvents", [&] {
      // Name the processes (cores) and threads (pipes).
      unsigned cores = 0;
      for (const TraceEvent &e : events)
        cores = std::max(cores, e.core + 1);
      for (unsigned c = 0; c < cores; ++c) {
        json.object([&] {
          json.attribute("name", "process_name");
          json.attribute("ph", "M");
          json.attribute("pid", c);
          json.attributeObject(
              "args", [&] { json.attribute("name", getCoreName(device, c)); });
        });
        for (unsigned p = 0; p < kNumPipes; ++p)
          json.object([&] {
            json.attribute("name", "thread_name");
            json.attribute("ph", "M");
            json.attribute("pid", c);
            json.attribute("tid", p);
            json.attributeObject("args", [&] {
              json.attribute("name", getPipeName(static_cast<Pipe>(p)));
            });
          });
      }
      for (const TraceEvent &e : events)
        json.object([&] {
          json.attribute("name", e.name);
          json.attribute("ph", "X");
          json.attribute("pid", e.core);
          json.attribute("tid", static_cast<unsigned>(e.pipe));
          json.attribute("ts", e.startCycle / cyclesPerMicrosecond);
          json.attribute("dur", e.cycles / cyclesPerMicrosecond);
        });
    });
  });
  os << "\n";
}
