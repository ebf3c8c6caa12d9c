#pragma once
// GPU sparse mixer solve Y = (I - B)^{-1} A X (docs/math.md): plain C++17 types and pointers only, so this
// header builds with or without CUDA (without it every entry point returns ran = false with a note).
//
//   mixgraph::gpu::SolveProblem p;            // structure + coefficients on the host
//   p.n = n; p.d = d; p.heads = 1; p.b.implicit = true; p.b.offsets = offs; p.b.k = K; ...
//   auto r = mixgraph::gpu::solve(p, x, y);   // r.kernel names the kernel that ran, r.kernel_ms its time
//   mixgraph::gpu::SolveOptions o; o.chunk = 32; r = mixgraph::gpu::solve(p, x, y, o);  // r.plan: why
//
// Kernels (docs/design.md), chosen per problem; every run names the one it used:
//  * "gpu-blockinv" (the default where it fits: d a multiple of 8 fp32 / 4 fp64 columns, heads of whole
//    tiles, read lists that fit shared memory): per (head, chunk of 64 rows) the inverse of the chunk's
//    diagonal block is built in parallel; then one CTA per column tile marches over the chunks,
//    y_c = L_c^{-1} (A X + reads of earlier rows). In split mode (the tiles on at most half of the
//    multiprocessors) far-worker CTAs compute A X + the long-range reads ahead of the tiles.
//  * "gpu-scan1" for first-order patterns (B reads only i - 1), a three-pass segment scan.
//  * "gpu-pipeline" for everything else (per-channel heads of higher order, d not a multiple of the tile):
//    one cooperative grid where a solver CTA per 32-column tile solves chunks row by row while all other
//    CTAs gather A X and the long-range reads into a ring of packages in global memory.
// X and Y are row-major n x d. fp32 uses FMA in fp32 (no TF32).
#include <cstdint>
#include <string>
#include <vector>

