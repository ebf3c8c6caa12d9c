#pragma once
// Progress of the cut-rank loops (cut_rank_profile's numeric and flow loops), for an embedding such as the
// Python package: while a CutProgressScope is alive on a thread, the loops run from that thread call its
// hook after each cut, and a throw from the hook stops them at the next cut (the cuts under way finish).
#include <cstdint>
#include <functional>
#include <string>

namespace mixgraph {

/// hook(what, done, total): what names the loop ("cut ranks: exact", ": dense", ": sketch", "cut ranks:
/// flow"); done counts finished cuts across cut_rank_profile's loops (the flow loop's counts follow the
/// numeric loop's), total = cuts x loops. Called on the scope's thread only (the master thread of an OpenMP
/// loop, never a worker), once for every count 1..total in order (counts other threads finished meanwhile
/// come together). It may throw to stop the loop: no further cut starts and the exception reaches the
/// caller of cut_rank_profile.
using CutProgressHook = std::function<void(const std::string& what, std::uint64_t done, std::uint64_t total)>;

/// Sets the hook for this thread while alive (scopes nest; the hook must outlive the scope).
class CutProgressScope {
 public:
  explicit CutProgressScope(const CutProgressHook* hook);
  ~CutProgressScope();
  CutProgressScope(const CutProgressScope&) = delete;
  CutProgressScope& operator=(const CutProgressScope&) = delete;

 private:
  const CutProgressHook* saved_;
};

/// The hook of the innermost CutProgressScope on this thread, or nullptr.
const CutProgressHook* cut_progress_hook();

}  // namespace mixgraph
