// libmixgraph_mpi.so: the CLI's only MPI calls, behind the plain-C functions of mpi_plugin_abi.h.
#include <mpi.h>

#include <algorithm>
#include <cstdint>

#include "mpi_plugin_abi.h"

namespace {
constexpr std::uint64_t kChunk = std::uint64_t{1} << 30;  // MPI counts are int: 1 GiB pieces

int piece(std::uint64_t len, std::uint64_t off) {
  return static_cast<int>(std::min(kChunk, len - off));
}
}  // namespace

extern "C" {

__attribute__((visibility("default"))) int mixgraph_mpi_abi(void) {
  return MIXGRAPH_MPI_PLUGIN_ABI;
}

__attribute__((visibility("default"))) int mixgraph_mpi_init(int* argc, char*** argv, int* rank, int* size) {
  int provided = 0;
  // OpenMP threads inside a rank; only the main thread calls MPI
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return 1;
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  return 0;
}

__attribute__((visibility("default"))) void mixgraph_mpi_finalize(void) {
  MPI_Finalize();
}

__attribute__((visibility("default"))) void mixgraph_mpi_abort(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
}

__attribute__((visibility("default"))) void mixgraph_mpi_bcast(void* data, std::uint64_t len) {
  auto* p = static_cast<char*>(data);
  for (std::uint64_t off = 0; off < len; off += kChunk)
    MPI_Bcast(p + off, piece(len, off), MPI_BYTE, 0, MPI_COMM_WORLD);
}

__attribute__((visibility("default"))) void mixgraph_mpi_send(const void* data, std::uint64_t len, int to,
                                                              int tag) {
  const auto* p = static_cast<const char*>(data);
  for (std::uint64_t off = 0; off < len; off += kChunk)
    MPI_Send(p + off, piece(len, off), MPI_BYTE, to, tag, MPI_COMM_WORLD);
}

__attribute__((visibility("default"))) void mixgraph_mpi_recv(void* data, std::uint64_t len, int from,
                                                              int tag) {
  auto* p = static_cast<char*>(data);
  for (std::uint64_t off = 0; off < len; off += kChunk)
    MPI_Recv(p + off, piece(len, off), MPI_BYTE, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

}  // extern "C"
