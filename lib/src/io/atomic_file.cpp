#include "mixgraph/atomic_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <streambuf>
#include <vector>

#include "mixgraph/error.hpp"

namespace mixgraph {

namespace {

// Temporary files of writes in progress, for the signal handler: fixed slots, no allocation there.
struct TempSlot {
  std::atomic<int> state{0};  // 0 free, 1 being filled, 2 holds a path
  char path[PATH_MAX];
};
TempSlot g_slots[64];

int register_temp(const std::string& p) {
  if (p.size() >= PATH_MAX) return -1;
  for (int i = 0; i < 64; ++i) {
    int expected = 0;
    if (g_slots[i].state.compare_exchange_strong(expected, 1)) {
      std::memcpy(g_slots[i].path, p.c_str(), p.size() + 1);
      g_slots[i].state.store(2);
      return i;
    }
  }
  return -1;  // more than 64 writes at once: that one is only removed by the next run
}

void unregister_temp(int slot) {
  if (slot >= 0) g_slots[slot].state.store(0);
}

std::atomic<bool> g_dying{false};  // set first by the handler; a write that opens its file after sees it

extern "C" void remove_temps_and_reraise(int sig) {
  g_dying.store(true);
  for (auto& s : g_slots)
    if (s.state.load() == 2) ::unlink(s.path);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

std::string sys_error(int err) {
  return std::strerror(err);
}

// An ostream buffer over a file descriptor that remembers the first write error.
class FdBuf : public std::streambuf {
 public:
  explicit FdBuf(int fd) : fd_(fd), buf_(1 << 16) { setp(buf_.data(), buf_.data() + buf_.size()); }
  int error() const { return err_; }

 protected:
  int_type overflow(int_type ch) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    for (char* p = pbase(); p < pptr();) {
      const ssize_t w = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        if (!err_) err_ = w < 0 ? errno : EIO;
        return false;
      }
      p += w;
    }
    setp(buf_.data(), buf_.data() + buf_.size());
    return true;
  }
  int fd_;
  std::vector<char> buf_;
  int err_ = 0;
};

// Runs `writer` into fd; returns 0 or the errno of the first failed write.
int stream_into(int fd, const std::function<void(std::ostream&)>& writer) {
  FdBuf buf(fd);
  std::ostream os(&buf);
  writer(os);
  os.flush();
  return buf.error() ? buf.error() : (os ? 0 : EIO);
}

// Devices and FIFOs: written into, never replaced.
void write_special(const std::string& path, const std::function<void(std::ostream&)>& writer) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    const int err = errno;
    throw RuntimeFailure(
        "cannot write '" + path +
        "': " + (err == ENXIO ? std::string("a FIFO without a reader (or a socket)") : sys_error(err)));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  int err = 0;
  try {
    err = stream_into(fd, writer);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  if (err) throw RuntimeFailure("error while writing '" + path + "': " + sys_error(err));
}

std::string unique_suffix() {
  static std::atomic<unsigned> counter{0};
  static const unsigned seed = std::random_device{}();
  return std::to_string(::getpid()) + "." + std::to_string(seed % 100000) + "-" + std::to_string(counter++);
}

}  // namespace

void install_temp_file_cleanup() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
    struct sigaction sa {};
    sa.sa_handler = remove_temps_and_reraise;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

void remove_stale_temp_files(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const std::string dir = target.has_parent_path() ? target.parent_path().string() : std::string(".");
  std::string prefix(".");  // built by append: GCC 12's -Wrestrict misfires on "." + string
  prefix.append(target.filename().string()).append(".tmp.");
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    char* end = nullptr;
    const long pid = std::strtol(name.c_str() + prefix.size(), &end, 10);
    if (pid <= 0 || *end != '.') continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) ::unlink((dir + "/" + name).c_str());
  }
  ::closedir(d);
}

void write_file_atomic(const std::string& path_in, const std::function<void(std::ostream&)>& writer) {
  namespace fs = std::filesystem;
  std::string path = path_in;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    std::error_code ec;
    const fs::path real = fs::canonical(path, ec);
    if (ec) throw RuntimeFailure("cannot write '" + path + "': a symbolic link to a missing file or folder");
    path = real.string();
  }
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) throw RuntimeFailure("cannot write '" + path + "': it is a directory");
  if (exists && !S_ISREG(st.st_mode)) return write_special(path, writer);

  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  remove_stale_temp_files(path);
  std::string tmp;
  int fd = -1;
  int slot = -1;
  for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
    std::string name(".");
    name.append(target.filename().string()).append(".tmp.").append(unique_suffix());
    tmp = (dir / name).string();
    // Registered before the file exists: a signal between open() and registration would leave it behind.
    slot = register_temp(tmp);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 && g_dying.load()) ::unlink(tmp.c_str());  // a signal handler ran while we created it
    if (fd >= 0) break;
    const int err = errno;
    unregister_temp(slot);
    slot = -1;
    if (err != EEXIST)
      throw RuntimeFailure("cannot write '" + path + "': cannot create a file in '" + dir.string() +
                           "': " + sys_error(err));
  }
  if (fd < 0) throw RuntimeFailure("cannot write '" + path + "': no unique temporary name in 100 tries");
  auto fail = [&](const std::string& why) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    unregister_temp(slot);
    return RuntimeFailure(why);
  };
  // Keep the replaced file's owner where we may (root; else it stays ours) and its permission bits.
  if (exists) {
    const int owned = ::fchown(fd, st.st_uid, st.st_gid);  // fails unless root (or already the owner)
    (void)owned;
    ::fchmod(fd, st.st_mode & 07777);
  }
  int err = 0;
  try {
    err = stream_into(fd, writer);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    unregister_temp(slot);
    throw;
  }
  if (err) throw fail("error while writing '" + path + "': " + sys_error(err));
  if (::fsync(fd) != 0) throw fail("cannot write '" + path + "' to disk: " + sys_error(errno));
  const int rc = ::close(fd);
  fd = -1;
  if (rc != 0) throw fail("error while writing '" + path + "': " + sys_error(errno));
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    throw fail("cannot replace '" + path + "': " + sys_error(e));
  }
  unregister_temp(slot);
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);  // make the rename durable
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void write_file_atomic(const std::string& path, const std::string& content) {
  write_file_atomic(path, [&](std::ostream& os) {
    os.write(content.data(), static_cast<std::streamsize>(content.size()));
  });
}

}  // namespace mixgraph
