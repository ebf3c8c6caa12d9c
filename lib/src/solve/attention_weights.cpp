#include "mixgraph/attention_weights.hpp"

#include <algorithm>
#include <cmath>

#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/rank.hpp"

namespace mixgraph {

namespace {

double at(const NpyArray& a, std::uint64_t row, std::uint64_t col) {
  const std::size_t i = static_cast<std::size_t>(row * a.cols + col);
  return a.fp64 ? a.f64[i] : static_cast<double>(a.f32[i]);
}

void check_array(const NpyArray& a, const char* what, std::uint64_t n) {
  if (a.rows != n)
    throw InputError(std::string(what) + " has " + std::to_string(a.rows) + " rows but the pattern has n = " +
                     std::to_string(n) + " positions (one row per position)");
  if (a.cols == 0) throw InputError(std::string(what) + " has no columns (key dimension r = 0)");
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double v = a.fp64 ? a.f64[i] : static_cast<double>(a.f32[i]);
    if (!std::isfinite(v))
      throw InputError(std::string(what) + " entry (" + std::to_string(i / a.cols + 1) + ", " +
                       std::to_string(i % a.cols + 1) + ") is not finite");
  }
}

double elu1(double x) {
  return x > 0 ? x + 1.0 : std::exp(x);
}

}  // namespace

const char* to_string(AttentionKernel k) {
  return k == AttentionKernel::Softmax ? "softmax" : "linear";
}

WeightedPattern attention_weights(const Pattern& p, const NpyArray& q, const NpyArray& k,
                                  AttentionKernel kernel, std::uint64_t seed) {
  check_array(q, "Q", p.n);
  check_array(k, "K", p.n);
  if (q.cols != k.cols)
    throw InputError("Q has " + std::to_string(q.cols) + " columns but K has " + std::to_string(k.cols) +
                     " (queries and keys need the same dimension r)");
  const std::uint64_t r = q.cols;
  WeightedPattern w = random_weights(p, seed);
  const double scale = 1.0 / std::sqrt(static_cast<double>(r));
  std::vector<double> fq(r), s;
  for (pos_t i = 0; i < w.a.n; ++i) {
    const auto reads = w.a.row(i);
    if (reads.empty()) continue;
    s.assign(reads.size(), 0.0);
    if (kernel == AttentionKernel::Linear)
      for (std::uint64_t c = 0; c < r; ++c) fq[c] = elu1(at(q, i, c));
    for (std::size_t t = 0; t < reads.size(); ++t) {
      double dot = 0;
      for (std::uint64_t c = 0; c < r; ++c)
        dot += kernel == AttentionKernel::Softmax ? at(q, i, c) * at(k, reads[t], c)
                                                  : fq[c] * elu1(at(k, reads[t], c));
      s[t] = kernel == AttentionKernel::Softmax ? dot * scale : dot;
    }
    if (kernel == AttentionKernel::Softmax) {
      const double mx = *std::max_element(s.begin(), s.end());
      for (double& v : s) v = std::exp(v - mx);
    }
    double z = 0;
    for (double v : s) z += v;
    double* val = w.a.val.data() + w.a.ptr[i];
    for (std::size_t t = 0; t < reads.size(); ++t) val[t] = s[t] / z;
  }
  return w;
}

std::vector<double> cut_block_singular_values(const WeightedPattern& w, pos_t K) {
  const pos_t n = w.a.n;
  if (K < 1 || K >= n)
    throw UsageError("cut " + std::to_string(K) + " is outside 1.." + std::to_string(n - 1));
  const Eigen::MatrixXd mt = dense_operator_transposed(w);  // mt(j, i) = M(i, j)
  const Eigen::MatrixXd block = mt.block(0, K, K, n - K).transpose();
  Eigen::BDCSVD<Eigen::MatrixXd> svd(block);
  const auto& sv = svd.singularValues();
  return std::vector<double>(sv.data(), sv.data() + sv.size());
}

}  // namespace mixgraph
