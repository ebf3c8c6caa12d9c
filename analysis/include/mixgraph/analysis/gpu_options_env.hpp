#pragma once
// The GPU planner's options from the MIXGRAPH_GPU_* environment variables (docs/cli.md), so that scripts
// that set them keep working. The only place that reads them: both front ends (the CLI, tools/, and the
// Python package, python/) and the benchmarks (bench/) call it; the library takes a gpu::SolveOptions and
// reads no environment. Header only (bench/ and tests/ include it without linking the analyses).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "mixgraph/gpu_solve.hpp"

namespace mixgraph {

inline gpu::SolveOptions gpu_options_from_env() {
  gpu::SolveOptions o;
  const auto get = [](const char* name) -> const char* { return std::getenv(name); };
  const auto on = [&](const char* name) {  // on unless the variable says 0
    const char* e = get(name);
    return !e || std::atoi(e) != 0;
  };
  if (const char* e = get("MIXGRAPH_GPU_KERNEL")) {
    const std::string k = e;
    if (k == "pipeline") o.kernel = gpu::SolveOptions::Kernel::Pipeline;
    if (k == "blockinv") o.kernel = gpu::SolveOptions::Kernel::BlockInv;
  }
  if (const char* e = get("MIXGRAPH_GPU_CHUNK")) o.chunk = std::atoi(e) == 32 ? 32u : 0u;
  if (const char* e = get("MIXGRAPH_GPU_RING")) o.ring = static_cast<std::uint32_t>(std::atoi(e));
  if (const char* e = get("MIXGRAPH_GPU_SPLIT")) {
    const int v = std::atoi(e);
    o.split = v == 1   ? gpu::SolveOptions::Split::On
              : v == 0 ? gpu::SolveOptions::Split::Off
                       : gpu::SolveOptions::Split::Auto;
  }
  if (const char* e = get("MIXGRAPH_GPU_COPY")) o.copy = std::atoi(e);
  if (const char* e = get("MIXGRAPH_GPU_LAYOUT")) {
    const std::string l = e;
    if (l == "head") o.layout = gpu::SolveOptions::Layout::HeadMajor;
    if (l == "channel") o.layout = gpu::SolveOptions::Layout::ChannelMajor;
  }
  if (const char* e = get("MIXGRAPH_GPU_FUSED"))
    o.fused_seeded = std::atoi(e) != 0 ? gpu::SolveOptions::Fused::On : gpu::SolveOptions::Fused::Off;
  o.tma = on("MIXGRAPH_GPU_TMA");
  o.ytma = on("MIXGRAPH_GPU_YTMA");
  o.mma = on("MIXGRAPH_GPU_MMA");
  o.ws = on("MIXGRAPH_GPU_WS");
  o.swz = on("MIXGRAPH_GPU_SWZ");
  o.verbose = get("MIXGRAPH_GPU_VERBOSE") != nullptr;
  o.profile = get("MIXGRAPH_GPU_PROFILE") != nullptr;
  for (const char* gone : {"MIXGRAPH_GPU_DIAG", "MIXGRAPH_GPU_KU_EVEN"})
    if (get(gone))
      std::fprintf(
          stderr, "warning: %s is no longer supported and is ignored (docs/history/gpu-variants.md)\n", gone);
  return o;
}

}  // namespace mixgraph
