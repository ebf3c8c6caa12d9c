#include "mpi_world.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#ifdef MIXGRAPH_HAVE_MPI
#include <mpi.h>
#endif

namespace mixgraph::cli::mpi {
namespace {
int g_rank = 0, g_size = 1;
[[maybe_unused]] bool g_started = false;

#ifdef MIXGRAPH_HAVE_MPI
/// Launchers set one of these in every process they start (OpenMPI, PMIx, PMI-1/2: MPICH, srun).
bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

constexpr std::uint64_t kChunk = std::uint64_t{1} << 30;  // MPI counts are int: send in 1 GiB pieces
void send_bytes(const std::string& s, int to) {
  std::uint64_t len = s.size();
  MPI_Send(&len, 1, MPI_UINT64_T, to, 1, MPI_COMM_WORLD);
  for (std::uint64_t off = 0; off < len; off += kChunk)
    MPI_Send(s.data() + off, static_cast<int>(std::min(kChunk, len - off)), MPI_BYTE, to, 2, MPI_COMM_WORLD);
}
std::string recv_bytes(int from) {
  std::uint64_t len = 0;
  MPI_Recv(&len, 1, MPI_UINT64_T, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  std::string s(len, '\0');
  for (std::uint64_t off = 0; off < len; off += kChunk)
    MPI_Recv(s.data() + off, static_cast<int>(std::min(kChunk, len - off)), MPI_BYTE, from, 2, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
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
#ifdef MIXGRAPH_HAVE_MPI
  if (!launched_by_mpi()) return;
  int provided = 0;
  // OpenMP threads inside a rank; only the main thread calls MPI
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  g_started = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
#else
  const char* ranks = std::getenv("OMPI_COMM_WORLD_SIZE");
  if (!ranks) ranks = std::getenv("PMI_SIZE");
  if (ranks && std::string(ranks) != "1")
    std::cerr << "mixgraph: warning: started by an MPI launcher, but this build has no MPI "
                 "(configure with -DMIXGRAPH_MPI=ON): every process runs the whole job alone\n";
#endif
}

void finalize() {
#ifdef MIXGRAPH_HAVE_MPI
  if (g_started) MPI_Finalize();
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
  if (g_started && g_size > 1) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::exit(code);
}

void broadcast([[maybe_unused]] std::string& bytes) {
#ifdef MIXGRAPH_HAVE_MPI
  if (g_size <= 1) return;
  std::uint64_t len = bytes.size();
  MPI_Bcast(&len, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  bytes.resize(len);
  for (std::uint64_t off = 0; off < len; off += kChunk)
    MPI_Bcast(bytes.data() + off, static_cast<int>(std::min(kChunk, len - off)), MPI_BYTE, 0, MPI_COMM_WORLD);
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
