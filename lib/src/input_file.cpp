#include "input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "mixgraph/error.hpp"

namespace mixgraph::detail {

std::uint64_t check_input_file(const std::string& path, const std::string& what) {
  // O_NONBLOCK: opening a FIFO without a writer returns at once instead of waiting for one.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
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
