// A strict Matrix Market reader. Eigen's loadMarket (unsupported/SparseExtra) accepts malformed lines
// silently and has no triangularity or finiteness checks, so mixgraph parses the (simple) coordinate
// format itself and reports every problem with its file and line.
#include "mixgraph/mtx.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <numeric>
#include <sstream>

#include "io/input_file.hpp"
#include "mixgraph/atomic_file.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"

namespace mixgraph {

namespace {
std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace

Csr read_mtx_triangular(const std::string& path, Triangle tri) {
  const std::uint64_t file_bytes = detail::check_input_file(path, "Matrix Market file");
  std::ifstream in(path);
  if (!in) throw InputError("cannot open Matrix Market file '" + path + "'");
  auto fail = [&](std::size_t line, const std::string& why) {
    return InputError(path + ":" + std::to_string(line) + ": " + why);
  };
  std::string line;
  std::size_t lineno = 0;
  if (!std::getline(in, line))
    throw fail(1, "empty file; expected a '%%MatrixMarket matrix coordinate ...' header");
  ++lineno;
  std::istringstream hs(line);
  std::string banner, object, format, field, symmetry;
  hs >> banner >> object >> format >> field >> symmetry;
  if (banner != "%%MatrixMarket")
    throw fail(lineno, "not a Matrix Market file (the first line must start with %%MatrixMarket)");
  object = lower(object);
  format = lower(format);
  field = lower(field);
  symmetry = lower(symmetry);
  if (object != "matrix") throw fail(lineno, "object '" + object + "' is not supported (need 'matrix')");
  if (format != "coordinate")
    throw fail(lineno, "format '" + format + "' is not supported (need 'coordinate', a sparse mask)");
  if (field != "real" && field != "integer" && field != "pattern" && field != "double")
    throw fail(lineno, "field '" + field + "' is not supported (need real, integer or pattern)");
  if (symmetry != "general")
    throw fail(lineno,
               "symmetry '" + symmetry + "' is not supported: a triangular mask must be stored as 'general'");
  const bool has_values = field != "pattern";
  // size line (skip comments)
  std::uint64_t rows = 0, cols = 0, entries = 0;
  for (;;) {
    if (!std::getline(in, line)) throw fail(lineno + 1, "missing size line 'rows cols entries'");
    ++lineno;
    if (line.empty() || line[0] == '%') continue;
    std::istringstream ss(line);
    std::string extra;
    if (!(ss >> rows >> cols >> entries) || (ss >> extra))
      throw fail(lineno, "malformed size line '" + line + "' (need 'rows cols entries')");
    break;
  }
  if (rows != cols)
    throw fail(lineno, "matrix is " + std::to_string(rows) + " x " + std::to_string(cols) + ", not square");
  if (rows == 0) throw fail(lineno, "matrix is empty (0 x 0)");
  if (rows > std::numeric_limits<pos_t>::max() - 1)
    throw fail(lineno, "n = " + std::to_string(rows) + " does not fit in 32-bit positions");
  const std::uint64_t max_entries = tri == Triangle::Lower ? rows * (rows + 1) / 2 : rows * (rows - 1) / 2;
  if (entries > max_entries)
    throw fail(lineno, std::to_string(entries) + " entries cannot fit in a " +
                           (tri == Triangle::Lower ? std::string("lower") : std::string("strictly lower")) +
                           " triangle of size " + std::to_string(rows));
  // An entry line has at least "r c\n" (4 bytes) or "r c v\n" (6): a size line announcing more entries
  // than the file can hold is refused before anything is allocated for them.
  if (sat_mul(entries, has_values ? 6 : 4) > sat_add(file_bytes, 1))
    throw fail(lineno, "the size line announces " + std::to_string(entries) +
                           " entries but the file has only " + std::to_string(file_bytes) + " bytes");
  // entries while sorting (16 B), the CSR's idx (4 B) and val (8 B), and its row pointers (8 B a row)
  check_memory(sat_add(sat_mul(entries, 28), sat_mul(rows + 1, 8)), 0, "reading " + path);
  struct Entry {
    pos_t r, c;
    double v;
  };
  std::vector<Entry> e;
  e.reserve(entries);
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty() || line[0] == '%') continue;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (e.size() == entries)
      throw fail(lineno, "more entries than the " + std::to_string(entries) + " the size line announces");
    const char* s = line.c_str();
    char* end = nullptr;
    errno = 0;
    const unsigned long long r = std::strtoull(s, &end, 10);
    if (end == s || errno)
      throw fail(lineno, "malformed entry '" + line + "' (need 'row col" +
                             (has_values ? std::string(" value'") : std::string("'")) + ")");
    s = end;
    const unsigned long long c = std::strtoull(s, &end, 10);
    if (end == s || errno) throw fail(lineno, "malformed entry '" + line + "'");
    s = end;
    double v = 1.0;
    if (has_values) {
      v = std::strtod(s, &end);
      if (end == s) throw fail(lineno, "malformed entry '" + line + "': missing value");
      s = end;
      if (!std::isfinite(v))
        throw fail(lineno, "value '" + line + "' is not finite (NaN/inf weights are refused)");
    }
    while (*s == ' ' || *s == '\t' || *s == '\r') ++s;
    if (*s) throw fail(lineno, "malformed entry '" + line + "': unexpected trailing text");
    if (r < 1 || r > rows || c < 1 || c > cols)
      throw fail(lineno, "entry (" + std::to_string(r) + ", " + std::to_string(c) + ") is outside the " +
                             std::to_string(rows) + " x " + std::to_string(cols) +
                             " matrix (indices are 1-based)");
    if (tri == Triangle::StrictlyLower ? c >= r : c > r)
      throw fail(lineno, "entry (" + std::to_string(r) + ", " + std::to_string(c) + ") is not " +
                             (tri == Triangle::StrictlyLower
                                  ? std::string("strictly lower triangular (B needs column < row)")
                                  : std::string("lower triangular (A needs column <= row)")));
    e.push_back({static_cast<pos_t>(r - 1), static_cast<pos_t>(c - 1), v});
  }
  if (e.size() != entries)
    throw fail(lineno, "the size line announces " + std::to_string(entries) + " entries but the file has " +
                           std::to_string(e.size()));
  std::sort(e.begin(), e.end(),
            [](const Entry& a, const Entry& b) { return a.r != b.r ? a.r < b.r : a.c < b.c; });
  for (std::size_t k = 1; k < e.size(); ++k)
    if (e[k].r == e[k - 1].r && e[k].c == e[k - 1].c)
      throw InputError(path + ": entry (" + std::to_string(e[k].r + 1) + ", " + std::to_string(e[k].c + 1) +
                       ") appears more than once");
  Csr m;
  m.n = static_cast<pos_t>(rows);
  m.ptr.assign(rows + 1, 0);
  m.idx.resize(e.size());
  if (has_values) m.val.resize(e.size());
  for (std::size_t k = 0; k < e.size(); ++k) {
    ++m.ptr[e[k].r + 1];
    m.idx[k] = e[k].c;
    if (has_values) m.val[k] = e[k].v;
  }
  std::partial_sum(m.ptr.begin(), m.ptr.end(), m.ptr.begin());
  return m;
}

void write_mtx(const std::string& path, const Csr& m) {
  write_file_atomic(path, [&](std::ostream& os) {
    char buf[96];
    os << "%%MatrixMarket matrix coordinate " << (m.has_values() ? "real" : "pattern") << " general\n";
    os << m.n << " " << m.n << " " << m.nnz() << "\n";
    for (pos_t r = 0; r < m.n; ++r)
      for (nnz_t k = m.ptr[r]; k < m.ptr[r + 1]; ++k) {
        if (m.has_values())
          std::snprintf(buf, sizeof buf, "%u %u %.17g\n", r + 1, m.idx[k] + 1, m.val[k]);
        else
          std::snprintf(buf, sizeof buf, "%u %u\n", r + 1, m.idx[k] + 1);
        os << buf;
      }
  });
}

}  // namespace mixgraph
