//===- LidarSites.h - synthetic LiDAR-like voxel sites ----------*- C++ -*-===//
//
// Active sites as a voxelised LiDAR sweep produces them, for the sparse
// convolution benchmark and demo: per batch entry a sensor at the centre
// of the (y, x) plane sees the ground on a plane (point density falling
// with distance, as a spinning sensor's rings spread) and the visible
// faces of box-shaped objects (cars). Sites are the distinct voxels the
// points fall in, in the order they are first hit, until each batch entry
// has its share. Deterministic for a seed.
//
//===----------------------------------------------------------------------===//

#ifndef NPU_BENCH_LIDARSITES_H
#define NPU_BENCH_LIDARSITES_H

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <unordered_set>
#include <vector>

namespace npu::bench {

struct LidarScene {
  int64_t batch;
  std::array<int64_t, 3> shape; // D, H, W
  int64_t sites;
  /// Ground points reach this fraction of the half-width from the sensor.
  double range = 0.49;
  /// Share of points on objects rather than the ground.
  double objectShare = 0.3;
  int objects = 24;
  uint64_t seed = 2024;
};

/// `scene.sites` distinct (batch, z, y, x) sites, spread evenly over the
/// batch entries.
inline std::vector<std::array<int32_t, 4>>
generateLidarSites(const LidarScene &scene) {
  std::mt19937_64 rng(scene.seed);
  std::uniform_real_distribution<double> unit(0, 1);
  auto [depth, height, width] = scene.shape;
  std::vector<std::array<int32_t, 4>> sites;
  for (int64_t b = 0; b < scene.batch; ++b) {
    int64_t want = scene.sites / scene.batch + (b < scene.sites % scene.batch);
    double cy = height / 2.0, cx = width / 2.0;
    double reach = scene.range * std::min(cy, cx);
    double ground = depth / 4;
    // Objects: boxes of about 4 x 2 x 1.6 m in a 72 m wide scene.
    struct Box {
      double y, x, dy, dx, dz;
    };
    std::vector<Box> boxes;
    for (int o = 0; o < scene.objects; ++o) {
      double angle = 2 * M_PI * unit(rng), radius = reach * unit(rng);
      boxes.push_back({cy + radius * std::sin(angle),
                       cx + radius * std::cos(angle), height / 36.0,
                       width / 18.0, std::max(2.0, depth / 5.0)});
    }
    std::unordered_set<int64_t> seen;
    while (int64_t(seen.size()) < want) {
      double z, y, x;
      if (unit(rng) < scene.objectShare) {
        const Box &box = boxes[rng() % boxes.size()];
        double u = unit(rng), v = unit(rng);
        switch (rng() % 5) { // four sides and the top
        case 0:
          y = box.y, x = box.x + u * box.dx, z = ground + v * box.dz;
          break;
        case 1:
          y = box.y + box.dy, x = box.x + u * box.dx, z = ground + v * box.dz;
          break;
        case 2:
          y = box.y + u * box.dy, x = box.x, z = ground + v * box.dz;
          break;
        case 3:
          y = box.y + u * box.dy, x = box.x + box.dx, z = ground + v * box.dz;
          break;
        default:
          y = box.y + u * box.dy, x = box.x + v * box.dx, z = ground + box.dz;
          break;
        }
      } else {
        double angle = 2 * M_PI * unit(rng), radius = 2 + reach * unit(rng);
        y = cy + radius * std::sin(angle);
        x = cx + radius * std::cos(angle);
        z = ground + (unit(rng) < 0.15 ? 1 : 0);
      }
      int64_t iz = int64_t(z), iy = int64_t(y), ix = int64_t(x);
      if (iz < 0 || iz >= depth || iy < 0 || iy >= height || ix < 0 ||
          ix >= width)
        continue;
      if (seen.insert((iz * height + iy) * width + ix).second)
        sites.push_back({int32_t(b), int32_t(iz), int32_t(iy), int32_t(ix)});
    }
  }
  return sites;
}

} // namespace npu::bench

#endif // NPU_BENCH_LIDARSITES_H
