#include "shard_run.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "mixgraph/atomic_file.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/shards.hpp"
#include "mixgraph/spec_files.hpp"
#include "mpi_world.hpp"

namespace mixgraph::cli {
namespace {
namespace fs = std::filesystem;

constexpr const char* kManifest = "mixgraph-checkpoint.txt";
constexpr const char* kShardMagic = "mixgraph-shard 1";

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}
std::string hex(std::uint64_t v) {
  char b[17];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
  return b;
}
fs::path shard_path(const std::string& dir, std::size_t i) {
  char b[32];
  std::snprintf(b, sizeof b, "shard-%06zu.bin", i);
  return fs::path(dir) / b;
}

/// The folder's manifest names the job's fingerprint; a folder of another job is refused.
void prepare_dir(const std::string& dir, const std::string& fingerprint, std::size_t shards) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw RuntimeFailure("cannot create the checkpoint folder '" + dir + "'" +
                         (ec ? ": " + ec.message() : std::string()));
  const fs::path man = fs::path(dir) / kManifest;
  const std::string want =
      "mixgraph checkpoint 1\n" + fingerprint + "\nshards " + std::to_string(shards) + "\n";
  if (fs::exists(man)) {
    std::ifstream in(man, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    if (ss.str() != want) {
      std::string old;
      std::getline(ss.seekg(0), old);  // the format line
      std::getline(ss, old);           // the fingerprint of the job that wrote the folder
      throw UsageError("checkpoint folder '" + dir + "' holds shards of another job ('" + old +
                       "'); this job is '" + fingerprint + "' (" + std::to_string(shards) +
                       " shards): give a new --checkpoint folder, or delete this one");
    }
    return;
  }
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("shard-", 0) == 0)
      throw UsageError("checkpoint folder '" + dir + "' holds shard files but no " + kManifest +
                       ": give a new --checkpoint folder, or delete this one");
  write_file_atomic(man.string(), want);
}

void write_shard(const std::string& dir, std::size_t i, std::uint64_t fp, double seconds,
                 const std::string& payload) {
  std::error_code ec;
  fs::create_directories(dir, ec);  // a rank on another node without the shared folder yet
  std::ostringstream head;
  head << kShardMagic << "\nfingerprint " << hex(fp) << "\nshard " << i << " rank " << mpi::rank() << " of "
       << mpi::size() << " seconds " << seconds << "\nbytes " << payload.size() << "\n";
  write_file_atomic(shard_path(dir, i).string(),
                    [&](std::ostream& os) { os << head.str() << payload << "\nend\n"; });
}

/// A finished shard's result, or false when the file is absent or not a complete shard of this job.
bool read_shard(const std::string& dir, std::size_t i, std::uint64_t fp, std::string& payload) {
  const fs::path path = shard_path(dir, i);
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string magic, fpline, shardline, bytesline;
  if (!std::getline(in, magic) || magic != kShardMagic) return false;
  if (!std::getline(in, fpline) || fpline != "fingerprint " + hex(fp)) return false;
  if (!std::getline(in, shardline) || shardline.rfind("shard " + std::to_string(i) + " ", 0) != 0)
    return false;
  if (!std::getline(in, bytesline) || bytesline.rfind("bytes ", 0) != 0) return false;
  const std::uint64_t len = std::strtoull(bytesline.c_str() + 6, nullptr, 10);
  payload.assign(len, '\0');
  if (!in.read(payload.data(), static_cast<std::streamsize>(len))) return false;
  std::string tail(5, '\0');
  return static_cast<bool>(in.read(tail.data(), 5)) && tail == "\nend\n";
}

void put_u64(std::string& s, std::uint64_t v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof v);
}
std::uint64_t get_u64(const std::string& s, std::size_t& off) {
  std::uint64_t v = 0;
  if (off + sizeof v > s.size()) throw RuntimeFailure("a rank's shard results arrived truncated");
  std::copy_n(s.data() + off, sizeof v, reinterpret_cast<char*>(&v));
  off += sizeof v;
  return v;
}

/// Test hook: MIXGRAPH_FAULT_KILL_RANK=r:k kills rank r (SIGKILL) once it has finished k shards, to test
/// that a dead rank fails the job and that a restart from the checkpoint completes it.
long fault_after_shards() {
  const char* v = std::getenv("MIXGRAPH_FAULT_KILL_RANK");
  if (!v) return -1;
  char* end = nullptr;
  const long r = std::strtol(v, &end, 10);
  if (!end || *end != ':' || r != mpi::rank()) return -1;
  return std::strtol(end + 1, nullptr, 10);
}

}  // namespace

std::string fnv1a_hex(const std::string& bytes) {
  return hex(fnv1a(bytes));
}

