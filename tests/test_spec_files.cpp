// spec_input_files / spec_leaf_parts: the files a pattern spec reads, wherever they sit (union parts,
// read marks, heads:, stack: layers and their repetitions). The reference is the definition: a file is read
// by a spec exactly when building the spec fails, naming the file, once that file is gone.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "attention_util.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/spec_files.hpp"
#include "mixgraph/stack.hpp"

namespace {

using mixgraph::test::AttnTempDir;

constexpr int kN = 16;

void write_mtx(const std::string& path, int extra_from) {
  std::ofstream f(path);
  f << "%%MatrixMarket matrix coordinate pattern general\n"
    << kN << " " << kN << " " << (kN - extra_from) << "\n";
  for (int i = extra_from + 1; i <= kN; ++i) f << i << " " << i - extra_from << "\n";
}

void write_all(const std::string& d) {
  write_mtx(d + "/a.mtx", 1);
  write_mtx(d + "/b.mtx", 2);
  write_mtx(d + "/c.mtx", 3);
  mixgraph::test::save_npy(d + "/s.npy", Eigen::MatrixXd::Ones(kN / 4, kN / 4));
}

/// Builds the spec at n = kN (a stack with make_stack); true when it builds.
bool builds(const std::string& spec, std::string* why) {
  try {
    if (mixgraph::is_stack_spec(spec))
      (void)mixgraph::make_stack(spec, kN);
    else
      (void)mixgraph::make_pattern(spec, kN);
    return true;
  } catch (const mixgraph::Error& e) {
    *why = e.what();
    return false;
  }
}

TEST(SpecFiles, ListsExactlyTheFilesTheBuildReads) {
  AttnTempDir tmp("mixgraph_spec_files");
  const std::string d = tmp.path;
  const std::string a = d + "/a.mtx", b = d + "/b.mtx", c = d + "/c.mtx", s = d + "/s.npy";
  const std::vector<std::string> all = {a, b, c, s};
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"mtx:" + a, {a}},
      {"mtx:" + b + "," + a, {b, a}},
      {"window:2@A|mtx:" + a + "@B", {a}},
      {"mtx:" + a + " @AB|mtx:" + b, {a, b}},
      {"heads:window:2;mtx:" + a, {a}},
      {"heads:window:2@A|mtx:" + b + "@B;mtx:" + c, {b, c}},
      {"heads:mtx:" + a + ";topk-blocks:4,2," + s, {a, s}},
      {"stack:ssm,mtx:" + a, {a}},
      {"stack:ssm;(window:2|mtx:" + b + "@A)*3;mtx:" + c, {b, c}},
      {"stack:(mtx:" + a + ",ssm)*2", {a}},
      {"stack:mtx:" + b + "," + a, {b, a}},  // ',' pieces that are not all layers: one spec, two files
      {"stack:topk-blocks:4,2," + s + ";pow2", {s}},
      {"pow2+cache", {}},
      {"stack:ssm,window:4", {}},
  };
  for (const auto& [spec, want] : cases) {
    write_all(d);
    std::string why;
    ASSERT_TRUE(builds(spec, &why)) << spec << ": " << why;
    EXPECT_EQ(mixgraph::spec_input_files(spec), want) << spec;
    // the definition: without a listed file the build fails naming it; without another one it still builds
    const auto listed = mixgraph::spec_input_files(spec);
    const std::set<std::string> read(listed.begin(), listed.end());
    for (const auto& f : all) {
      write_all(d);
      std::filesystem::remove(f);
      const bool ok = builds(spec, &why);
      if (read.count(f)) {
        EXPECT_FALSE(ok) << spec << " built without " << f;
        EXPECT_NE(why.find(f), std::string::npos) << spec << ": " << why;
      } else {
        EXPECT_TRUE(ok) << spec << " needs " << f << " but does not list it: " << why;
      }
    }
  }
}

TEST(SpecFiles, LeafPartsKeepReadMarksAndExpandEveryWrapper) {
  using V = std::vector<std::string>;
  EXPECT_EQ(mixgraph::spec_leaf_parts("window:4@A|B.mtx @B"), (V{"window:4@A", "B.mtx @B"}));
  EXPECT_EQ(mixgraph::spec_leaf_parts("heads:window:4;B.mtx|ssm"), (V{"window:4", "B.mtx", "ssm"}));
  EXPECT_EQ(mixgraph::spec_leaf_parts("stack:(ssm,window:2)*3"), (V{"ssm", "window:2"}));
  EXPECT_EQ(mixgraph::spec_leaf_parts("stack:ssm;(pow2|x.mtx@A)*2"), (V{"ssm", "pow2", "x.mtx@A"}));
  EXPECT_EQ(mixgraph::spec_leaf_parts(" pow2+cache "), (V{"pow2"}));
  EXPECT_TRUE(mixgraph::spec_leaf_parts("stack:ssm,(").empty());  // bad grammar: make_stack names it
  EXPECT_TRUE(mixgraph::spec_leaf_parts("stack:(ssm)*5000").empty());
  // deep and long specs answer at once (no recursion over the text)
  std::string many = "heads:";
  for (int k = 0; k < 100000; ++k) many += "heads:";
  EXPECT_EQ(mixgraph::spec_leaf_parts(many + "pow2").size(), 1u);
  std::string cache = "pow2";
  for (int k = 0; k < 100000; ++k) cache += "+cache";
  EXPECT_EQ(mixgraph::spec_leaf_parts(cache), (V{"pow2"}));
}

}  // namespace

TEST(SpecFiles, FileNameHintNamesTheBareMtxPieceOnly) {
  EXPECT_EQ(spec_file_name_hint("pow2|B.mtx"), "'B.mtx' is a file name: did you mean mtx:B.mtx?");
  EXPECT_EQ(spec_file_name_hint("heads:pow2;x/B.MTX@A"),
            "'x/B.MTX@A' is a file name: did you mean mtx:x/B.MTX@A?");
  EXPECT_EQ(spec_file_name_hint("stack:ssm,B.mtx"), "'B.mtx' is a file name: did you mean mtx:B.mtx?");
  for (const char* fine :
       {"pow2", "mtx:B.mtx", "mtx:B.mtx,A.mtx|sink:2", "topk-blocks:4,2,s.mtx", "window:3+cache"})
    EXPECT_EQ(spec_file_name_hint(fine), "") << fine;
}
