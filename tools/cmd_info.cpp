// mixgraph info: version, build options, CUDA and GPU visibility.
#include <iostream>

#include "mixgraph/build_info.hpp"
#include "mixgraph/gpu.hpp"
#include "mixgraph/memory.hpp"
#include "option_types.hpp"
#include "output.hpp"
#include "registry.hpp"

namespace mixgraph::cli {
namespace {

struct InfoOptions {
  CommonOptions common;
};

int run_info(const InfoOptions& o) {
  o.common.apply();
  const auto b = build_info();
  const auto g = gpu::device_info();
  const auto yes = [](bool x) { return std::string(x ? "yes" : "no (not built in)"); };
  if (o.common.fmt() == Format::Json) {
    auto j = json_header("info", 1, {{"format", o.common.format}});
    j["version"] = b.version;
    j["compiler"] = b.compiler;
    j["build_type"] = b.build_type;
    j["features"] = {{"cuda", b.cuda},
                     {"expressions", b.muparser},
                     {"lp", b.glpk},
                     {"heatmaps", b.cairo},
                     {"openmp", b.openmp}};
    j["threads"] = b.openmp_max_threads;
    j["physical_memory_bytes"] = physical_memory_bytes();
    const bool seen = g.device_count > 0;  // without a device its name, capability and memory are null
    j["gpu"] = {
        {"built_in", g.built_in},
        {"visible", seen},
        {"device_count", g.device_count},
        {"name", seen ? ojson(g.name) : ojson(nullptr)},
        {"compute_capability",
         seen ? ojson(std::to_string(g.cc_major) + "." + std::to_string(g.cc_minor)) : ojson(nullptr)},
        {"memory_bytes", seen ? ojson(g.memory_bytes) : ojson(nullptr)},
        {"note", g.note}};
    print_json(std::cout, j);
    return 0;
  }
  std::vector<std::pair<std::string, std::string>> kv = {
      {"mixgraph", b.version},
      {"compiler", b.compiler},
      {"build type", b.build_type},
      {"OpenMP", b.openmp ? "yes (" + std::to_string(b.openmp_max_threads) + " threads)" : "no"},
      {"expressions (muParser)", yes(b.muparser)},
      {"LP bounds (GLPK)", yes(b.glpk)},
      {"heatmaps (cairo)", yes(b.cairo)},
      {"CUDA solver", yes(b.cuda)},
      {"GPU visible", g.device_count > 0
                          ? "yes: " + g.name + " (sm_" + std::to_string(g.cc_major) +
                                std::to_string(g.cc_minor) + ", " + format_bytes(g.memory_bytes) + ")"
                          : "no (" + g.note + ")"},
      {"physical memory", format_bytes(physical_memory_bytes())},
  };
  if (o.common.fmt() == Format::Csv) {
    Table t({"key", "value"});
    for (auto& [k, v] : kv) t.add({k, v});
    t.print_csv(std::cout);
  } else {
    print_kv(std::cout, kv);
  }
  return 0;
}

Registrar reg_cmd_info("info",
                       "Version, build options (CUDA, muParser, GLPK, cairo) and whether a GPU is visible", 0,
                       [](CLI::App& app) -> std::function<int()> {
                         auto o = std::make_shared<InfoOptions>();
                         // only --format: threads and a memory limit would change nothing here
                         add_format_option(app, o->common.format, {"table", "csv", "json"});
                         return [o] { return run_info(*o); };
                       });

}  // namespace
}  // namespace mixgraph::cli
