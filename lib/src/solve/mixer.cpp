// A Mixer (mixer.hpp): the structure of a solve built once, shared read-only by the calls.
#include "mixgraph/mixer.hpp"

#include <utility>
#include <vector>

#include "mixgraph/error.hpp"
#include "mixgraph/weight_files.hpp"  // OwnedCoefs

namespace mixgraph {

struct Mixer::Plan {
  SolveStructure s;
  // seeded coefficients of the plan's precision: empty arrays (Seeded), or mtx: files' values (Stored)
  std::vector<float> fa, fb;
  std::vector<double> da, db;
  CoefSource a_source = CoefSource::Seeded, b_source = CoefSource::Seeded;
};

namespace {

template <class T>
void take_seeded(const Pattern& p, int heads, std::vector<T>& a, std::vector<T>& b, CoefSource& as,
                 CoefSource& bs, SolveStructure& s) {
  MixerWeights<T> w = seeded_mixer_weights<T>(p, heads, 0);
  a = std::move(w.a);
  b = std::move(w.b);
  as = w.a_source;
  bs = w.b_source;
  s = std::move(w.s);
}

std::uint64_t csr_bytes(const Csr& c) {
  return c.ptr.size() * sizeof(nnz_t) + c.idx.size() * sizeof(pos_t) + c.val.size() * sizeof(double);
}

template <class T>
const char* precision_name() {
  return sizeof(T) == 8 ? "fp64" : "fp32";
}

}  // namespace

namespace {
std::shared_ptr<const Mixer::Plan> make_plan(const Pattern& p, const MixerOptions& o) {
  auto plan = std::make_shared<Mixer::Plan>();
  if (o.precision == Precision::Fp64)
    take_seeded<double>(p, o.heads, plan->da, plan->db, plan->a_source, plan->b_source, plan->s);
  else
    take_seeded<float>(p, o.heads, plan->fa, plan->fb, plan->a_source, plan->b_source, plan->s);
  return plan;
}

template <class T>
MixerCoefs<T> seeded_of(const Mixer::Plan& p, int heads, std::uint64_t seed) {
  MixerCoefs<T> c;
  c.heads = heads;
  c.seed = seed;
  c.a_source = p.a_source;
  c.b_source = p.b_source;
  const std::vector<T>* a;
  const std::vector<T>* b;
  if constexpr (sizeof(T) == 8) {
    a = &p.da;
    b = &p.db;
  } else {
    a = &p.fa;
    b = &p.fb;
  }
  c.a = a->data();
  c.a_size = a->size();
  c.b = b->data();
  c.b_size = b->size();
  return c;
}

void check_options(const MixerOptions& o) {
  if (o.heads < 1) throw UsageError("Mixer: heads must be >= 1 (got " + std::to_string(o.heads) + ")");
  if (o.device != MixerDevice::Cpu)
    throw UsageError(
        "Mixer: only the CPU device is planned by this library; for the GPU use solve_on "
        "(solve_backend.hpp) or mixgraph.solve on CUDA tensors");
}
/// The options checked first (their errors before the spec's), then the one parse.
PatternSpec parse_checked(const std::string& spec, const MixerOptions& o) {
  check_options(o);
  return parse_pattern_spec(spec, false);
}
}  // namespace

Mixer::Mixer(const Pattern& p, MixerOptions o) : spec_(p.spec), tree_(p.tree), n_(p.n), opt_(o) {
  check_options(o);
  plan_ = make_plan(p, opt_);
}

Mixer::Mixer(const std::string& spec, std::uint64_t n, MixerOptions o)
    : Mixer(parse_checked(spec, o), n, o) {}

Mixer::Mixer(const PatternSpec& spec, std::uint64_t n, MixerOptions o) : opt_(o) {
  check_options(o);
  const Pattern p = make_pattern(spec, n);
  spec_ = p.spec;
  tree_ = p.tree;
  n_ = p.n;
  plan_ = make_plan(p, opt_);
}

std::shared_ptr<const Mixer::Plan> Mixer::plan() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!plan_) {
    // the tree a Pattern made by make_pattern carries; one built by hand has none: its spec is parsed
    plan_ = tree_.text.empty() ? make_plan(make_pattern(spec_, spec_.rfind("mtx:", 0) == 0 ? 0 : n_), opt_)
                               : make_plan(make_pattern(tree_, tree_.has_matrix() ? 0 : n_), opt_);
    if (plan_->s.n != n_)
      throw RuntimeFailure("Mixer: the pattern " + spec_ + " changed size since it was planned");
  }
  return plan_;
}

std::shared_ptr<const AdjointStructure> Mixer::adjoint() const {
  const std::shared_ptr<const Plan> p = plan();
  std::lock_guard<std::mutex> lock(mu_);
  if (!adj_) adj_ = std::make_shared<const AdjointStructure>(adjoint_structure(p->s));
  return adj_;
}

