#pragma once
// Errors carry the process exit code the CLI should use (docs/design.md):
// 1 runtime failure, 2 usage error, 3 bad input data, 4 GPU required but absent.
#include <stdexcept>
#include <string>

namespace mixgraph {

enum class ExitCode : int { Ok = 0, Runtime = 1, Usage = 2, BadInput = 3, NoGpu = 4 };

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  ExitCode code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

/// Bad arguments: unknown pattern name, malformed expression, n <= 0, ... (exit 2).
struct UsageError : Error {
  explicit UsageError(const std::string& w) : Error(ExitCode::Usage, w) {}
};
/// Bad input data: malformed or non-triangular .mtx, NaN/inf weights (exit 3).
struct InputError : Error {
  explicit InputError(const std::string& w) : Error(ExitCode::BadInput, w) {}
};
/// An input file that does not exist (exit 3, an InputError; Python raises it as a FileNotFoundError too).
struct MissingInputFile : InputError {
  explicit MissingInputFile(const std::string& w) : InputError(w) {}
};
/// Runtime failure: work refused for memory, a feature not built in, I/O failure (exit 1).
struct RuntimeFailure : Error {
  explicit RuntimeFailure(const std::string& w) : Error(ExitCode::Runtime, w) {}
};
/// Work refused before allocating because it would not fit in memory (check_memory; exit 1, a
/// RuntimeFailure, so callers that catch RuntimeFailure still see it).
struct MemoryRefused : RuntimeFailure {
  explicit MemoryRefused(const std::string& w) : RuntimeFailure(w) {}
};
/// A GPU was required (--backend gpu) and none is present (exit 4).
struct GpuRequired : Error {
  explicit GpuRequired(const std::string& w) : Error(ExitCode::NoGpu, w) {}
};

}  // namespace mixgraph
