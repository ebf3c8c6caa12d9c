#pragma once
// Ranks under mpirun / srun: a thin layer over MPI's C API. Built without MPI (MIXGRAPH_MPI=OFF or MPI not
// found), or started without an MPI launcher, every call is a no-op for a single rank 0.
#include <string>
#include <vector>

namespace mixgraph::cli::mpi {

/// Starts MPI when this process was started by an MPI launcher (mpirun, mpiexec, srun with PMI/PMIx);
/// otherwise leaves MPI alone and the process is rank 0 of 1.
void init(int* argc, char*** argv);
/// Ends MPI if init started it.
void finalize();
/// True when mixgraph was built with MPI.
bool built_with_mpi();
int rank();
int size();
inline bool root() {
  return rank() == 0;
}
/// Ends every rank of the job with this exit code (after a failure on one rank). Without MPI: std::exit.
[[noreturn]] void abort_job(int code);
/// Rank 0's `bytes` on every rank.
void broadcast(std::string& bytes);
/// Every rank's `mine`, on rank 0 in rank order (other ranks get an empty vector). Any size.
std::vector<std::string> gather(const std::string& mine);

}  // namespace mixgraph::cli::mpi
