#include "mixgraph/atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "mixgraph/error.hpp"

namespace mixgraph {

void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& writer) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmp_name(".");
  tmp_name.append(target.filename().string()).append(".tmp.").append(std::to_string(::getpid()));
  const fs::path tmp = dir / tmp_name;
  try {
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) throw RuntimeFailure("cannot create '" + tmp.string() + "': " + std::strerror(errno));
      writer(out);
      out.flush();
      if (!out) throw RuntimeFailure("error while writing '" + tmp.string() + "'");
    }
    std::error_code ec;
    fs::rename(tmp, target, ec);
    if (ec) throw RuntimeFailure("cannot rename '" + tmp.string() + "' to '" + path + "': " + ec.message());
  } catch (...) {
    std::error_code ec;
    fs::remove(tmp, ec);
    throw;
  }
}

void write_file_atomic(const std::string& path, const std::string& content) {
  write_file_atomic(path, [&](std::ostream& os) { os << content; });
}

}  // namespace mixgraph
