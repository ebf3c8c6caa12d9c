#include "shard_run.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <vector>

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
// Format 2 added the digest line; a shard of format 1 (no digest) is computed again, never trusted.
constexpr const char* kShardMagic = "mixgraph-shard 2";

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}
/// FNV-1a 64 with its published offset basis 14695981039346656037 (fnv1a above, which the fingerprints of
/// existing checkpoint folders depend on, starts from 1469598103934665603): the digest of shard payloads.
std::uint64_t fnv1a_64(const std::string& s) {
  std::uint64_t h = 14695981039346656037ULL;
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

/// Reads the whole of `path` into `text` when it is a regular file of at most `max_bytes`: "" on success,
/// else why not ("absent" when there is no such entry). Never follows a symbolic link and never blocks (a
/// FIFO or a device in the file's place is refused, not read).
std::string read_regular(const fs::path& path, std::uint64_t max_bytes, std::string& text) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return "absent";
    if (err == ELOOP) return "a symbolic link, not a regular file";
    return std::string("cannot open it: ") + std::strerror(err);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return std::string("cannot read it: ") + std::strerror(err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return S_ISDIR(st.st_mode) ? "a folder, not a regular file"
                               : "not a regular file (a FIFO, socket or device)";
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > max_bytes) {
    ::close(fd);
    return std::to_string(size) + " bytes, more than a shard of this job may hold (" +
           std::to_string(max_bytes) + ")";
  }
  text.assign(static_cast<std::size_t>(size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t r = ::read(fd, text.data() + got, text.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  ::close(fd);
  if (got != text.size()) return "it shrank while being read";
  return {};
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
  std::string have;
  const std::string why = read_regular(man, std::uint64_t{1} << 24, have);
  if (why.empty()) {
    if (have != want) {
      std::istringstream ss(have);
      std::string old;
      std::getline(ss, old);  // the format line
      std::getline(ss, old);  // the fingerprint of the job that wrote the folder
      throw UsageError("checkpoint folder '" + dir + "' holds shards of another job ('" + old +
                       "'); this job is '" + fingerprint + "' (" + std::to_string(shards) +
                       " shards): give a new --checkpoint folder, or delete this one");
    }
    return;
  }
  if (why != "absent")
    throw UsageError("checkpoint folder '" + dir + "': its " + kManifest + " is " + why +
                     ": give a new --checkpoint folder, or delete this one");
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("shard-", 0) == 0)
      throw UsageError("checkpoint folder '" + dir + "' holds shard files but no " + kManifest +
                       ": give a new --checkpoint folder, or delete this one");
  write_file_atomic(man.string(), want);
}

/// The digest a shard file carries: FNV-1a 64 over the job's fingerprint hash, the shard's index and its
/// payload, so a payload moved to another index or job fails as surely as a changed one.
std::uint64_t shard_digest(std::uint64_t fp, std::size_t i, const std::string& payload) {
  return fnv1a_64(hex(fp) + "\n" + std::to_string(i) + "\n" + payload);
}

void write_shard(const std::string& dir, std::size_t i, std::uint64_t fp, double seconds,
                 const std::string& payload) {
  std::error_code ec;
  fs::create_directories(dir, ec);  // a rank on another node without the shared folder yet
  // a symbolic link, FIFO or device in the shard's place (refused when read) is removed, not written
  // through: write_file_atomic would follow it out of the folder
  const fs::path path = shard_path(dir, i);
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) ::unlink(path.c_str());
  std::ostringstream head;
  head << kShardMagic << "\nfingerprint " << hex(fp) << "\nshard " << i << " rank " << mpi::rank() << " of "
       << mpi::size() << " seconds " << seconds << "\nbytes " << payload.size() << "\ndigest "
       << hex(shard_digest(fp, i, payload)) << "\n";
  write_file_atomic(path.string(), [&](std::ostream& os) { os << head.str() << payload << "\nend\n"; });
}

/// Reads the next line of `text` from `off` (without its newline); false at the end.
bool next_line(const std::string& text, std::size_t& off, std::string& line) {
  const auto nl = text.find('\n', off);
  if (nl == std::string::npos) return false;
  line = text.substr(off, nl - off);
  off = nl + 1;
  return true;
}

/// A finished shard's result into `payload`: "" when it is one, "absent" when there is no file, else why
/// the file is not a valid shard of this job.
std::string read_shard(const std::string& dir, std::size_t i, std::uint64_t fp, std::uint64_t max_bytes,
                       std::string& payload) {
  std::string text;
  const std::string why = read_regular(shard_path(dir, i), max_bytes, text);
  if (!why.empty()) return why;
  std::size_t off = 0;
  std::string magic, fpline, shardline, bytesline, digestline;
  if (!next_line(text, off, magic) || magic != kShardMagic)
    return magic.rfind("mixgraph-shard ", 0) == 0 ? "written in an older shard format ('" + magic + "')"
                                                  : "not a shard file";
  if (!next_line(text, off, fpline) || fpline != "fingerprint " + hex(fp)) return "a shard of another job";
  if (!next_line(text, off, shardline) || shardline.rfind("shard " + std::to_string(i) + " ", 0) != 0)
    return "a shard of another index";
  if (!next_line(text, off, bytesline) || bytesline.rfind("bytes ", 0) != 0 || bytesline.size() == 6 ||
      bytesline.find_first_not_of("0123456789", 6) != std::string::npos || bytesline.size() > 6 + 19)
    return "its header is damaged";
  const std::uint64_t len = std::strtoull(bytesline.c_str() + 6, nullptr, 10);
  if (!next_line(text, off, digestline) || digestline.rfind("digest ", 0) != 0)
    return "its header is damaged";
  if (len > text.size() - off || text.size() - off - len != 5 || text.compare(off + len, 5, "\nend\n") != 0)
    return "its length does not match its header (truncated or extended)";
  payload.assign(text, off, len);
  if (digestline != "digest " + hex(shard_digest(fp, i, payload)))
    return "its content does not match its digest (changed after it was written)";
  return {};
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
      // only a regular file is read (a FIFO would block, a device never end); the command reports others
      const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
      if (fd < 0) continue;
      struct stat st {};
      if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        continue;
      }
      std::uint64_t h = 1469598103934665603ULL, bytes = 0;
      std::vector<char> buf(1 << 16);
      for (;;) {
        const ssize_t got = ::read(fd, buf.data(), buf.size());
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        for (ssize_t k = 0; k < got; ++k)
          h = (h ^ static_cast<unsigned char>(buf[static_cast<std::size_t>(k)])) * 1099511628211ULL;
        bytes += static_cast<std::uint64_t>(got);
      }
      ::close(fd);
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
        for (std::size_t i = 0; i < S; ++i) {
          std::string why = read_shard(dir, i, fp, job.max_shard_bytes, results[i]);
          if (why.empty() && job.check) try {
              job.check(i, results[i]);
            } catch (const std::exception& e) {
              why = std::string("its content does not parse (") + e.what() + ")";
            }
          have[i] = why.empty() ? 1 : 0;
          if (!have[i]) results[i].clear();
          if (!why.empty() && why != "absent")
            std::cerr << "[" << job.what << "] note: shard " << i << " in the checkpoint folder '" << dir
                      << "' is not used (" << why << "): computing it again\n";
        }
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
    put_u64(mine, fnv1a_64(payload));
    mine += payload;
    if (die_after >= 0 && ++finished >= die_after) std::raise(SIGKILL);
  });
  const auto all = mpi::gather(mine);
  if (!mpi::root()) return out;
  for (const auto& buf : all) {
    std::size_t off = 0;
    while (off < buf.size()) {
      const std::uint64_t i = get_u64(buf, off), len = get_u64(buf, off), digest = get_u64(buf, off);
      if (i >= S || len > buf.size() - off) throw RuntimeFailure("a rank sent a malformed shard result");
      results[i] = buf.substr(off, len);
      if (fnv1a_64(results[i]) != digest)
        throw RuntimeFailure("shard " + std::to_string(i) + " of " + job.what +
                             " arrived from its rank changed in transit; no output was written");
      if (job.check) try {
          job.check(i, results[i]);
        } catch (const std::exception& e) {
          throw RuntimeFailure("shard " + std::to_string(i) + " of " + job.what +
                               " computed on a rank does not parse (" + e.what() +
                               "); no output was written");
        }
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

std::optional<std::vector<std::string>> run_item_shards(
    const std::string& what, const std::string& fingerprint, const std::vector<double>& costs,
    const std::string& checkpoint_dir, const std::vector<std::string>& input_specs,
    const std::function<std::string(std::size_t)>& item,
    const std::function<void(std::size_t, const std::string&)>& check) {
  ShardJob job;
  job.what = what;
  job.fingerprint = fingerprint;
  job.costs = costs;
  job.checkpoint_dir = checkpoint_dir;
  job.input_specs = input_specs;
  job.check = check;
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