std::string input_files_fingerprint(const std::vector<std::string>& specs) {
  std::string out;
  for (const auto& spec : specs)
    for (const auto& file : spec_input_files(spec)) {  // every part: unions, heads:, stack: layers
      std::ifstream in(file, std::ios::binary);
      if (!in) continue;
      std::uint64_t h = 1469598103934665603ULL, bytes = 0;
      char buf[1 << 16];
      while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        const auto got = static_cast<std::size_t>(in.gcount());
        for (std::size_t i = 0; i < got; ++i) h = (h ^ static_cast<unsigned char>(buf[i])) * 1099511628211ULL;
        bytes += got;
      }
      out += "; input " + file + " bytes " + std::to_string(bytes) + " fnv1a " + hex(h);
    }
  return out;
}

bool sharded(const std::string& checkpoint_dir) {
  return mpi::size() > 1 || !checkpoint_dir.empty();
}

ShardOutcome run_shards(const ShardJob& job) {
  const std::size_t S = job.costs.size();
  const std::string& dir = job.checkpoint_dir;
  // every rank hashes the input files (on a shared file system they are the same files)
  const std::string fingerprint = job.fingerprint + input_files_fingerprint(job.input_specs);
  const std::uint64_t fp = fnv1a(fingerprint);
  ShardOutcome out;
  std::vector<std::string> results;
  std::vector<char> have;
  // rank 0 reads the folder and tells every rank what is missing (or the error, thrown on every rank)
  std::string status;
  if (mpi::root()) {
    try {
      results.assign(S, {});
      have.assign(S, 0);
      if (!dir.empty()) {
        prepare_dir(dir, fingerprint, S);
        for (std::size_t i = 0; i < S; ++i) have[i] = read_shard(dir, i, fp, results[i]) ? 1 : 0;
      }
      status = "ok";
      for (std::size_t i = 0; i < S; ++i)
        if (!have[i]) status.append(" ").append(std::to_string(i));
    } catch (const UsageError& e) {
      status = std::string("usage ") + e.what();
    } catch (const std::exception& e) {
      status = std::string("fail ") + e.what();
    }
  }
  mpi::broadcast(status);
  if (status.rfind("usage ", 0) == 0) throw UsageError(status.substr(6));
  if (status.rfind("fail ", 0) == 0) throw RuntimeFailure(status.substr(5));
  std::vector<std::size_t> missing;
  {
    std::istringstream is(status.substr(2));
    for (std::size_t i; is >> i;) missing.push_back(i);
  }
  out.from_checkpoint = S - missing.size();
  out.computed = missing.size();
  std::vector<double> mcost;
  for (std::size_t i : missing) mcost.push_back(job.costs[i]);
  const auto plan = assign_lpt(mcost, mpi::size());
  std::vector<std::size_t> todo;
  for (std::size_t k : plan[static_cast<std::size_t>(mpi::rank())]) todo.push_back(missing[k]);
  if (mpi::root()) {
    std::cerr << "[" << job.what << "] " << S << " shards: " << out.from_checkpoint
              << " from the checkpoint, " << out.computed << " to compute on " << mpi::size()
              << (mpi::size() == 1 ? " rank" : " ranks") << "\n";
  }
  // compute, keeping each result (and writing it to the folder as it finishes)
  std::string mine;
  const long die_after = fault_after_shards();
  long finished = 0;
  job.compute(todo, [&](std::size_t i, std::string&& payload, double seconds) {
    if (!dir.empty()) write_shard(dir, i, fp, seconds, payload);
    put_u64(mine, i);
    put_u64(mine, payload.size());
    mine += payload;
    if (die_after >= 0 && ++finished >= die_after) std::raise(SIGKILL);
  });
  const auto all = mpi::gather(mine);
  if (!mpi::root()) return out;
  for (const auto& buf : all) {
    std::size_t off = 0;
    while (off < buf.size()) {
      const std::uint64_t i = get_u64(buf, off), len = get_u64(buf, off);
      if (i >= S || off + len > buf.size()) throw RuntimeFailure("a rank sent a malformed shard result");
      results[i] = buf.substr(off, len);
      have[i] = 1;
      off += len;
    }
  }
  for (std::size_t i = 0; i < S; ++i)
    if (!have[i])
      throw RuntimeFailure("shard " + std::to_string(i) + " of " + job.what +
                           " has no result after the run; no output was written");
  out.results = std::move(results);
  out.root = true;
  return out;
}

std::optional<std::vector<std::string>> run_item_shards(const std::string& what,
                                                        const std::string& fingerprint,
                                                        const std::vector<double>& costs,
                                                        const std::string& checkpoint_dir,
                                                        const std::vector<std::string>& input_specs,
                                                        const std::function<std::string(std::size_t)>& item) {
  ShardJob job;
  job.what = what;
  job.fingerprint = fingerprint;
  job.costs = costs;
  job.checkpoint_dir = checkpoint_dir;
  job.input_specs = input_specs;
  job.compute = [&](const std::vector<std::size_t>& todo, const ShardJob::Emit& emit) {
    for (std::size_t i : todo) {
      const auto t0 = std::chrono::steady_clock::now();
      std::string bytes = item(i);
      emit(i, std::move(bytes), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
  };
  ShardOutcome got = run_shards(job);
  if (!got.root) return std::nullopt;
  return std::move(got.results);
}

}  // namespace mixgraph::cli
