// Ghodsi interaction rank of LTI SSMs and multi-head token mixers (docs/math.md §5).
#include "mixgraph/interaction.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

#include "io/input_file.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/memory.hpp"
#include "mixgraph/rank.hpp"

namespace mixgraph {

namespace {
Eigen::MatrixXd random_matrix(Eigen::Index r, Eigen::Index c, std::uint64_t seed, std::uint64_t stream,
                              double scale) {
  Eigen::MatrixXd m(r, c);
  for (Eigen::Index i = 0; i < r; ++i)
    for (Eigen::Index j = 0; j < c; ++j)
      m(i, j) = scale * (2.0 * hash_uniform(seed, stream, static_cast<std::uint64_t>(i),
                                            static_cast<std::uint64_t>(j)) -
                         1.0);
  return m;
}
}  // namespace

SsmMatrices random_stable_ssm(std::uint32_t N, std::uint32_t p, std::uint32_t d, std::uint64_t seed) {
  if (N < 1 || p < 1 || d < 1) throw UsageError("--state, --p and --d must be >= 1");
  SsmMatrices m;
  Eigen::MatrixXd g = random_matrix(N, N, seed, 0xa0, 1.0);
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(g);
  const double s1 = svd.singularValues()(0);
  m.A = s1 > 0 ? Eigen::MatrixXd(0.95 * g / s1) : g;
  const double sc = 1.0 / std::sqrt(static_cast<double>(N));
  m.B = random_matrix(N, d, seed, 0xb0, sc);
  m.C = random_matrix(p, N, seed, 0xc0, sc);
  return m;
}

SsmMatrices rotation_ssm() {
  SsmMatrices m;
  m.A = Eigen::MatrixXd(2, 2);
  m.A << 0, -1, 1, 0;
  m.B = Eigen::MatrixXd::Identity(2, 2);
  m.C = Eigen::MatrixXd::Identity(2, 2);
  return m;
}

Eigen::MatrixXd read_mtx_dense(const std::string& path) {
  const std::uint64_t file_bytes = detail::check_input_file(path, "Matrix Market file");
  std::ifstream in(path);
  if (!in) throw InputError("cannot open " + path);
  std::string line;
  if (!std::getline(in, line) || line.rfind("%%MatrixMarket", 0) != 0)
    throw InputError(path + ": line 1: not a Matrix Market file (expected '%%MatrixMarket matrix ...')");
  std::istringstream hs(line);
  std::string mm, obj, fmtt, field, sym;
  hs >> mm >> obj >> fmtt >> field >> sym;
  auto lower = [](std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  fmtt = lower(fmtt);
  field = lower(field);
  sym = lower(sym);
  if (lower(obj) != "matrix" || (fmtt != "coordinate" && fmtt != "array") ||
      (field != "real" && field != "integer" && field != "double") || sym != "general")
    throw InputError(path + ": line 1: need 'matrix coordinate|array real|integer general' (got '" + line +
                     "')");
  std::size_t lineno = 1;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line[0] != '%') break;
  }
  std::istringstream ss(line);
  long long r = 0, c = 0, nz = 0;
  if (!(ss >> r >> c) || r < 1 || c < 1 || r > 100000 || c > 100000)
    throw InputError(path + ": line " + std::to_string(lineno) + ": bad size line '" + line + "'");
  const auto cells = static_cast<std::uint64_t>(r) * static_cast<std::uint64_t>(c);
  if (fmtt == "array" && cells * 2 > file_bytes + 1)
    throw InputError(path + ": line " + std::to_string(lineno) + ": the size line announces " +
                     std::to_string(r) + " x " + std::to_string(c) + " values but the file has only " +
                     std::to_string(file_bytes) + " bytes");
  check_memory(cells * 8, 0, "reading " + path);
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(r, c);
  if (fmtt == "coordinate") {
    if (!(ss >> nz) || nz < 0)
      throw InputError(path + ": line " + std::to_string(lineno) + ": missing entry count");
    for (long long k = 0; k < nz; ++k) {
      if (!std::getline(in, line))
        throw InputError(path + ": expected " + std::to_string(nz) + " entries, file ended");
      ++lineno;
      std::istringstream es(line);
      long long i = 0, j = 0;
      double v = 0;
      if (!(es >> i >> j >> v) || i < 1 || j < 1 || i > r || j > c || !std::isfinite(v))
        throw InputError(path + ": line " + std::to_string(lineno) + ": bad entry '" + line + "'");
      m(i - 1, j - 1) = v;
    }
  } else {
    for (long long j = 0; j < c; ++j)
      for (long long i = 0; i < r; ++i) {
        double v = 0;
        if (!(in >> v) || !std::isfinite(v))
          throw InputError(path + ": array entry " + std::to_string(j * r + i + 1) +
                           " missing or not finite");
        m(i, j) = v;
      }
  }
  return m;
}

