#pragma once
// Sharded runs of a heavy analysis: shards planned by a cost model, spread over MPI ranks (longest first
// to the least-loaded rank), each finished shard kept in an optional checkpoint folder (written
// atomically), and every shard's result gathered on rank 0, which merges them. One process without a
// checkpoint folder never comes here: the commands keep their single-process path.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mixgraph::cli {

struct ShardJob {
  std::string what;            ///< for messages, e.g. "distances --all-pairs"
  std::string fingerprint;     ///< every parameter the shards' results depend on (checked on restart)
  std::vector<double> costs;   ///< one per shard: the cost model (relative units)
  std::string checkpoint_dir;  ///< "" = no checkpoint
  /// Pattern specs whose input files (mtx:A.mtx,B.mtx, also inside unions) the results depend on: the
  /// contents of each file are hashed into the fingerprint, so a changed file invalidates old shards.
  std::vector<std::string> input_specs;
  /// Emitted by `compute` as each shard finishes: (shard index, its serialised result, seconds it took).
  using Emit = std::function<void(std::size_t, std::string&&, double)>;
  /// Computes the shards `todo` (indices, in the order given), calling emit once for each, one call at a
  /// time.
  std::function<void(const std::vector<std::size_t>& todo, const Emit& emit)> compute;
  /// Checks one shard's result as the merge will read it (its types, the sources, cuts or items it
  /// covers): throws when it does not parse. Run on every shard read back from the checkpoint folder (one
  /// that fails is computed again, with a note) and on every result a rank sends to rank 0. Optional.
  std::function<void(std::size_t, const std::string&)> check;
  /// A shard file larger than this is not read (computed again): bounds the memory a damaged folder can
  /// take.
  std::uint64_t max_shard_bytes = std::uint64_t{1} << 30;
};

struct ShardOutcome {
  std::vector<std::string> results;  ///< rank 0: every shard's result by index; other ranks: empty
  std::size_t from_checkpoint = 0;   ///< shards found finished in the checkpoint folder
  std::size_t computed = 0;          ///< shards computed by this job (all ranks)
  bool root = false;                 ///< this is rank 0, which holds `results`
};

/// True when a command should take the sharded route: several MPI ranks, or a checkpoint folder.
bool sharded(const std::string& checkpoint_dir);

/// The size and a 64-bit FNV-1a hash of the contents of every file the specs name ("" when none): "; input
/// PATH bytes B fnv1a H" per file. A file that cannot be read is left out (the command reports it).
std::string input_files_fingerprint(const std::vector<std::string>& specs);

/// A 64-bit FNV-1a hash of the bytes, as 16 hex digits (stable across builds and machines).
std::string fnv1a_hex(const std::string& bytes);

/// Plans, runs and gathers the shards (see the header comment). Collective: every rank calls it with the
/// same job. A checkpoint folder written for another fingerprint is refused (UsageError) on every rank.
/// A shard file is trusted only when it is a regular file (never a symbolic link, FIFO or device; opened
/// without following links or blocking), of at most max_shard_bytes, in the current shard format, of this
/// job's fingerprint and shard index, whose payload matches its FNV-1a digest and passes `check`; any
/// other is computed again (a note on stderr names the shard and the reason) and rewritten in place.
ShardOutcome run_shards(const ShardJob& job);

/// The common case of one shard per item: `item(i)` computes item i's serialised result (timed by the
/// wall clock). Rank 0 gets every item's result in item order; the other ranks std::nullopt.
std::optional<std::vector<std::string>> run_item_shards(
    const std::string& what, const std::string& fingerprint, const std::vector<double>& costs,
    const std::string& checkpoint_dir, const std::vector<std::string>& input_specs,
    const std::function<std::string(std::size_t)>& item,
    const std::function<void(std::size_t, const std::string&)>& check = {});

}  // namespace mixgraph::cli
