#pragma once
// Shared by the attention tests (rank and solve with --attn-q/--attn-k): a temporary folder, seeded normal
// matrices and their .npy files, built with Eigen independently of the code under test.
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>

#include "mixgraph/eigen_dense.hpp"
#include "mixgraph/npy.hpp"

namespace mixgraph::test {

/// A fresh folder under the system temporary directory, removed with everything in it at scope exit.
struct AttnTempDir {
  std::string path;
  explicit AttnTempDir(const std::string& prefix) {
    std::string t = (std::filesystem::temp_directory_path() / (prefix + "_XXXXXX")).string();
    path = ::mkdtemp(t.data());
  }
  AttnTempDir(const AttnTempDir&) = delete;
  AttnTempDir& operator=(const AttnTempDir&) = delete;
  ~AttnTempDir() { std::filesystem::remove_all(path); }
};

/// n x c entries drawn from N(0, scale^2) by a seeded generator.
inline Eigen::MatrixXd normal_matrix(int n, int c, double scale, unsigned seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> d(0.0, scale);
  Eigen::MatrixXd m(n, c);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < c; ++j) m(i, j) = d(g);
  return m;
}

/// Writes m as a float64 row-major .npy file at path; returns path.
inline std::string save_npy(const std::string& path, const Eigen::MatrixXd& m) {
  NpyArray a;
  a.rows = static_cast<std::uint64_t>(m.rows());
  a.cols = static_cast<std::uint64_t>(m.cols());
  a.fp64 = true;
  for (int i = 0; i < m.rows(); ++i)
    for (int c = 0; c < m.cols(); ++c) a.f64.push_back(m(i, c));
  write_npy(path, a);
  return path;
}

}  // namespace mixgraph::test
