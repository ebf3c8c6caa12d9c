#pragma once
// A CPU reference of gpu-pipeline's gather stage, in plain C++17 (no CUDA), so it builds and is tested
// everywhere.
//
// gpu-pipeline's gather (gpu/src/pipeline_gather.cuh): the V part of the package of (tile t, chunk c),
// [TC rows][TW columns], row r column u: (A X + the reads of B at offsets >= F, with the final Y)[c TC + r,
// t TW + u], 0 outside n x d. TC = 64, TW = 32, F = 128 KiB / (TW * sizeof(T)) (1024 fp32, 512 fp64), as in
// gpu/src/common.cuh (gpu/src/stage_debug.cu checks that the constants agree). The kernel splits a row's
// terms over threads and two accumulators, so its sums agree with these to rounding, not bit for bit
// (pipeline_gather_gpu, gpu/src/stage_debug_gather.cu, runs the gather alone).
#include <cstdint>
#include <string>
#include <vector>

#include "mixgraph/gpu_solve.hpp"

namespace mixgraph::gpu {

/// gpu-pipeline's package constants (gpu/src/common.cuh).
inline constexpr std::uint32_t kPipelineChunk = 64;  ///< TC: rows per chunk
inline constexpr std::uint32_t kPipelineTile = 32;   ///< TW: columns per tile
template <class T>
constexpr std::uint32_t pipeline_far_offset() {  ///< F: reads at offsets >= F go into the package
  return std::uint32_t(131072 / (kPipelineTile * sizeof(T)));
}

/// The V parts of every package of gpu-pipeline's gather, [chunk c][tile t][TC][TW] (chunks of TC rows,
/// ceil(n / TC) of them; tiles of TW columns, ceil(d / TW)): A X plus B's reads at offsets >= far, read
/// from y (the solve's final Y, row-major n x d), summed in double in read order, then rounded to T. A and
/// B implicit or CSR with Values coefficients. Throws std::invalid_argument for other coefficient sources
/// or a T that does not match p.fp64. O(n d (nnz per row of A and B)) time, O(ceil(n/TC) TC x
/// ceil(d/TW) TW) memory.
template <class T>
std::vector<T> pipeline_gather_reference(const SolveProblem& p, const T* x, const T* y,
                                         std::uint32_t far = pipeline_far_offset<T>());

/// gpu-pipeline's gather run alone (tests): one gather CTA (threads per output 1, vector width 1, direct
/// packages: V only) with every Y row already final (progress set, y the solve's final Y), over every
/// (chunk, tile) item in order; the ring keeps the last L = F / TC chunks of each tile, so those come back:
/// chunks [first_chunk, ceil(n / TC)) in pipeline_gather_reference's layout. Without CUDA or a GPU, or
/// where the coefficients are not Values on the host: ran = false and a note.
template <class T>
struct GatherRun {
  bool ran = false;
  std::string note;
  std::uint32_t first_chunk = 0;
  std::vector<T> v;  ///< [chunk - first_chunk][tile][TC][TW]
};
template <class T>
GatherRun<T> pipeline_gather_gpu(const SolveProblem& p, const T* x, const T* y);

}  // namespace mixgraph::gpu
