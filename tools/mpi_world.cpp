#include "mpi_world.hpp"

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#ifdef MIXGRAPH_HAVE_MPI
#include <dlfcn.h>

#include <filesystem>

#include "mpi_plugin/mpi_plugin_abi.h"
#endif

namespace mixgraph::cli::mpi {
namespace {
int g_rank = 0, g_size = 1;

/// Launchers set one of these in every process they start (OpenMPI, PMIx, PMI-1/2: MPICH, srun).
bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

/// The number of ranks the launcher announced, or "" when it did not say.
std::string announced_ranks() {
  const char* ranks = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (!ranks) ranks = std::getenv("PMI_SIZE");
  return ranks ? ranks : "";
}

#ifdef MIXGRAPH_HAVE_MPI
/// The plugin's functions; all null until init() loaded it (only under a launcher).
struct Plugin {
  decltype(&mixgraph_mpi_init) init = nullptr;
  decltype(&mixgraph_mpi_finalize) finalize = nullptr;
  decltype(&mixgraph_mpi_abort) abort = nullptr;
  decltype(&mixgraph_mpi_bcast) bcast = nullptr;
  decltype(&mixgraph_mpi_send) send = nullptr;
  decltype(&mixgraph_mpi_recv) recv = nullptr;
} g_mpi;
bool g_started = false;

/// Where libmixgraph_mpi.so may be: beside the file holding this code (the build tree, or a relocated
/// install), then in the installed layout relative to it (bin/ -> lib/mixgraph/), then the configured
/// install directory.
std::vector<std::filesystem::path> plugin_candidates() {
  namespace fs = std::filesystem;
  std::vector<fs::path> c;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&launched_by_mpi), &info) && info.dli_fname) {
    std::error_code ec;
    fs::path self = fs::canonical(info.dli_fname, ec);
    if (ec) self = info.dli_fname;
    c.push_back(self.parent_path() / MIXGRAPH_MPI_PLUGIN_NAME);
    c.push_back(self.parent_path() / MIXGRAPH_MPI_PLUGIN_RELDIR / MIXGRAPH_MPI_PLUGIN_NAME);
  }
  c.push_back(fs::path(MIXGRAPH_MPI_PLUGIN_DIR) / MIXGRAPH_MPI_PLUGIN_NAME);
  return c;
}

/// Loads the plugin; on failure returns why (every place tried and the loader's reason).
std::string load_plugin() {
  std::string why;
  for (const auto& p : plugin_candidates()) {
    std::error_code ec;
    if (!std::filesystem::exists(p, ec)) {
      why += "\n  " + p.string() + ": not there";
      continue;
    }
    // RTLD_GLOBAL: MPI implementations load components of their own that expect libmpi's symbols.
    void* h = dlopen(p.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
      const char* e = dlerror();
      why += "\n  " + p.string() + ": " + (e ? e : "cannot be loaded");
      continue;
    }
    auto abi = reinterpret_cast<decltype(&mixgraph_mpi_abi)>(dlsym(h, "mixgraph_mpi_abi"));
    if (!abi || abi() != MIXGRAPH_MPI_PLUGIN_ABI) {
      why += "\n  " + p.string() + ": not a plugin of this mixgraph version";
      continue;
    }
#define MIXGRAPH_MPI_SYM(field, name) g_mpi.field = reinterpret_cast<decltype(g_mpi.field)>(dlsym(h, #name));
    MIXGRAPH_MPI_SYM(init, mixgraph_mpi_init)
    MIXGRAPH_MPI_SYM(finalize, mixgraph_mpi_finalize)
    MIXGRAPH_MPI_SYM(abort, mixgraph_mpi_abort)
    MIXGRAPH_MPI_SYM(bcast, mixgraph_mpi_bcast)
    MIXGRAPH_MPI_SYM(send, mixgraph_mpi_send)
    MIXGRAPH_MPI_SYM(recv, mixgraph_mpi_recv)
#undef MIXGRAPH_MPI_SYM
    if (g_mpi.init && g_mpi.finalize && g_mpi.abort && g_mpi.bcast && g_mpi.send && g_mpi.recv) return "";
    g_mpi = Plugin{};
    why += "\n  " + p.string() + ": a function is missing";
  }
  return why;
}

void send_bytes(const std::string& s, int to) {
  std::uint64_t len = s.size();
  g_mpi.send(&len, sizeof len, to, 1);
  g_mpi.send(s.data(), len, to, 2);
}
std::string recv_bytes(int from) {
  std::uint64_t len = 0;
  g_mpi.recv(&len, sizeof len, from, 1);
  std::string s(len, '\0');
  g_mpi.recv(s.data(), len, from, 2);
  return s;
}
#endif
}  // namespace

bool built_with_mpi() {
#ifdef MIXGRAPH_HAVE_MPI
  return true;
#else
  return false;
#endif
}

void init([[maybe_unused]] int* argc, [[maybe_unused]] char*** argv) {
  if (!launched_by_mpi()) return;
  const std::string ranks = announced_ranks();
#ifdef MIXGRAPH_HAVE_MPI
  const std::string why = load_plugin();
  if (why.empty()) {
    if (g_mpi.init(argc, argv, &g_rank, &g_size) == 0) {
      g_started = true;
      return;
    }
    g_rank = 0, g_size = 1;
  }
  if (!ranks.empty() && ranks != "1")
    std::cerr
        << "mixgraph: warning: started by an MPI launcher, but the MPI plugin libmixgraph_mpi.so could not "
           "be loaded or started; every process runs the whole job alone. Tried:"
        << why << "\n";
#else
  if (!ranks.empty() && ranks != "1")
    std::cerr << "mixgraph: warning: started by an MPI launcher, but this build has no MPI "
                 "(configure with -DMIXGRAPH_MPI=ON): every process runs the whole job alone\n";
#endif
}

void finalize() {
#ifdef MIXGRAPH_HAVE_MPI
  if (g_started) g_mpi.finalize();
  g_started = false;
#endif
}

int rank() {
  return g_rank;
}
int size() {
  return g_size;
}

void abort_job(int code) {
  std::cerr << std::flush;
#ifdef MIXGRAPH_HAVE_MPI
  if (g_started && g_size > 1) g_mpi.abort(code);
#endif
  std::exit(code);
}

void broadcast([[maybe_unused]] std::string& bytes) {
#ifdef MIXGRAPH_HAVE_MPI
  if (g_size <= 1) return;
  std::uint64_t len = bytes.size();
  g_mpi.bcast(&len, sizeof len);
  bytes.resize(len);
  g_mpi.bcast(bytes.data(), len);
#endif
}

std::vector<std::string> gather(const std::string& mine) {
  std::vector<std::string> all;
#ifdef MIXGRAPH_HAVE_MPI
  if (g_size > 1) {
    if (g_rank != 0) {
      send_bytes(mine, 0);
      return all;
    }
    all.push_back(mine);
    for (int r = 1; r < g_size; ++r) all.push_back(recv_bytes(r));
    return all;
  }
#endif
  all.push_back(mine);
  return all;
}

}  // namespace mixgraph::cli::mpi
