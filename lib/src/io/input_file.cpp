#include "io/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include "mixgraph/error.hpp"
#include "mixgraph/npy.hpp"

namespace mixgraph::detail {

std::uint64_t check_input_file(const std::string& path, const std::string& what) {
  // O_NONBLOCK: opening a FIFO without a writer returns at once instead of waiting for one.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT)
      throw MissingInputFile("cannot open " + what + " '" + path + "': " + std::strerror(err));
    throw InputError("cannot open " + what + " '" + path + "': " + std::strerror(err));
  }
  struct stat st {};
  const int rc = ::fstat(fd, &st);
  const int err = errno;
  ::close(fd);
  if (rc != 0) throw InputError("cannot read " + what + " '" + path + "': " + std::strerror(err));
  if (S_ISDIR(st.st_mode)) throw InputError(what + " '" + path + "' is a directory, not a file");
  if (!S_ISREG(st.st_mode))
    throw InputError(what + " '" + path +
                     "' is not a regular file (a FIFO, socket or device); save the data to a file first");
  return static_cast<std::uint64_t>(st.st_size);
}

}  // namespace mixgraph::detail

namespace mixgraph {
namespace {

/// The index of the first NaN or +-inf of v[0 .. size), or size.
template <class T>
std::size_t first_nonfinite(const T* v, std::size_t size) {
  for (std::size_t k = 0; k < size; ++k)
    if (!std::isfinite(v[k])) return k;
  return size;
}

}  // namespace

void require_finite(const NpyArray& a, const std::string& what, const std::string& advice) {
  require_finite(a.fp64 ? static_cast<const void*>(a.f64.data()) : static_cast<const void*>(a.f32.data()),
                 a.fp64, a.rows, a.cols, what, advice);
}

void require_finite(const void* data, bool fp64, std::uint64_t rows, std::uint64_t cols,
                    const std::string& what, const std::string& advice) {
  const std::size_t size = static_cast<std::size_t>(rows * cols);
  if (size == 0) return;
  const std::size_t k = fp64 ? first_nonfinite(static_cast<const double*>(data), size)
                             : first_nonfinite(static_cast<const float*>(data), size);
  if (k == size) return;
  const double v = fp64 ? static_cast<const double*>(data)[k] : double(static_cast<const float*>(data)[k]);
  const std::string value = std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
  throw InputError(what + ": row " + std::to_string(k / cols + 1) + ", column " +
                   std::to_string(k % cols + 1) + " (1-indexed) is " + value + "; values must be finite" +
                   advice);
}

}  // namespace mixgraph