SsmMatrices read_ssm_matrices(const std::string& a_path, const std::string& b_path,
                              const std::string& c_path) {
  SsmMatrices m{read_mtx_dense(a_path), read_mtx_dense(b_path), read_mtx_dense(c_path)};
  if (m.A.rows() != m.A.cols()) throw InputError(a_path + ": Abar must be square (N x N)");
  if (m.B.rows() != m.A.rows())
    throw InputError(b_path + ": Bbar must have N = " + std::to_string(m.A.rows()) + " rows (got " +
                     std::to_string(m.B.rows()) + ")");
  if (m.C.cols() != m.A.rows())
    throw InputError(c_path + ": C must have N = " + std::to_string(m.A.rows()) + " columns (got " +
                     std::to_string(m.C.cols()) + ")");
  return m;
}

Eigen::MatrixXd ssm_lag_stack(const SsmMatrices& m, std::uint64_t n) {
  const Eigen::Index p = m.C.rows(), d = m.B.cols();
  Eigen::MatrixXd s(static_cast<Eigen::Index>(n), p * d);
  Eigen::MatrixXd pw = m.B;  // Abar^tau Bbar
  for (std::uint64_t tau = 0; tau < n; ++tau) {
    const Eigen::MatrixXd w = m.C * pw;
    s.row(static_cast<Eigen::Index>(tau)) =
        std::sqrt(static_cast<double>(n - tau)) * Eigen::Map<const Eigen::RowVectorXd>(w.data(), p * d);
    pw = m.A * pw;
  }
  return s;
}

InteractionRank interaction_rank_of_stack(const Eigen::MatrixXd& stack, double tol) {
  InteractionRank r;
  r.tolerance = tol > 0 ? tol : kInteractionTolerance;
  if (stack.size() == 0) {
    r.residual_by_heads = {0.0};
    return r;
  }
  Eigen::BDCSVD<Eigen::MatrixXd> svd(stack);
  const auto& sv = svd.singularValues();
  r.singular_values.assign(sv.data(), sv.data() + sv.size());
  const double s1 = r.singular_values.empty() ? 0.0 : r.singular_values[0];
  for (double v : r.singular_values)
    if (s1 > 0 && v > r.tolerance * s1) ++r.rank;
  const std::size_t L = r.singular_values.size();
  r.residual_by_heads.assign(L + 1, 0.0);
  double acc = 0.0;
  for (std::size_t h = L; h-- > 0;) {
    acc += r.singular_values[h] * r.singular_values[h];
    r.residual_by_heads[h] = std::sqrt(acc);
  }
  return r;
}

InteractionRank ssm_interaction_rank(const SsmMatrices& m, std::uint64_t n, double tol) {
  if (n < 1) throw UsageError("--n must be >= 1");
  return interaction_rank_of_stack(ssm_lag_stack(m, n), tol);
}

Eigen::MatrixXd random_value_matrix(std::uint32_t p, std::uint32_t d, std::uint64_t seed,
                                    std::uint32_t head) {
  return random_matrix(p, d, seed, 0x7a1e + head, 1.0);
}

InteractionRank heads_interaction_rank(const std::vector<WeightedPattern>& heads,
                                       const std::vector<Eigen::MatrixXd>& values, double tol) {
  if (heads.empty() || heads.size() != values.size()) throw UsageError("need one value matrix per head");
  const pos_t n = heads[0].a.n;
  const Eigen::Index p = values[0].rows(), d = values[0].cols();
  for (std::size_t h = 0; h < heads.size(); ++h) {
    if (heads[h].a.n != n) throw UsageError("all heads must have the same n");
    if (values[h].rows() != p || values[h].cols() != d) throw UsageError("all value matrices must be p x d");
  }
  const Eigen::Index pairs = static_cast<Eigen::Index>(n) * (n + 1) / 2;
  Eigen::MatrixXd stack = Eigen::MatrixXd::Zero(pairs, p * d);
  for (std::size_t h = 0; h < heads.size(); ++h) {
    const Eigen::MatrixXd mt = dense_operator_transposed(heads[h]);
    const Eigen::Map<const Eigen::RowVectorXd> v(values[h].data(), p * d);
    Eigen::Index row = 0;
    for (pos_t i = 0; i < n; ++i)
      for (pos_t j = 0; j <= i; ++j, ++row) stack.row(row) += mt(j, i) * v;
  }
  return interaction_rank_of_stack(stack, tol);
}

}  // namespace mixgraph
