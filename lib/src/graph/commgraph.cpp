#include "mixgraph/commgraph.hpp"

#include "mixgraph/cancel.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"

namespace mixgraph {

namespace {
nnz_t offsets_nnz(const std::vector<pos_t>& offs, pos_t n) {
  nnz_t s = 0;
  for (pos_t o : offs)
    if (o < n) s += n - o;
  return s;
}

Csr csr_from_offsets(const std::vector<pos_t>& offs, pos_t n, const std::string& spec) {
  const nnz_t nnz = offsets_nnz(offs, n);
  check_memory(sat_add(sat_mul(nnz, sizeof(pos_t)), sat_mul(std::uint64_t{n} + 1, sizeof(nnz_t))), 0,
               "the explicit reads of " + spec + " at n = " + std::to_string(n) + " (" + std::to_string(nnz) +
                   " entries)");
  Csr m;
  m.n = n;
  m.ptr.reserve(static_cast<std::size_t>(n) + 1);
  m.ptr.push_back(0);
  m.idx.reserve(nnz);
  const std::atomic<bool>* stop = cancel_flag();
  for (pos_t i = 0; i < n; ++i) {
    if ((i & 4095) == 0) throw_if_cancelled(stop);
    for (auto it = offs.rbegin(); it != offs.rend(); ++it)
      if (*it <= i) m.idx.push_back(i - *it);
    m.ptr.push_back(m.idx.size());
  }
  return m;
}
}  // namespace

std::uint64_t comm_graph_bytes(const Pattern& p) {
  const nnz_t e = p.translation_invariant() ? offsets_nnz(p.b_offsets, p.n) : p.b.nnz();
  nnz_t ea = 0;
  if (p.a_mode == AMode::Explicit) ea = p.translation_invariant() ? offsets_nnz(p.a_offsets, p.n) : p.a.nnz();
  return (2 * e + ea) * sizeof(pos_t) + 3 * (static_cast<std::uint64_t>(p.n) + 1) * sizeof(nnz_t);
}

Csr b_csr(const Pattern& p) {
  if (!p.translation_invariant()) {
    Csr m = p.b;
    return m;
  }
  return csr_from_offsets(p.b_offsets, p.n, p.spec);
}

Csr a_csr(const Pattern& p) {
  switch (p.a_mode) {
    case AMode::Explicit:
      return p.translation_invariant() ? csr_from_offsets(p.a_offsets, p.n, p.spec) : p.a;
    case AMode::Diagonal: {
      Csr m;
      m.n = p.n;
      m.ptr.resize(static_cast<std::size_t>(p.n) + 1);
      m.idx.resize(p.n);
      for (pos_t i = 0; i <= p.n; ++i) m.ptr[i] = i;
      for (pos_t i = 0; i < p.n; ++i) m.idx[i] = i;
      return m;
    }
    case AMode::Shared: {
      const Csr built = p.translation_invariant() ? b_csr(p) : Csr{};
      const Csr& b = p.translation_invariant() ? built : p.b;  // no copy of explicit rows
      Csr m;
      m.n = p.n;
      m.ptr.reserve(static_cast<std::size_t>(p.n) + 1);
      m.ptr.push_back(0);
      check_memory(sat_mul(sat_add(b.nnz(), p.n), sizeof(pos_t)), 0,
                   "the A reads of " + p.spec + " at n = " + std::to_string(p.n));
      m.idx.reserve(b.nnz() + p.n);
      const std::atomic<bool>* stop = cancel_flag();
      for (pos_t i = 0; i < p.n; ++i) {
        if ((i & 4095) == 0) throw_if_cancelled(stop);
        auto r = b.row(i);
        m.idx.insert(m.idx.end(), r.begin(), r.end());
        m.idx.push_back(i);
        m.ptr.push_back(m.idx.size());
      }
      return m;
    }
  }
  return {};
}

CommGraph build_comm_graph(const Pattern& p, std::uint64_t mem_limit) {
  check_memory(comm_graph_bytes(p), mem_limit,
               "the communication graph of " + p.spec + " at n = " + std::to_string(p.n));
  CommGraph g;
  g.n = p.n;
  g.a_mode = p.a_mode;
  g.in = b_csr(p);
  g.in.val.clear();
  g.out = transpose(g.in);
  if (p.a_mode == AMode::Explicit) g.a_in = a_csr(p);
  return g;
}

}  // namespace mixgraph