std::shared_ptr<const SolveStructure> Mixer::structure() const {
  std::shared_ptr<const Plan> p = plan();
  return std::shared_ptr<const SolveStructure>(p, &p->s);  // aliasing: keeps the plan alive
}

void Mixer::release() {
  std::shared_ptr<const Plan> p;
  std::shared_ptr<const AdjointStructure> a;
  std::shared_ptr<const void> k;
  {
    std::lock_guard<std::mutex> lock(mu_);
    p = std::move(plan_);
    a = std::move(adj_);
    k = std::move(kept_);
    plan_.reset();
    adj_.reset();
    kept_.reset();
  }
  // p and a are freed here, outside the lock (or by the last running call that holds them)
}

bool Mixer::planned() const {
  std::lock_guard<std::mutex> lock(mu_);
  return plan_ != nullptr;
}

std::uint64_t Mixer::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::uint64_t b = 0;
  if (plan_) {
    const SolveStructure& s = plan_->s;
    b += (s.a_offsets.size() + s.b_offsets.size()) * sizeof(pos_t) + csr_bytes(s.a) + csr_bytes(s.b);
    b += (plan_->fa.size() + plan_->fb.size()) * sizeof(float) +
         (plan_->da.size() + plan_->db.size()) * sizeof(double);
  }
  if (kept_) {
    if (opt_.precision == Precision::Fp64) {
      const auto* o = static_cast<const OwnedCoefs<double>*>(kept_.get());
      b += (o->a.size() + o->b.size()) * sizeof(double);
    } else {
      const auto* o = static_cast<const OwnedCoefs<float>*>(kept_.get());
      b += (o->a.size() + o->b.size()) * sizeof(float);
    }
  }
  if (adj_) {
    const SolveStructure& r = adj_->rev;
    b += (r.a_offsets.size() + r.b_offsets.size()) * sizeof(pos_t) + csr_bytes(r.a) + csr_bytes(r.b) +
         csr_bytes(adj_->at) + (adj_->b_entry.size() + adj_->a_entry.size()) * sizeof(nnz_t);
  }
  return b;
}

template <class T>
MixerCoefs<T> Mixer::seeded(std::uint64_t seed) const {
  if ((sizeof(T) == 8) != (opt_.precision == Precision::Fp64))
    throw UsageError(std::string("Mixer: planned for ") + (sizeof(T) == 8 ? "fp32" : "fp64") +
                     ", called with " + precision_name<T>() + " values");
  return seeded_of<T>(*plan(), opt_.heads, seed);
}

template <class T>
void Mixer::check(const T* x, const void* y, std::size_t d, const MixerCoefs<T>& c, const Plan& p) const {
  if ((sizeof(T) == 8) != (opt_.precision == Precision::Fp64))
    throw UsageError(std::string("Mixer: planned for ") + (sizeof(T) == 8 ? "fp32" : "fp64") +
                     ", called with " + precision_name<T>() + " values");
  if (c.heads != opt_.heads)
    throw UsageError("Mixer: planned for " + std::to_string(opt_.heads) + " heads, coefficients of " +
                     std::to_string(c.heads));
  if (x == nullptr || y == nullptr) throw UsageError("Mixer: X and Y must not be null");
  if (d == 0 || d % std::size_t(opt_.heads) != 0)
    throw UsageError("Mixer: d = " + std::to_string(d) + " columns must be a positive multiple of the " +
                     std::to_string(opt_.heads) + " heads");
  const SolveStructure& s = p.s;
  auto need = [&](bool is_a, CoefSource src, std::size_t have, const T* ptr) {
    const char* name = is_a ? "A" : "B";
    const std::size_t K = (is_a ? s.a_offsets : s.b_offsets).size();
    std::size_t want = 0;
    if (src == CoefSource::Stored)
      want = s.implicit ? std::size_t(s.n) * K : std::size_t(is_a ? s.a.nnz() : s.b.nnz());
    else if (src == CoefSource::PerOffset) {
      if (!s.implicit) throw UsageError("solve: weights per offset need a translation-invariant pattern");
      want = K;
    } else {
      return;
    }
    want *= std::size_t(opt_.heads);
    if (have < want || (want > 0 && ptr == nullptr))
      throw UsageError(std::string("Mixer: ") + name + "'s coefficients hold " + std::to_string(have) +
                       " values; the structure needs " + std::to_string(want));
  };
  need(true, c.a_source, c.a_size, c.a);
  need(false, c.b_source, c.b_size, c.b);
}

