// distances --all-pairs over MPI ranks: shards of source blocks, merged exactly on rank 0.
#include <cstring>
#include <iostream>

#include "mixgraph/build_info.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/shards.hpp"
#include "shard_commands.hpp"
#include "shard_run.hpp"

namespace mixgraph::cli {
namespace {

constexpr pos_t kBlock = 256;  // AllPairsOptions' default sources per block

template <class T>
void put(std::string& s, const T& v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof v);
}
template <class T>
T get(const std::string& s, std::size_t& off) {
  T v{};
  if (off + sizeof v > s.size()) throw RuntimeFailure("an all-pairs shard result is truncated");
  std::memcpy(&v, s.data() + off, sizeof v);
  off += sizeof v;
  return v;
}

std::string encode(const AllPairsPartial& p) {
  std::string s;
  put<std::uint64_t>(s, p.begin);
  put<std::uint64_t>(s, p.end);
  put<std::uint64_t>(s, p.histogram.size());
  for (auto h : p.histogram) put(s, h);
  put<std::uint64_t>(s, p.eccentricity.size());
  for (auto e : p.eccentricity) put(s, e);
  return s;
}

AllPairsPartial decode(const std::string& s) {
  AllPairsPartial p;
  std::size_t off = 0;
  p.begin = static_cast<pos_t>(get<std::uint64_t>(s, off));
  p.end = static_cast<pos_t>(get<std::uint64_t>(s, off));
  // each count is checked against the bytes left before anything is allocated
  const auto nh = get<std::uint64_t>(s, off);
  if (nh > (s.size() - off) / sizeof(std::uint64_t))
    throw RuntimeFailure("an all-pairs shard result is malformed");
  p.histogram.resize(nh);
  for (auto& h : p.histogram) h = get<std::uint64_t>(s, off);
  const auto ne = get<std::uint64_t>(s, off);
  if (ne > (s.size() - off) / sizeof(std::uint32_t))
    throw RuntimeFailure("an all-pairs shard result is malformed");
  p.eccentricity.resize(ne);
  for (auto& e : p.eccentricity) e = get<std::uint32_t>(s, off);
  if (off != s.size()) throw RuntimeFailure("an all-pairs shard result has trailing bytes");
  return p;
}

void check_partial(const AllPairsPartial& p, std::pair<pos_t, pos_t> range, pos_t n, bool eccentricities) {
  if (p.begin != range.first || p.end != range.second)
    throw RuntimeFailure("it covers sources [" + std::to_string(p.begin) + ", " + std::to_string(p.end) +
                         "), not the planned [" + std::to_string(range.first) + ", " +
                         std::to_string(range.second) + ")");
  if (p.histogram.size() > std::uint64_t{n} + 1) throw RuntimeFailure("its histogram is longer than n");
  const std::uint64_t pairs = std::uint64_t{p.end - p.begin} * n;
  std::uint64_t total = 0;
  for (auto h : p.histogram) {
    if (h > pairs - total) throw RuntimeFailure("its histogram counts more pairs than its sources have");
    total += h;
  }
  if (p.eccentricity.size() != (eccentricities ? std::size_t{p.end - p.begin} : 0))
    throw RuntimeFailure("it holds " + std::to_string(p.eccentricity.size()) + " eccentricities for " +
                         std::to_string(p.end - p.begin) + " sources");
  for (auto e : p.eccentricity)
    if (e >= n && e != UNREACHABLE) throw RuntimeFailure("an eccentricity is not below n");
}

}  // namespace

std::uint64_t default_all_pairs_shards(pos_t n) {
  const std::uint64_t blocks = (std::uint64_t{n} + kBlock - 1) / kBlock;
  return std::min<std::uint64_t>(blocks, 1024);
}

std::optional<DistanceSummary> sharded_all_pairs(const Pattern& p, const AllPairsOptions& opt,
                                                 const std::string& checkpoint_dir, std::uint64_t shards) {
  if (opt.sources_per_block != kBlock) throw UsageError("sharded all-pairs runs use 256 sources per block");
  const pos_t n = p.n;
  if (shards == 0) shards = default_all_pairs_shards(n);
  // shards: contiguous runs of blocks of near-equal modelled cost
  std::vector<double> block_cost;
  for (pos_t s0 = 0; s0 < n; s0 += std::min(kBlock, n - s0))
    block_cost.push_back(all_pairs_block_cost(n, s0, std::min(kBlock, n - s0)));
  const auto groups = split_by_cost(block_cost, static_cast<std::size_t>(shards));
  std::vector<std::pair<pos_t, pos_t>> ranges;
  ShardJob job;
  for (const auto& [b0, b1] : groups) {
    const pos_t sb = static_cast<pos_t>(b0) * kBlock;
    const pos_t se = std::min<pos_t>(static_cast<pos_t>(b1) * kBlock, n);
    ranges.emplace_back(sb, se);
    double c = 0;
    for (std::size_t b = b0; b < b1; ++b) c += block_cost[b];
    job.costs.push_back(c);
  }
  job.what = "distances --all-pairs";
  job.fingerprint = "distances --all-pairs; mixgraph " + version() + "; pattern " + p.spec + "; n " +
                    std::to_string(n) + "; eccentricities " + (opt.eccentricities ? "yes" : "no") +
                    "; sources per block " + std::to_string(kBlock) + "; shards " +
                    std::to_string(ranges.size());
  job.checkpoint_dir = checkpoint_dir;
  job.input_specs = {p.spec};
  // a shard read back must be the planned sources' partial: the histogram of distances below n (each bin at
  // most every pair of its sources), the eccentricities when asked for (each below n or unreachable)
  job.check = [&](std::size_t i, const std::string& bytes) {
    check_partial(decode(bytes), ranges[i], n, opt.eccentricities);
  };
  job.compute = [&](const std::vector<std::size_t>& todo, const ShardJob::Emit& emit) {
    std::vector<std::pair<pos_t, pos_t>> mine;
    for (std::size_t i : todo) mine.push_back(ranges[i]);
    AllPairsOptions o = opt;
    o.progress = nullptr;
    all_pairs_partials(p, o, mine, [&](std::size_t k, AllPairsPartial&& part) {
      emit(todo[k], encode(part), part.seconds);
    });
  };
  const ShardOutcome got = run_shards(job);
  if (!got.root) return std::nullopt;
  std::vector<AllPairsPartial> parts;
  parts.reserve(got.results.size());
  for (const auto& bytes : got.results) parts.push_back(decode(bytes));  // each checked by job.check
  return merge_all_pairs(n, opt.eccentricities, std::move(parts));
}

}  // namespace mixgraph::cli
