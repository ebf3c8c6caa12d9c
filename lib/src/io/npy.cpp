#include "mixgraph/npy.hpp"

#include <bit>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <sstream>

#include "io/input_file.hpp"
#include "mixgraph/atomic_file.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"

namespace mixgraph {

namespace {

static_assert(std::endian::native == std::endian::little, "the .npy code assumes a little-endian machine");

std::string ext_of(const std::string& path) {
  std::string e = std::filesystem::path(path).extension().string();
  for (auto& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

// value of key 'k' in the header dict, as raw text up to the next top-level comma or brace
std::string dict_value(const std::string& h, const std::string& key, const std::string& path) {
  const std::string k1 = "'" + key + "'";
  const auto p = h.find(k1);
  if (p == std::string::npos) throw InputError(path + ": .npy header has no '" + key + "' entry");
  if (h.find(k1, p + k1.size()) != std::string::npos)  // which one counts would be a guess
    throw InputError(path + ": .npy header names '" + key + "' twice; save the array again with numpy.save");
  auto q = h.find(':', p + k1.size());
  if (q == std::string::npos) throw InputError(path + ": malformed .npy header");
  ++q;
  while (q < h.size() && h[q] == ' ') ++q;
  if (q < h.size() && h[q] == '(') {
    const auto e = h.find(')', q);
    if (e == std::string::npos) throw InputError(path + ": malformed .npy shape");
    return h.substr(q, e - q + 1);
  }
  auto e = q;
  while (e < h.size() && h[e] != ',' && h[e] != '}') ++e;
  std::string v = h.substr(q, e - q);
  while (!v.empty() && v.back() == ' ') v.pop_back();
  return v;
}

/// with_data false: the header only (dtype and shape, checked against the file's size), no data read.
NpyArray read_npy_file(const std::string& path, bool with_data, const std::string& what) {
  const std::uint64_t file_bytes = detail::check_input_file(path, ".npy file");
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError("cannot open " + path + " (missing or not readable)");
  char magic[8];
  if (!f.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    throw InputError(path + ": not a .npy file (bad magic string)");
  const int major = static_cast<unsigned char>(magic[6]);
  std::uint32_t hlen = 0;
  if (major == 1) {
    unsigned char b[2];
    if (!f.read(reinterpret_cast<char*>(b), 2)) throw InputError(path + ": truncated .npy header");
    hlen = b[0] | (b[1] << 8);
  } else if (major == 2 || major == 3) {
    unsigned char b[4];
    if (!f.read(reinterpret_cast<char*>(b), 4)) throw InputError(path + ": truncated .npy header");
    hlen = b[0] | (b[1] << 8) | (b[2] << 16) | (std::uint32_t(b[3]) << 24);
  } else {
    throw InputError(path + ": unsupported .npy version " + std::to_string(major));
  }
  if (hlen > (1u << 20)) throw InputError(path + ": implausible .npy header length");
  std::string h(hlen, '\0');
  if (!f.read(h.data(), hlen)) throw InputError(path + ": truncated .npy header");
  const std::string descr = dict_value(h, "descr", path);
  const std::string fo = dict_value(h, "fortran_order", path);
  const std::string shape = dict_value(h, "shape", path);
  NpyArray a;
  if (descr == "'<f8'" || descr == "'=f8'" || descr == "'|f8'")
    a.fp64 = true;
  else if (descr == "'<f4'" || descr == "'=f4'" || descr == "'|f4'")
    a.fp64 = false;
  else
    throw InputError(path + ": dtype " + descr + " is not supported; save " + what +
                     " as float32 or float64 (little-endian)");
  if (fo != "False")
    throw InputError(path + ": Fortran-order arrays are not supported; save a C-order array");
  // shape (r, c): decimal numbers (an old 'L' suffix allowed), checked for 64-bit overflow
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')')
    throw InputError(path + ": malformed .npy shape '" + shape + "'");
  std::vector<std::uint64_t> dims;
  std::stringstream ss(shape.substr(1, shape.size() - 2));
  std::string tok;
  while (std::getline(ss, tok, ',')) {
    const auto b = tok.find_first_not_of(' ');
    if (b == std::string::npos) continue;
    auto e = tok.find_last_not_of(' ');
    if (tok[e] == 'L' && e > b) --e;  // a lone 'L' is no number (and e stays at or after b)
    std::uint64_t v = 0;
    const char* first = tok.data() + b;
    const char* last = tok.data() + e + 1;
    auto [p, ec] = std::from_chars(first, last, v);
    if (first >= last || ec != std::errc() || p != last)
      throw InputError(path + ": malformed .npy shape " + shape + " (need non-negative integers below 2^64)");
    dims.push_back(v);
  }
  if (dims.size() != 2)
    throw InputError(path + ": " + what + " must be a 2-D array (n rows, d columns); shape is " + shape);
  a.rows = dims[0];
  a.cols = dims[1];
  const std::uint64_t es = a.fp64 ? 8 : 4;
  const std::uint64_t need = sat_mul(sat_mul(a.rows, a.cols), es);
  const std::uint64_t here = 10 + (major == 1 ? 0 : 2) + hlen;
  if (file_bytes < here || file_bytes - here != need)
    throw InputError(path + ": data size " + std::to_string(file_bytes < here ? 0 : file_bytes - here) +
                     " bytes does not match shape " + shape);
  if (!with_data) return a;
  check_memory(need, 0, "reading " + path);
  const std::size_t count = a.size();
  if (a.fp64) {
    a.f64.resize(count);
    f.read(reinterpret_cast<char*>(a.f64.data()), static_cast<std::streamsize>(need));
  } else {
    a.f32.resize(count);
    f.read(reinterpret_cast<char*>(a.f32.data()), static_cast<std::streamsize>(need));
  }
  if (!f) throw InputError(path + ": truncated .npy data");
  return a;
}

}  // namespace

NpyArray read_npy(const std::string& path, const std::string& what) {
  return read_npy_file(path, true, what);
}

NpyArray read_npy_shape(const std::string& path, const std::string& what) {
  return read_npy_file(path, false, what);
}

void write_npy(const std::string& path, const NpyArray& a) {
  if ((a.fp64 ? a.f64.size() : a.f32.size()) != a.size())
    throw RuntimeFailure("write_npy: size does not match shape");
  std::string h = "{'descr': '" + std::string(a.fp64 ? "<f8" : "<f4") +
                  "', 'fortran_order': False, 'shape': (" + std::to_string(a.rows) + ", " +
                  std::to_string(a.cols) + "), }";
  const std::size_t total = 10 + h.size() + 1;
  h.append((64 - total % 64) % 64, ' ');
  h.push_back('\n');
  std::string out = "\x93NUMPY";
  out.push_back(1);
  out.push_back(0);
  out.push_back(static_cast<char>(h.size() & 0xff));
  out.push_back(static_cast<char>((h.size() >> 8) & 0xff));
  out += h;
  if (a.fp64)
    out.append(reinterpret_cast<const char*>(a.f64.data()), a.f64.size() * 8);
  else
    out.append(reinterpret_cast<const char*>(a.f32.data()), a.f32.size() * 4);
  write_file_atomic(path, out);
}

namespace {

NpyArray read_mtx_dense(const std::string& path) {
  const std::uint64_t file_bytes = detail::check_input_file(path, "Matrix Market file");
  std::ifstream f(path);
  if (!f) throw InputError("cannot open " + path + " (missing or not readable)");
  std::string line;
  std::getline(f, line);
  std::string lower = line;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.rfind("%%matrixmarket matrix", 0) != 0) throw InputError(path + ": not a Matrix Market file");
  const bool array = lower.find(" array") != std::string::npos;
  const bool coord = lower.find(" coordinate") != std::string::npos;
  if (!array && !coord) throw InputError(path + ": Matrix Market format must be 'array' or 'coordinate'");
  if (lower.find(" complex") != std::string::npos || lower.find(" pattern") != std::string::npos)
    throw InputError(path + ": X must be real or integer");
  if (lower.find(" general") == std::string::npos)
    throw InputError(path + ": X must be 'general' (not symmetric)");
  while (std::getline(f, line))
    if (!line.empty() && line[0] != '%') break;
  std::istringstream hs(line);
  NpyArray a;
  a.fp64 = true;
  std::uint64_t nnz = 0;
  if (!(hs >> a.rows >> a.cols)) throw InputError(path + ": malformed size line");
  if (coord && !(hs >> nnz)) throw InputError(path + ": malformed size line");
  // istream reads "-4" into an unsigned as 2^64 - 4: refuse signs, and empty shapes (a loop over 2^64
  // columns of zero rows would never end)
  if (line.find('-') != std::string::npos || a.rows == 0 || a.cols == 0)
    throw InputError(path + ": malformed size line '" + line + "' (need positive rows and columns)");
  // rows * cols in checked arithmetic; each value takes at least 2 bytes ("0\n"), each coordinate entry 6
  const std::uint64_t cells = sat_mul(a.rows, a.cols);
  const std::uint64_t min_bytes = array ? sat_mul(cells, 2) : sat_mul(nnz, 6);
  if (min_bytes > sat_add(file_bytes, 1))
    throw InputError(path + ": the size line announces " +
                     (array ? std::to_string(a.rows) + " x " + std::to_string(a.cols) + " values"
                            : std::to_string(nnz) + " entries") +
                     " but the file has only " + std::to_string(file_bytes) + " bytes");
  check_memory(
      sat_mul(cells, 8), 0,
      "reading " + path + " (" + std::to_string(a.rows) + " x " + std::to_string(a.cols) + " doubles)");
  a.f64.assign(a.size(), 0.0);
  if (array) {
    for (std::uint64_t c = 0; c < a.cols; ++c)
      for (std::uint64_t r = 0; r < a.rows; ++r) {
        double v;
        if (!(f >> v)) throw InputError(path + ": expected " + std::to_string(a.size()) + " values");
        a.f64[r * a.cols + c] = v;
      }
  } else {
    for (std::uint64_t k = 0; k < nnz; ++k) {
      std::uint64_t r, c;
      double v;
      if (!(f >> r >> c >> v)) throw InputError(path + ": expected " + std::to_string(nnz) + " entries");
      if (r < 1 || r > a.rows || c < 1 || c > a.cols) throw InputError(path + ": entry outside the matrix");
      a.f64[(r - 1) * a.cols + (c - 1)] = v;
    }
  }
  return a;
}

NpyArray read_csv(const std::string& path) {
  // Each value takes at least 2 bytes of the file ("0,"): at most 4 bytes of doubles per byte read.
  check_memory(sat_mul(detail::check_input_file(path, "CSV file"), 4), 0, "reading " + path);
  std::ifstream f(path);
  if (!f) throw InputError("cannot open " + path + " (missing or not readable)");
  NpyArray a;
  a.fp64 = true;
  std::string line;
  std::uint64_t lineno = 0;
  while (std::getline(f, line)) {
    ++lineno;
    if (line.empty() || line[0] == '#') continue;
    for (auto& c : line)
      if (c == ',' || c == ';' || c == '\t') c = ' ';
    std::istringstream ls(line);
    std::uint64_t k = 0;
    std::string tok;
    while (ls >> tok) {
      char* end = nullptr;
      const double v = std::strtod(tok.c_str(), &end);
      if (end == tok.c_str() || *end != '\0') {
        if (a.rows == 0 && k == 0) goto header;  // a header line
        throw InputError(path + ":" + std::to_string(lineno) + ": not a number: '" + tok + "'");
      }
      a.f64.push_back(v);
      ++k;
    }
    if (a.rows == 0) a.cols = k;
    if (k != a.cols)
      throw InputError(path + ":" + std::to_string(lineno) + ": " + std::to_string(k) + " values, expected " +
                       std::to_string(a.cols));
    ++a.rows;
  header:;
  }
  if (a.rows == 0) throw InputError(path + ": no rows");
  return a;
}

}  // namespace

NpyArray read_dense(const std::string& path) {
  const std::string e = ext_of(path);
  if (e == ".npy") return read_npy(path);
  if (e == ".mtx") return read_mtx_dense(path);
  if (e == ".csv" || e == ".txt") return read_csv(path);
  throw UsageError(path + ": unknown file type '" + e + "' (use .npy, .mtx or .csv)");
}

void check_dense_extension(const std::string& path) {
  const std::string e = ext_of(path);
  if (e != ".npy" && e != ".mtx" && e != ".csv" && e != ".txt")
    throw UsageError(path + ": unknown file type '" + e + "' (use .npy, .mtx or .csv)");
}

void write_dense(const std::string& path, const NpyArray& a) {
  const std::string e = ext_of(path);
  if (e == ".npy") return write_npy(path, a);
  auto val = [&](std::size_t k) { return a.fp64 ? a.f64[k] : double(a.f32[k]); };
  std::ostringstream o;
  o << std::setprecision(17);
  if (e == ".mtx") {
    o << "%%MatrixMarket matrix array real general\n" << a.rows << " " << a.cols << "\n";
    for (std::uint64_t c = 0; c < a.cols; ++c)
      for (std::uint64_t r = 0; r < a.rows; ++r) o << val(r * a.cols + c) << "\n";
  } else if (e == ".csv" || e == ".txt") {
    for (std::uint64_t r = 0; r < a.rows; ++r)
      for (std::uint64_t c = 0; c < a.cols; ++c) o << val(r * a.cols + c) << (c + 1 == a.cols ? "\n" : ",");
  } else {
    throw UsageError(path + ": unknown file type '" + e + "' (use .npy, .mtx or .csv)");
  }
  write_file_atomic(path, o.str());
}

}  // namespace mixgraph
