#pragma once
// Dense 2-D arrays on disk for `mixgraph solve`: a small strict .npy reader/writer (float32 / float64,
// little-endian, C order, 2-D), Matrix Market 'array' / 'coordinate' real files and CSV.
//
//   auto x = mixgraph::read_dense("x.npy");       // by extension: .npy, .mtx, .csv
//   mixgraph::write_dense("y.npy", y);             // atomic (temporary file, then rename)
#include <cstdint>
#include <string>
#include <vector>

namespace mixgraph {

struct NpyArray {
  std::uint64_t rows = 0, cols = 0;
  bool fp64 = true;  ///< which of f64 / f32 holds the values (row-major rows x cols)
  std::vector<double> f64;
  std::vector<float> f32;
  std::size_t size() const { return static_cast<std::size_t>(rows * cols); }
};

/// Reads a .npy file. Accepts descr '<f4' / '<f8' (or '|'/'=' on little-endian), fortran_order False, shape
/// (r, c), each header key once; anything else throws InputError naming the file and what was found, with
/// `what` naming the array in the advice ("save <what> as float32 ..."; default "X"). O(size).
NpyArray read_npy(const std::string& path, const std::string& what = "X");
/// The header of a .npy file as read_npy checks it (dtype, C order, a 2-D shape matching the file's size):
/// rows, cols and fp64 set, no values read. Lets a caller refuse a wrong shape before reading the data.
NpyArray read_npy_shape(const std::string& path, const std::string& what = "X");
/// Writes .npy version 1.0 ('<f8' or '<f4' as a.fp64), atomically. Throws RuntimeFailure on I/O errors.
void write_npy(const std::string& path, const NpyArray& a);

/// By extension: .npy; .mtx (Matrix Market 'array' real/integer, column-major as the format says, or
/// 'coordinate' real/integer general); .csv / .txt (one row per line, comma or whitespace separated).
/// Non-.npy files are read as fp64. Throws InputError for malformed files.
NpyArray read_dense(const std::string& path);
/// Throws InputError at the first NaN or +-inf of `a` (row-major): "<what>: row R, column C (1-indexed) is
/// nan, values must be finite<advice>". Called on X by solve (unless --allow-nonfinite) and on weight files.
/// O(rows * cols).
void require_finite(const NpyArray& a, const std::string& what, const std::string& advice = "");
/// The same check on a caller's row-major rows x cols array of doubles (fp64) or floats, read in place.
void require_finite(const void* data, bool fp64, std::uint64_t rows, std::uint64_t cols,
                    const std::string& what, const std::string& advice = "");

/// Refuses (UsageError) a path write_dense cannot write: an extension other than .npy, .mtx, .csv or .txt.
/// O(1); lets a command refuse before any work.
void check_dense_extension(const std::string& path);
/// By extension: .npy, .mtx (array format), .csv. Atomic.
void write_dense(const std::string& path, const NpyArray& a);

}  // namespace mixgraph
