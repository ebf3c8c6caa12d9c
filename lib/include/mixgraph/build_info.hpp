#pragma once
#include <string>

namespace mixgraph {

struct BuildInfo {
  std::string version;
  std::string compiler;
  std::string build_type;
  bool cuda = false;      ///< the CUDA solver is built in
  bool muparser = false;  ///< expr: patterns
  bool glpk = false;      ///< LP congestion bounds
  bool cairo = false;     ///< heatmaps
  bool openmp = false;
  int openmp_max_threads = 1;
};

BuildInfo build_info();
std::string version();

}  // namespace mixgraph
