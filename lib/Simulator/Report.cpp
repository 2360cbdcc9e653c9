//===- Report.cpp - simulation report and Chrome trace --------------------===//

#include "npu/Simulator/Simulator.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

using namespace npu;
using namespace npu::sim;

void SimulationReport::print(llvm::raw_ostream &os, const DeviceModel &device,
                             unsigned layerCount) const {
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
  os << "hbm bytes:           " << hbmBytes << "\n";
  if (device.l2Bytes != 0) {
    int64_t lines = l2Hits + l2Misses;
    os << "l2 lines:            " << l2Hits << " hit, " << l2Misses
       << " missed ("
       << llvm::format("%.1f%%", lines ? 100.0 * l2Hits / lines : 0.0)
       << " hits), " << l2Writebacks << " written back; " << l2DirtyBytes
       << " bytes dirty at the end\n";
  }
  os << "vector bytes:        " << llvm::format("%.0f", vectorBytes) << "\n";
  os << "cube MACs:           " << llvm::format("%.0f", cubeMacs) << "\n";
  os << "peak global         " << peakGlobalBytes
     << " bytes allocated (arguments aside)\n";
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
  double cyclesPerMicrosecond = device.clockGHz * 1e3;
  os << "roofline:            "
     << llvm::format("%.3f us bound, %.1f%% of the time\n",
                     boundCycles / cyclesPerMicrosecond, 100 * rooflineRatio);
  if (steps.empty())
    return;
  // A step's roofline ratio is its bound over its modelled time; its limit
  // is the resource the bound comes from.
  size_t width = 28;
  for (const Step &step : steps)
    width = std::max(width, step.name.size() + 1);
  os << "time by step:" << std::string(width - 2, ' ')
     << "time  share       bound  roofline  limit    l2 hits\n";
  for (const Step &step : steps) {
    os << "  " << llvm::left_justify(step.name, width)
       << llvm::format("%10.3f us  %5.1f%%  %10.3f us  %6.1f%%  ",
                       step.cycles / cyclesPerMicrosecond,
                       cycles > 0 ? 100 * step.cycles / cycles : 0.0,
                       step.boundCycles / cyclesPerMicrosecond,
                       step.cycles > 0 ? 100 * step.boundCycles / step.cycles
                                       : 0.0)
       << llvm::left_justify(step.getLimit(), 7);
    int64_t lines = step.l2Hits + step.l2Misses;
    if (lines)
      os << llvm::format("%6.1f%%", 100.0 * step.l2Hits / lines);
    os << "\n";
  }
  printSlowestLayers(os, device, layerCount);
}

void SimulationReport::printSlowestLayers(llvm::raw_ostream &os,
                                          const DeviceModel &device,
                                          unsigned count) const {
  if (layers.size() < 2)
    return;
  // Slowest first; equal times keep the order of first launch.
  std::vector<const Layer *> order;
  for (const Layer &layer : layers)
    order.push_back(&layer);
  llvm::stable_sort(order, [](const Layer *a, const Layer *b) {
    return a->cycles > b->cycles;
  });
  if (count != 0)
    order.resize(std::min<size_t>(order.size(), count));
  size_t width = 28;
  for (const Layer *layer : order)
    width = std::max(width, layer->name.size() + 1);
  double cyclesPerMicrosecond = device.clockGHz * 1e3;
  // The column heads sit over the figures as in "time by step".
  std::string head = "slowest layers (" + std::to_string(order.size()) +
                     " of " + std::to_string(layers.size()) + "):";
  os << head
     << std::string(std::max<size_t>(width + 11, head.size() + 1) - head.size(),
                    ' ')
     << "time  share       bound  roofline  steps\n";
  for (const Layer *layer : order)
    os << "  " << llvm::left_justify(layer->name, width)
       << llvm::format("%10.3f us  %5.1f%%  %10.3f us  %6.1f%%  ",
                       layer->cycles / cyclesPerMicrosecond,
                       cycles > 0 ? 100 * layer->cycles / cycles : 0.0,
                       layer->boundCycles / cyclesPerMicrosecond,
                       layer->cycles > 0
                           ? 100 * layer->boundCycles / layer->cycles
                           : 0.0)
       << llvm::join(layer->steps, ", ") << "\n";
}

llvm::StringRef SimulationReport::Step::getLimit() const {
  if (cubeCycles >= ioCycles && cubeCycles >= vectorCycles && cubeCycles > 0)
    return "cube";
  return vectorCycles > ioCycles ? "vector" : "io";
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
          if (e.l2Hits >= 0)
            json.attributeObject("args", [&] {
              json.attribute("l2 hits", e.l2Hits);
              json.attribute("l2 misses", e.l2Misses);
            });
        });
    });
  });
  os << "\n";
}