namespace mixgraph::gpu {

/// One matrix (A or B) in solver form. Coefficient of head h:
///   implicit: vals[h * hs + i * is + k * ks] = weight of the read i - offsets[k] (offsets ascending);
///   CSR:      vals[h * hs + e * is]          = weight of entry e (ptr/idx, rows sorted ascending).
/// Where the device gets a matrix's coefficients (no host array, no upload for Seeded and PerOffset: the
/// coefficients are written on the device, in the layout implicit hs = n k, is = k, ks = 1 / CSR hs = nnz,
/// is = 1, whatever hs, is and ks say).
enum class CoefGen {
  Values,     ///< vals holds every coefficient (strides hs, is, ks)
  Seeded,     ///< weight_gen.hpp: head h, row i, read j from (gen_seed + h, gen_matrix, gen_total)
  PerOffset,  ///< implicit only: vals holds [h][k], one coefficient per offset and head, for every row
              ///< (a host array, or a device array with vals_on_device)
};

struct SolveMatrix {
  bool implicit = true;
  const std::uint32_t* offsets = nullptr;
  std::uint32_t k = 0;
  const std::uint64_t* ptr = nullptr;  ///< n + 1
  const std::uint32_t* idx = nullptr;  ///< ptr[n]
  const void* vals = nullptr;          ///< float or double (SolveProblem::fp64)
  std::uint64_t hs = 0, is = 0, ks = 0;
  CoefGen gen = CoefGen::Values;
  std::uint64_t gen_seed = 0;    ///< Seeded: the seed of head 0
  std::uint32_t gen_matrix = 0;  ///< Seeded: weight_gen.hpp's matrix id (kMatrixA, kMatrixB)
  double gen_total = 0;          ///< Seeded: weight_gen.hpp's row total (kTotalA, kTotalB)
  /// vals is a device pointer (on the device of the solve), written by work queued before the solve on its
  /// stream; nothing is uploaded, nothing of it is read on the host.
  ///  * Values: read in place with the strides hs, is, ks. gpu-scan1 takes any strides, e.g. per-channel
  ///    gates G (n x d, row-major) of an ssm pattern with heads = d: k = 1, hs = 1, is = d, ks = n d. Every
  ///    other plan takes the canonical layouts only (implicit head-major [h][i][k]: hs = n k, is = k,
  ///    ks = 1; CSR [h][e]: hs = nnz, is = 1) and refuses others with a note.
  ///  * PerOffset (implicit): the (heads, k) table [h][k] in device memory, expanded on the device into
  ///    the solve's layout (every plan). The workspace slot is not reused by value across calls (the
  ///    values are not on the host): each call writes the expanded array again (heads n k values).
  bool vals_on_device = false;
  /// solve_planned (gpu_plan.hpp) only: host Values at vals that do not change while the plan lives (e.g.
  /// the files' values of an mtx: pattern held by a Mixer), so the plan uploads them once per address and
  /// reuses its device copy. Ignored elsewhere.
  bool vals_constant = false;
};

struct SolveProblem {
  std::uint32_t n = 0, d = 0, heads = 1;  ///< d a multiple of heads; column c is in head c / (d / heads)
  bool fp64 = false;
  SolveMatrix a, b;  ///< B strictly lower; A lower (diagonal = offset 0)
};

/// The planner's choices. Every field's default lets the planner decide (as docs/design.md describes); a
/// set field asks for one variant, where the problem allows it (else the planner falls back and
/// SolveRun::plan says why). The tools fill this from MIXGRAPH_GPU_* variables (docs/cli.md).
struct SolveOptions {
  enum class Kernel { Auto, BlockInv, Pipeline };
  enum class Split { Auto, Off, On };
  /// Where the device keeps implicit coefficients. HeadMajor: [h][i][k] (a head's rows contiguous).
  /// ChannelMajor: [k][i][h] (the heads of one row contiguous, so the threads of a warp, one per column,
  /// read one line: per-channel gates, heads = d). Only gpu-scan1 takes ChannelMajor; the other kernels
  /// always use HeadMajor. Auto: ChannelMajor for gpu-scan1 when a warp's 32 columns span several heads
  /// (d / heads < 32), else HeadMajor.
  enum class Layout { Auto, HeadMajor, ChannelMajor };
  /// Seeded coefficients in gpu-scan1: On makes each one inside the scan kernels from (seed, head, row,
  /// read) with weight_gen.hpp's generator, so no coefficient array exists (the same bits of Y as Off,
  /// which writes the coefficients to a device array first). It is meant for a warp's 32 columns spanning
  /// several heads (d / heads < 32, e.g. per-channel heads: the array would be as large as X); with wider
  /// heads the array is small and each column's thread would make the same coefficient. Auto: Off, until
  /// the fused instances are timed on a GPU against the array path. Other kernels always use Off.
  enum class Fused { Auto, Off, On };
  /// Auto: gpu-scan1 for first-order patterns, else gpu-blockinv where it fits, else gpu-pipeline.
  /// BlockInv: gpu-blockinv where it fits, also on first-order patterns. Pipeline: always gpu-pipeline.
  Kernel kernel = Kernel::Auto;
  std::uint32_t chunk = 0;    ///< blockinv rows per chunk: 0 = 64, or 32 when 64 does not fit; 32 = 32 only
  std::uint32_t ring = 0;     ///< blockinv ring rows: 0 = the largest power of two <= 4096 that fits; else
                              ///< a cap (a power of two, >= 8 chunks, 16 in split mode)
  Split split = Split::Auto;  ///< blockinv split mode (far-worker CTAs): Auto = where it fits, after ws
  int copy = 2;               ///< blockinv package copies: 0 cp.async, 1 TMA bulk (every thread waits),
                              ///< 2 TMA bulk (one thread waits; fastest, benchmarks.md GPU v7)
  bool tma = true;   ///< blockinv: staged rows by TMA tensor copies where they apply (false: cp.async)
  bool ytma = true;  ///< with tma: Y by one tensor store per chunk (false: per-thread stores)
  bool mma = true;   ///< fp32 blockinv: L^{-1} in fragment order, 3xTF32 mma (false: padded rows, FMA)
  bool ws = true;    ///< blockinv: the warp-specialized solve where it applies (false: bi_solve)
  bool swz = true;   ///< blockinv far sums: row halves in swizzled order (false: column order)
  Layout layout = Layout::Auto;      ///< coefficient layout on the device (gpu-scan1), see Layout
  Fused fused_seeded = Fused::Auto;  ///< seeded coefficients made inside gpu-scan1, see Fused
  /// solve_device only: true returns once Y is written (an event synchronisation, then the kernels' status
  /// checks: SolveRun::kernel_ms is measured). false returns once the work is queued on the stream: no
  /// host synchronisation, so the caller's next work (a training step's other kernels) is queued while
  /// the solve runs; kernel_ms is 0 (not measured), and an internal error a kernel reports is thrown by
  /// the next solve_device call on that device (its status is copied on the device into pinned host
  /// memory). Ignored (true) with profile.
  bool wait = true;
  bool verbose = false;  ///< print SolveRun::plan to stderr
  bool profile = false;  ///< print per-role cycle counters of the last launch to stderr (profile instances)
};

struct SolveRun {
  bool ran = false;
  std::string kernel;    ///< e.g. "gpu-pipeline-implicit<fp32,staged,...>"
  std::string plan;      ///< what the planner chose and why (e.g. why blockinv did not fit)
  double kernel_ms = 0;  ///< the solve kernel alone
  double total_ms = 0;   ///< uploads + device weights + kernel + download (the whole call)
  double y_sum = 0;      ///< solve_seeded_x: the sum of Y's entries, taken on the device (in double)
  /// solve_device: every coefficient array of the call was already in the device cache from an earlier
  /// call with the same seeded or per-offset weights (offsets, n, heads, seed or values, precision,
  /// layout), so none
  /// was written: the call paid the kernel alone. False where an array was written (or none exists).
  bool coefs_reused = false;
  std::string note;  ///< why it did not run
};

/// Host in, host out: X and Y row-major n x d (float or double as p.fp64). X goes up and Y comes down in
/// chunks through pinned staging slots, the host copies of one chunk overlapping the bus transfer of the
/// previous ones (pinned X or Y is copied directly). The device copies of X and Y and the call's other
/// buffers come from solve_device's per-device cache (below), and the staging (4 x 16 MiB of pinned
/// memory) is kept too: both are held for the next call until release_workspace(). Like solve_device, it
/// waits for a no-wait call's end on the device and reports the error such a call's kernels left. Never
/// throws; errors in note.
SolveRun solve(const SolveProblem& p, const void* x, void* y, const SolveOptions& options = {});

/// Device in, device out: x_dev and y_dev are device pointers on the current CUDA device (row-major
/// n x d, float or double as p.fp64, not overlapping); neither crosses the bus. The structure and any
/// Values coefficients of p stay host arrays, as for solve(), unless SolveMatrix::vals_on_device says the
/// coefficients are in device memory. `stream` is a cudaStream_t (nullptr: the
/// default stream): the uploads of the structure, the coefficient fills and the solve are queued on it,
/// after the work already queued there (what wrote X and any device coefficients), and the call returns
/// once Y is written (one event synchronization at its end), or with SolveOptions::wait = false once the
/// work is queued. total_ms: device weights + kernel (wait = false: the host time of the call). Never
/// throws; errors in note.
///
/// Each call plans the structure anew (uploads of the structure, the planner's O(n + nnz) host passes for
/// CSR structures): for repeated calls on one structure, gpu_plan.hpp's DevicePlan does that once
/// (solve_device is a temporary plan run through the same per-call path, so both give the same bits).
///
/// Device memory: solve_device allocates nothing per call once warm. Its device buffers (coefficient
/// arrays, structure copies, the plan's workspace) come from a per-device cache, grow-only: the j-th buffer
/// of a call reuses the cache's j-th slot, reallocated only when too small. The cache is held until
/// release_workspace() or the end of the process. Calls on one device are serialized by a mutex, and each
/// call's stream waits on the device for the previous call's end (an event) before reusing the buffers,
/// so calls on different streams are ordered too; calls on different devices run in parallel. Seeded and
/// per-offset coefficients of translation-invariant patterns are made once: a slot keeps what it holds, and a
/// later call with the same weights (offsets, n, heads, seed or per-offset values, precision, layout:
/// compared in full) reads them as they are (SolveRun::coefs_reused), so a repeated call costs the kernel
/// alone (not for per-offset tables in device memory: those are expanded on every call). solve() uses the
/// same cache (X and Y included); solve_seeded_x() and the benchmarks allocate, write and free per call.
///
///   float *x, *y;  cudaMalloc(&x, n * d * 4); cudaMalloc(&y, n * d * 4);  // X filled on the device
///   auto r = mixgraph::gpu::solve_device(p, x, y, {}, stream);
SolveRun solve_device(const SolveProblem& p, const void* x_dev, void* y_dev, const SolveOptions& options = {},
                      void* stream = nullptr);

/// Frees solve_device's cached device buffers on every device (waits for a call in progress on a device
/// to end first), and the pinned staging of host copies. Returns "" or what went wrong. The next call
/// allocates again.
std::string release_workspace();

/// Seeded X made on the device, the bits a host run makes (weight_gen.hpp, input_value(x_seed, i, c)), then
/// solved; nothing crosses the bus but the structure. Y goes to y_host (n x d) only when y_host is not
/// null; SolveRun::y_sum is Y's sum either way. total_ms: X generation + device weights + kernel + the
/// sum [+ download]. Never throws; errors in note.
SolveRun solve_seeded_x(const SolveProblem& p, std::uint64_t x_seed, void* y_host,
                        const SolveOptions& options = {});

/// Writes the seeded X of solve_seeded_x (n x d, float or double) to x_dev, a device pointer. Returns ""
/// or what went wrong.
std::string fill_seeded_x(void* x_dev, std::uint32_t n, std::uint32_t d, bool fp64, std::uint64_t x_seed);

/// Device memory and copies for callers without CUDA headers (tests, the Python package's CUDA results).
/// Each returns "" or what went wrong; device_alloc sets *p = nullptr on failure. The copies are staged
/// as solve()'s are and return once complete.
std::string device_alloc(void** p, std::size_t bytes);
void device_free(void* p);
std::string copy_to_device(void* dev, const void* host, std::size_t bytes);
std::string copy_to_host(void* host, const void* dev, std::size_t bytes);
/// Makes `device` the calling thread's current CUDA device (the device of a tensor).
std::string set_device(int device);
/// The calling thread's current CUDA device (0 where there is none).
int current_device();

}  // namespace mixgraph::gpu
