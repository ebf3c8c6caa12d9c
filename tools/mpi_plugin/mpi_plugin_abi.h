/* The functions of libmixgraph_mpi.so, the plugin that holds every MPI call of the CLI. The CLI loads it
 * with dlopen only when an MPI launcher started the process (tools/mpi_world.cpp), so a process that runs
 * alone never maps libmpi and its libraries. Plain C types only; the version is checked on load. */
#ifndef MIXGRAPH_MPI_PLUGIN_ABI_H
#define MIXGRAPH_MPI_PLUGIN_ABI_H
#include <stdint.h>

#define MIXGRAPH_MPI_PLUGIN_ABI 1

#ifdef __cplusplus
extern "C" {
#endif
/* MIXGRAPH_MPI_PLUGIN_ABI of the plugin. */
int mixgraph_mpi_abi(void);
/* MPI_Init_thread (MPI_THREAD_FUNNELED); this rank and the number of ranks. 0 on success. */
int mixgraph_mpi_init(int* argc, char*** argv, int* rank, int* size);
void mixgraph_mpi_finalize(void);
/* MPI_Abort of the whole job. */
void mixgraph_mpi_abort(int code);
/* len bytes from rank 0 to every rank (len must be the same everywhere); any size. */
void mixgraph_mpi_bcast(void* data, uint64_t len);
/* len bytes to / from one rank, with a tag; any size (sent in pieces MPI's int counts can hold). */
void mixgraph_mpi_send(const void* data, uint64_t len, int to, int tag);
void mixgraph_mpi_recv(void* data, uint64_t len, int from, int tag);
#ifdef __cplusplus
}
#endif
#endif
