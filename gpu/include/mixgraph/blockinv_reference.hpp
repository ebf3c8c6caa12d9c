#pragma once
// A CPU reference of gpu-blockinv's package build (bi_build, gpu/src/blockinv_build.cuh): for every (head,
// chunk of C rows) the inverse of the chunk's diagonal block of I - B, L_c^{-1}, and the chunk's read lists
// of earlier rows, in the same byte layout and with the same floating-point operations in the same order,
// so that the GPU's packages can be compared byte for byte (docs/design.md, gpu-blockinv).
//
// Package of (head h, chunk c) at bytes [(h * nchunks + c) * pkg_bytes, + pkg_bytes):
//   L^{-1}: padded rows (row q at lrow_start(q) elements, zeros elsewhere), or, fp32 with mma, the A
//           fragments of mma.sync m16n8k8 (tile (mi, ki), ki <= 2 mi + 1, at index mi (mi + 1) + ki, 32
//           lanes x 4 values: rows 16 mi + l / 4 (+ 8), columns 8 ki + l % 4 (+ 4));
//   E at linv_bytes: coef [kx][C] T | off [kx][C] u32 (absent with nooff) | cnt [C] u32, where row r's
//           reads of rows before the chunk are sorted by offset o, cnt = nn | nr << 10 | nx << 20 (reads
//           [0, nn) near: o <= r + C, [nn, nr) ring: o <= R - C, [nr, nx) beyond), unused entries 0; the
//           bytes after cnt up to e_bytes (16-byte rounding) are not defined.
// Plain C++17 (no CUDA), so it builds and is tested everywhere.
#include <cstdint>
#include <string>
#include <vector>

#include "mixgraph/gpu_solve.hpp"

namespace mixgraph::gpu {

/// What fixes a package's bytes besides the problem (the planner's choices; the GPU run reports them).
struct PackageLayout {
  std::uint32_t chunk = 64;  ///< C: 32 or 64
  std::uint32_t kx = 1;      ///< read-list capacity per row
  std::uint32_t R = 4096;    ///< ring rows (classifies reads as ring or beyond)
  std::uint32_t split = 0;   ///< > 0: reads at offsets >= split are left out (split mode's far workers)
  std::uint32_t kin = 1;     ///< the longest in-chunk read list of a row (offset 1 not counted)
  std::uint32_t ku = 4;      ///< in-chunk reads summed in two alternating accumulators first (4 to 8)
  bool mma = false;          ///< fp32 only: L^{-1} in mma fragment order
  bool nooff = false;        ///< read lists without offsets
  std::uint32_t linv_bytes = 0, e_bytes = 0, pkg_bytes = 0;  ///< 0: computed from the above
};

/// gpu-blockinv's packages as the GPU built them (tests): the planner runs with o and must choose
/// gpu-blockinv, then one solve (X = 0); the packages and the layout they were built with come back.
/// Without CUDA or a GPU: ran = false and a note. Bytes after each package's cnt are not defined.
struct BlockInvPackages {
  bool ran = false;
  std::string kernel, note;
  PackageLayout layout;
  std::vector<unsigned char> bytes;  ///< [heads][chunks] packages of layout.pkg_bytes
};
BlockInvPackages blockinv_packages(const SolveProblem& p, const SolveOptions& o = {});

/// Bytes of the package parts for p's precision (fills L's zero fields).
void complete_layout(const SolveProblem& p, PackageLayout& L);

/// lrow_start(q): the element index where row q of L^{-1} starts in the padded-row layout.
std::uint32_t lrow_start(std::uint32_t q, bool fp64);

/// The packages of every (head, chunk) (heads = p.heads, chunks of L.chunk rows), bytes after each
/// package's cnt set to 0. Throws std::runtime_error when a row's reads overflow kx or kin.
std::vector<unsigned char> blockinv_packages_reference(const SolveProblem& p, PackageLayout L);

}  // namespace mixgraph::gpu
