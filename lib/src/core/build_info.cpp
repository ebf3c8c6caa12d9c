#include "mixgraph/build_info.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace mixgraph {

std::string version() {
  return MIXGRAPH_VERSION;
}

BuildInfo build_info() {
  BuildInfo b;
  b.version = MIXGRAPH_VERSION;
#if defined(__clang__)
  b.compiler = "clang " __clang_version__;
#elif defined(__GNUC__)
  b.compiler = "g++ " __VERSION__;
#endif
  b.build_type = MIXGRAPH_BUILD_TYPE;
#ifdef MIXGRAPH_HAVE_CUDA
  b.cuda = true;
#endif
#ifdef MIXGRAPH_HAVE_MUPARSER
  b.muparser = true;
#endif
#ifdef MIXGRAPH_HAVE_GLPK
  b.glpk = true;
#endif
#ifdef MIXGRAPH_HAVE_CAIRO
  b.cairo = true;
#endif
#ifdef _OPENMP
  b.openmp = true;
  b.openmp_max_threads = omp_get_max_threads();
#endif
  return b;
}

}  // namespace mixgraph
