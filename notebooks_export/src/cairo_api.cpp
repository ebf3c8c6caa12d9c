// Loads libcairo.so.2 on the first figure: see cairo_api.hpp.
#ifdef MIXGRAPH_HAVE_CAIRO
#define MIXGRAPH_CAIRO_API_IMPL
#include "cairo_api.hpp"

#include <dlfcn.h>

#include <string>

#include "mixgraph/error.hpp"

namespace mixgraph::detail {
namespace {

constexpr const char* kLibrary = "libcairo.so.2";

struct Loaded {
  CairoApi api;
  std::string error;  // empty when every function was found
};

const Loaded& loaded() {
  static const Loaded l = [] {
    Loaded r;
    // RTLD_LOCAL: cairo's symbols stay out of the global namespace, as they were never in it before.
    void* h = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* why = dlerror();
      r.error = std::string("cannot load ") + kLibrary + " (" + (why ? why : "unknown reason") +
                "); install the libcairo2 package";
      return r;
    }
#define MIXGRAPH_CAIRO_LOAD(f)                                                                  \
  if (r.error.empty()) {                                                                        \
    r.api.f = reinterpret_cast<decltype(r.api.f)>(dlsym(h, #f));                                \
    if (!r.api.f) r.error = std::string(kLibrary) + " has no function " #f " (cairo too old?)"; \
  }
    MIXGRAPH_CAIRO_FUNCTIONS(MIXGRAPH_CAIRO_LOAD)
#undef MIXGRAPH_CAIRO_LOAD
    return r;
  }();
  return l;
}

}  // namespace

bool cairo_loadable() {
  return loaded().error.empty();
}

const CairoApi& cairo_api() {
  const Loaded& l = loaded();
  if (!l.error.empty()) throw RuntimeFailure("figures: " + l.error);
  return l.api;
}

}  // namespace mixgraph::detail
#endif