template <class T>
SolveInfo Mixer::solve(const T* x, T* y, std::size_t d, const MixerCoefs<T>& c, int threads) const {
  const std::shared_ptr<const Plan> p = plan();  // held until the call returns
  check(x, y, d, c, *p);
  return solve_mixer(p->s, c, x, y, d, threads);
}

template <class T>
SolveInfo Mixer::solve_adjoint(const T* x, const T* y, const T* g, std::size_t d, const MixerCoefs<T>& c,
                               const AdjointOut<T>& out, int threads) const {
  const std::shared_ptr<const Plan> p = plan();
  check(x, y, d, c, *p);
  if (g == nullptr) throw UsageError("Mixer: dL/dY must not be null");
  const std::shared_ptr<const AdjointStructure> a = adjoint();
  if (a->rev.n != p->s.n) throw UsageError("Mixer: the plan changed during the call");
  return mixgraph::solve_adjoint(p->s, *a, c, x, y, g, d, out, threads);
}

template <class T>
MixerCoefs<T> Mixer::call_coefs(const std::shared_ptr<const Plan>& p, std::uint64_t seed,
                                std::shared_ptr<const void>* hold) const {
  const MixerCoefs<T> c = seeded_of<T>(*p, opt_.heads, seed);
  if (!opt_.keep_weights || (sizeof(T) == 8) != (opt_.precision == Precision::Fp64)) return c;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (kept_ && kept_seed_ == seed) {
      *hold = kept_;
      return static_cast<const OwnedCoefs<T>*>(kept_.get())->c;
    }
  }
  auto o = std::make_shared<OwnedCoefs<T>>();  // made outside the lock (O(heads (n K + nnz)))
  o->a = stored_coefs(p->s, c, true);
  o->b = stored_coefs(p->s, c, false);
  o->c = c;
  o->c.a = o->a.data();
  o->c.a_size = o->a.size();
  o->c.a_source = CoefSource::Stored;
  o->c.b = o->b.data();
  o->c.b_size = o->b.size();
  o->c.b_source = CoefSource::Stored;
  {
    std::lock_guard<std::mutex> lock(mu_);
    kept_ = o;
    kept_seed_ = seed;
  }
  *hold = o;
  return o->c;
}

template <class T>
SolveInfo Mixer::solve(const T* x, T* y, std::size_t d, std::uint64_t seed, int threads) const {
  const std::shared_ptr<const Plan> p = plan();  // the coefficients' arrays stay alive with it
  std::shared_ptr<const void> hold;
  const MixerCoefs<T> c = call_coefs<T>(p, seed, &hold);
  check(x, y, d, c, *p);
  return solve_mixer(p->s, c, x, y, d, threads);
}

template <class T>
SolveInfo Mixer::solve_adjoint(const T* x, const T* y, const T* g, std::size_t d, std::uint64_t seed,
                               const AdjointOut<T>& out, int threads) const {
  const std::shared_ptr<const Plan> p = plan();
  std::shared_ptr<const void> hold;
  const MixerCoefs<T> c = call_coefs<T>(p, seed, &hold);
  check(x, y, d, c, *p);
  if (g == nullptr) throw UsageError("Mixer: dL/dY must not be null");
  const std::shared_ptr<const AdjointStructure> a = adjoint();
  return mixgraph::solve_adjoint(p->s, *a, c, x, y, g, d, out, threads);
}

template SolveInfo Mixer::solve<float>(const float*, float*, std::size_t, std::uint64_t, int) const;
template SolveInfo Mixer::solve<double>(const double*, double*, std::size_t, std::uint64_t, int) const;
template SolveInfo Mixer::solve_adjoint<float>(const float*, const float*, const float*, std::size_t,
                                               std::uint64_t, const AdjointOut<float>&, int) const;
template SolveInfo Mixer::solve_adjoint<double>(const double*, const double*, const double*, std::size_t,
                                                std::uint64_t, const AdjointOut<double>&, int) const;
template MixerCoefs<float> Mixer::seeded<float>(std::uint64_t) const;
template MixerCoefs<double> Mixer::seeded<double>(std::uint64_t) const;
template SolveInfo Mixer::solve<float>(const float*, float*, std::size_t, const MixerCoefs<float>&,
                                       int) const;
template SolveInfo Mixer::solve<double>(const double*, double*, std::size_t, const MixerCoefs<double>&,
                                        int) const;
template SolveInfo Mixer::solve_adjoint<float>(const float*, const float*, const float*, std::size_t,
                                               const MixerCoefs<float>&, const AdjointOut<float>&, int) const;
template SolveInfo Mixer::solve_adjoint<double>(const double*, const double*, const double*, std::size_t,
                                                const MixerCoefs<double>&, const AdjointOut<double>&,
                                                int) const;

}  // namespace mixgraph
