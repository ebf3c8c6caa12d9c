#pragma once
// Strict Matrix Market reader for pattern masks: coordinate format, real/integer/pattern, general.
#include <string>

#include "mixgraph/csr.hpp"

namespace mixgraph {

enum class Triangle { Lower, StrictlyLower };

/// Reads a square, (strictly) lower-triangular coordinate matrix into CSR (rows sorted). Values are kept
/// for real/integer files (must be finite); pattern files give an empty val. Duplicated entries, entries
/// above the allowed triangle, out-of-range indices, counts that do not match, and non-finite values are
/// refused with InputError naming the file and line.
Csr read_mtx_triangular(const std::string& path, Triangle tri);

/// Writes CSR as a coordinate real (or pattern) general Matrix Market file (1-indexed).
void write_mtx(const std::string& path, const Csr& m);

}  // namespace mixgraph
