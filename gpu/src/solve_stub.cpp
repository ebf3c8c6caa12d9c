// CPU-only builds: the GPU solve entry points report that CUDA is not built in.
#include "mixgraph/blockinv_reference.hpp"
#include "mixgraph/gpu_plan.hpp"
#include "mixgraph/gpu_solve.hpp"

namespace mixgraph::gpu {

namespace {
const char* kNote =
    "CUDA is not built in (configure with MIXGRAPH_CUDA=ON on a machine with the CUDA toolkit)";
}

SolveRun solve(const SolveProblem&, const void*, void*, const SolveOptions&) {
  SolveRun r;
  r.note = kNote;
  return r;
}

SolveRun solve_device(const SolveProblem&, const void*, void*, const SolveOptions&, void*) {
  SolveRun r;
  r.note = kNote;
  return r;
}

SolveRun solve_seeded_x(const SolveProblem&, std::uint64_t, void*, const SolveOptions&) {
  SolveRun r;
  r.note = kNote;
  return r;
}

std::string make_device_plan(DevicePlan& plan, const SolveProblem&, const SolveOptions&) {
  plan.reset(nullptr);
  return kNote;
}

SolveRun solve_planned(DevicePlan& plan, const SolveProblem&, const void*, void*, void*, bool) {
  SolveRun r;
  r.note = plan.state() ? kNote : "the device plan is empty (make_device_plan makes it)";
  return r;
}

std::string release_workspace() {
  return "";
}

std::string fill_seeded_x(void*, std::uint32_t, std::uint32_t, bool, std::uint64_t) {
  return kNote;
}

std::string device_alloc(void** p, std::size_t) {
  *p = nullptr;
  return kNote;
}

void device_free(void*) {}

std::string copy_to_device(void*, const void*, std::size_t) {
  return kNote;
}

std::string copy_to_host(void*, const void*, std::size_t) {
  return kNote;
}

int current_device() {
  return 0;
}

std::string set_device(int) {
  return kNote;
}

BlockInvPackages blockinv_packages(const SolveProblem&, const SolveOptions&) {
  BlockInvPackages r;
  r.note = kNote;
  return r;
}

}  // namespace mixgraph::gpu
