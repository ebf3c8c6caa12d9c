// Device plans kept beside a structure (device_plans.hpp).
#include "device_plans.hpp"

#include <string>

#include "mixgraph/error.hpp"
#include "mixgraph/solve_backend.hpp"

namespace mixgraph::py {

std::shared_ptr<gpu::DevicePlan> DevicePlans::get(const gpu::SolveProblem& p, int device, bool* hit) {
  const std::lock_guard<std::mutex> lk(mu_);
  for (auto it = plans_.begin(); it != plans_.end(); ++it)
    if ((*it)->ready() && gpu::plan_mismatch((*it)->key(), p, device).empty()) {
      plans_.splice(plans_.begin(), plans_, it);
      if (hit) *hit = true;
      return plans_.front();
    }
  if (hit) *hit = false;
  auto plan = std::make_shared<gpu::DevicePlan>();
  const std::string note = gpu::make_device_plan(*plan, p);
  if (!note.empty()) throw RuntimeFailure("GPU solve failed: " + note);
  plans_.push_front(plan);
  while (plans_.size() > kPlansPerStructure) plans_.pop_back();  // (a running call keeps its plan)
  return plan;
}

void DevicePlans::clear() {
  std::list<std::shared_ptr<gpu::DevicePlan>> old;
  {
    const std::lock_guard<std::mutex> lk(mu_);
    old.swap(plans_);
  }
  for (auto& p : old) p->release();
}

std::uint64_t DevicePlans::bytes() const {
  const std::lock_guard<std::mutex> lk(mu_);
  std::uint64_t b = 0;
  for (const auto& p : plans_) b += p->device_bytes();
  return b;
}

std::size_t DevicePlans::size() const {
  const std::lock_guard<std::mutex> lk(mu_);
  return plans_.size();
}

void* torch_stream_of(const pb::object& x, int device) {
  const std::string mod = pb::str(pb::type::handle_of(x).attr("__module__")).cast<std::string>();
  if (mod.rfind("torch", 0) != 0) return nullptr;
  const pb::object cur = pb::module_::import("torch").attr("cuda").attr("current_stream")(device);
  return reinterpret_cast<void*>(cur.attr("cuda_stream").cast<std::uintptr_t>());
}

template <class T>
gpu::SolveProblem seeded_problem(const Mixer& m, std::size_t d, std::uint64_t seed,
                                 std::shared_ptr<const SolveStructure>* hold) {
  *hold = m.structure();
  gpu::SolveProblem p = gpu_problem(**hold, m.seeded<T>(seed), d);
  for (gpu::SolveMatrix* x : {&p.a, &p.b})
    if (x->gen == gpu::CoefGen::Values) x->vals_constant = true;
  return p;
}
template gpu::SolveProblem seeded_problem<float>(const Mixer&, std::size_t, std::uint64_t,
                                                 std::shared_ptr<const SolveStructure>*);
template gpu::SolveProblem seeded_problem<double>(const Mixer&, std::size_t, std::uint64_t,
                                                  std::shared_ptr<const SolveStructure>*);

gpu::SolveRun planned_solve(DevicePlans& plans, const gpu::SolveProblem& p, const void* x, void* y,
                            void* stream, int device, bool* plan_hit, bool wait) {
  gpu::SolveRun r;
  {
    pb::gil_scoped_release nogil;
    const std::string dev_note = gpu::set_device(device);
    if (!dev_note.empty()) throw RuntimeFailure("GPU solve failed: " + dev_note);
    const std::shared_ptr<gpu::DevicePlan> plan = plans.get(p, device, plan_hit);
    r = gpu::solve_planned(*plan, p, x, y, stream, wait);
  }
  if (!r.ran) throw RuntimeFailure("GPU solve failed: " + r.note);
  return r;
}

pb::dict device_run_info(const gpu::SolveRun& r) {
  pb::dict i;
  i["kernel"] = r.kernel;
  i["threads"] = 0;
  i["seconds"] = r.kernel_ms / 1000.0;
  i["total_seconds"] = r.total_ms / 1000.0;
  return i;
}

void add_device_run_place(pb::dict& info, const gpu::SolveRun& r, const ArrayView& xv, const ArrayView& yv) {
  info["plan"] = r.plan;
  info["input"] = xv.kind;
  info["device"] = "cuda:" + std::to_string(xv.device_id);
  info["x_address"] = reinterpret_cast<std::uintptr_t>(xv.data);
  info["y_address"] = reinterpret_cast<std::uintptr_t>(yv.data);
}

}  // namespace mixgraph::py
