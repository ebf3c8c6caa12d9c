// gpu::DevicePlan's host side (gpu_plan.hpp), in every build: the plan key, its checks, the handle.
#include <string>
#include <utility>

#include "mixgraph/gpu_plan.hpp"
#include "plan_state.hpp"

namespace mixgraph::gpu {
namespace {

PlanKey::Matrix matrix_key(const SolveMatrix& m, std::uint32_t n) {
  PlanKey::Matrix k;
  k.implicit = m.implicit;
  k.k = m.implicit ? m.k : 0;
  k.nnz = !m.implicit && m.ptr ? m.ptr[n] : 0;
  k.gen = m.gen;
  k.vals_on_device = m.vals_on_device;
  return k;
}

const char* gen_name(CoefGen g) {
  switch (g) {
    case CoefGen::Values:
      return "values";
    case CoefGen::Seeded:
      return "seeded";
    case CoefGen::PerOffset:
      return "per-offset";
  }
  return "?";
}

std::string matrix_mismatch(const char* name, const PlanKey::Matrix& k, const SolveMatrix& m) {
  const std::string w = std::string(name) + ": the plan was made for ";
  if (k.implicit != m.implicit)
    return w + (k.implicit ? "implicit offsets" : "a CSR structure") + ", the call has " +
           (m.implicit ? "implicit offsets" : "a CSR structure");
  if (k.implicit && k.k != m.k)
    return w + std::to_string(k.k) + " offsets, the call has " + std::to_string(m.k);
  if (k.gen != m.gen) return w + gen_name(k.gen) + " coefficients, the call has " + gen_name(m.gen);
  if (k.vals_on_device != m.vals_on_device)
    return w + "coefficients " + (k.vals_on_device ? "on the device" : "on the host") +
           ", the call has them " + (m.vals_on_device ? "on the device" : "on the host");
  return "";
}

}  // namespace

PlanKey plan_key(const SolveProblem& p, int device) {
  PlanKey k;
  k.n = p.n;
  k.d = p.d;
  k.heads = p.heads;
  k.fp64 = p.fp64;
  k.a = matrix_key(p.a, p.n);
  k.b = matrix_key(p.b, p.n);
  k.device = device;
  return k;
}

std::string plan_mismatch(const PlanKey& k, const SolveProblem& c, int device) {
  const std::string w = "the plan was made for ";
  auto num = [&](const char* what, std::uint64_t a, std::uint64_t b) {
    return w + what + " = " + std::to_string(a) + ", the call has " + what + " = " + std::to_string(b);
  };
  if (k.n != c.n) return num("n", k.n, c.n);
  if (k.d != c.d) return num("d", k.d, c.d);
  if (k.heads != c.heads) return num("heads", k.heads, c.heads);
  if (k.fp64 != c.fp64) return w + (k.fp64 ? "fp64" : "fp32") + ", the call is " + (c.fp64 ? "fp64" : "fp32");
  if (k.device != device) return num("device", std::uint64_t(k.device), std::uint64_t(device));
  std::string m = matrix_mismatch("A", k.a, c.a);
  if (m.empty()) m = matrix_mismatch("B", k.b, c.b);
  return m;
}

DevicePlan::DevicePlan() = default;
DevicePlan::~DevicePlan() {
  release();
}
DevicePlan::DevicePlan(DevicePlan&& o) noexcept : s_(std::move(o.s_)) {}
DevicePlan& DevicePlan::operator=(DevicePlan&& o) noexcept {
  if (this != &o) {
    release();
    s_ = std::move(o.s_);
  }
  return *this;
}

bool DevicePlan::ready() const {
  if (!s_) return false;
  const std::lock_guard<std::mutex> lk(s_->mu);
  return s_->ready;
}

PlanKey DevicePlan::key() const {
  if (!s_) return {};
  const std::lock_guard<std::mutex> lk(s_->mu);
  return s_->key;
}

std::string DevicePlan::kernel() const {
  if (!s_) return "";
  const std::lock_guard<std::mutex> lk(s_->mu);
  return s_->kernel;
}

std::string DevicePlan::explain() const {
  if (!s_) return "";
  const std::lock_guard<std::mutex> lk(s_->mu);
  return s_->explain;
}

std::uint64_t DevicePlan::device_bytes() const {
  if (!s_) return 0;
  const std::lock_guard<std::mutex> lk(s_->mu);
  return s_->ready ? s_->bytes() : 0;
}

void DevicePlan::release() {
  if (!s_) return;
  const std::lock_guard<std::mutex> lk(s_->mu);
  if (s_->ready) s_->free_device();
  s_->ready = false;
}

std::shared_ptr<DevicePlan::State> DevicePlan::state() const {
  return s_;
}

void DevicePlan::reset(std::shared_ptr<State> s) {
  release();
  s_ = std::move(s);
}

}  // namespace mixgraph::gpu
