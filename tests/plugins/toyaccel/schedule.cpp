// toyaccel's schedule space: tile sizes that are multiples of the array,
// fit the scratchpad and do not dwarf the workload; double buffering; loop
// order. Sampling enumerates the (small) space and shuffles it with a seeded
// generator of our own, so a seed gives the same schedules on every platform.
#include <algorithm>

#include "toyaccel.h"

namespace toyaccel {

using ucmoh::Expected;
using ucmoh::ParamMap;
using ucmoh::Status;

namespace {

using Field = std::pair<const char*, int64_t*>;

int64_t RoundUp(int64_t value, int64_t multiple) { return (value + multiple - 1) / multiple * multiple; }

Expected<int64_t> Tile(const ParamMap& params, const char* key) {
  auto tile = ucmoh::GetInt(params, key);
  if (!tile) return tile.status();
  if (*tile <= 0 || *tile % kArray != 0) {
    return Status::InvalidArgument(std::string("toyaccel: ") + key + " must be a positive multiple of 16");
  }
  return *tile;
}

// splitmix64: tiny, well mixed and identical everywhere (std distributions are not).
uint64_t NextRandom(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::vector<int64_t> TileChoices(int64_t dim, int64_t largest) {
  std::vector<int64_t> tiles;
  for (int64_t t = kArray; t <= largest && t <= RoundUp(dim, kArray); t *= 2) tiles.push_back(t);
  return tiles;
}

std::vector<Schedule> EnumerateSpace(const Gemm& gemm) {
  std::vector<Schedule> space;
  for (int64_t tm : TileChoices(gemm.m, 256))
    for (int64_t tn : TileChoices(gemm.n, 256))
      for (int64_t tk : TileChoices(gemm.k, 512))
        for (bool db : {false, true})
          for (bool nm : {false, true}) {
            Schedule s{tm, tn, tk, db, nm};
            if (ScratchpadBytes(s) <= kScratchpadBytes) space.push_back(s);
          }
  return space;
}

}  // namespace

Expected<Gemm> ParseGemm(const ucmoh::Task& task) {
  if (task.op != "gemm") return Status::InvalidArgument("toyaccel only runs gemm, not '" + task.op + "'");
  Gemm gemm;
  for (auto [key, field] : {Field{"m", &gemm.m}, Field{"n", &gemm.n}, Field{"k", &gemm.k}}) {
    auto value = ucmoh::GetInt(task.workload, key);
    if (!value) return value.status();
    if (*value <= 0) return Status::InvalidArgument(std::string("toyaccel: gemm ") + key + " must be positive");
    *field = *value;
  }
  return gemm;
}

Expected<Schedule> ParseSchedule(const ParamMap& params) {
  Schedule s;
  for (auto [key, field] : {Field{"tile_m", &s.tile_m}, Field{"tile_n", &s.tile_n}, Field{"tile_k", &s.tile_k}}) {
    auto tile = Tile(params, key);
    if (!tile) return tile.status();
    *field = *tile;
  }
  auto db = ucmoh::GetInt(params, "double_buffer");
  if (!db) return db.status();
  auto order = ucmoh::GetString(params, "order");
  if (!order) return order.status();
  if (*order != "mn" && *order != "nm") return Status::InvalidArgument("toyaccel: order must be mn or nm");
  s.double_buffer = *db != 0;
  s.n_outer_first = *order == "nm";
  if (ScratchpadBytes(s) > kScratchpadBytes) {
    return Status::InvalidArgument("toyaccel: tiles need " + std::to_string(ScratchpadBytes(s)) +
                                   " scratchpad bytes, more than " + std::to_string(kScratchpadBytes));
  }
  return s;
}

ParamMap ToParams(const Schedule& s) {
  return {{"tile_m", s.tile_m},
          {"tile_n", s.tile_n},
          {"tile_k", s.tile_k},
          {"double_buffer", int64_t{s.double_buffer ? 1 : 0}},
          {"order", std::string(s.n_outer_first ? "nm" : "mn")}};
}

int64_t ScratchpadBytes(const Schedule& s) {
  int64_t inputs = s.tile_m * s.tile_k + s.tile_k * s.tile_n;  // s8 A and B tiles
  return inputs * (s.double_buffer ? 2 : 1) + s.tile_m * s.tile_n * kAccumBytes;
}

Expected<std::vector<ParamMap>> ToyAccelPlugin::SampleSchedules(const ucmoh::Task& task,
                                                                const std::string& intrinsic,
                                                                int64_t count, uint64_t seed) const {
  if (intrinsic != kMac) return Status::NotFound("toyaccel has no intrinsic '" + intrinsic + "'");
  if (count <= 0) return Status::InvalidArgument("toyaccel: schedule count must be positive");
  auto gemm = ParseGemm(task);
  if (!gemm) return gemm.status();
  std::vector<Schedule> space = EnumerateSpace(*gemm);
  // Fisher-Yates; when the space is smaller than `count`, all of it is returned.
  uint64_t state = seed;
  for (size_t i = space.size(); i > 1; --i) std::swap(space[i - 1], space[NextRandom(state) % i]);
  space.resize(std::min<size_t>(space.size(), static_cast<size_t>(count)));
  std::vector<ParamMap> schedules;
  for (const Schedule& s : space) schedules.push_back(ToParams(s));
  return schedules;
}

}  // namespace toyaccel
