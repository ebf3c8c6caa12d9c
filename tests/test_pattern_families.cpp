// Named pattern families (dilated, strided, sink/global, block) and the union operator: every pattern's
// reads, decode cost and distances against brute-force constructions written directly from the definitions in
// docs/math.md §2.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "mixgraph/distances.hpp"
#include "mixgraph/error.hpp"
#include "mixgraph/pattern.hpp"
#include "mixgraph/profile.hpp"
#include "pattern_ref.hpp"

using namespace mixgraph;

using namespace pattern_ref;

TEST(PatternFamilies, DilatedReadsRTimesOneToW) {
  for (std::uint64_t n : {1u, 2u, 7u, 64u, 200u})
    for (std::uint64_t w : {1u, 3u, 8u})
      for (std::uint64_t r : {1u, 2u, 5u, 300u}) {
        expect_matches("dilated:" + std::to_string(w) + "," + std::to_string(r), n,
                       shared([=](std::uint64_t i, std::uint64_t j) {
                         return (i - j) % r == 0 && (i - j) / r >= 1 && (i - j) / r <= w;
                       }));
      }
  EXPECT_EQ(make_pattern("dilated:4,3", 100).family, PatternFamily::TranslationInvariant);
  EXPECT_EQ(make_pattern("dilated:4,3", 100).a_mode, AMode::Shared);
  // dilated:w,1 is window:w
  EXPECT_EQ(make_pattern("dilated:9,1", 50).b_offsets, make_pattern("window:9", 50).b_offsets);
}

TEST(PatternFamilies, StridedReadsLocalWindowAndEveryMultiple) {
  for (std::uint64_t n : {1u, 2u, 7u, 64u, 200u})
    for (std::uint64_t w : {1u, 4u, 16u})
      for (std::uint64_t s : {1u, 3u, 8u, 500u}) {
        expect_matches(
            "strided:" + std::to_string(w) + "," + std::to_string(s), n,
            shared([=](std::uint64_t i, std::uint64_t j) { return i - j <= w || (i - j) % s == 0; }));
      }
  EXPECT_EQ(make_pattern("strided:3,7", 100).family, PatternFamily::TranslationInvariant);
}

TEST(PatternFamilies, RefusesBadParameters) {
  expect_error<UsageError>("dilated:0,2", 10, ">= 1");
  expect_error<UsageError>("dilated:3,0", 10, ">= 1");
  expect_error<UsageError>("dilated:3", 10, "dilated:w,r");
  expect_error<UsageError>("dilated:3,2,1", 10, "dilated:w,r");
  expect_error<UsageError>("dilated:a,2", 10, "not a positive integer");
  expect_error<UsageError>("strided:4,0", 10, ">= 1");
  expect_error<UsageError>("strided:4", 10, "strided:w,s");
  expect_error<UsageError>("strided:-1,2", 10, "not a positive integer");
  expect_error<UsageError>("dilated:2,2", 0, "n must be >= 1");
}

TEST(PatternFamilies, SinkReadsTheFirstSPositions) {
  for (std::uint64_t n : {1u, 2u, 9u, 100u})
    for (std::uint64_t s : {1u, 2u, 4u, 150u}) {
      const auto ref = shared([=](std::uint64_t, std::uint64_t j) { return j <= s; });
      expect_matches("sink:" + std::to_string(s), n, ref);
      expect_matches("global:" + std::to_string(s), n, ref);  // an alias: the same reads
    }
  EXPECT_EQ(make_pattern("sink:3", 10).family, PatternFamily::Matrix);
}

TEST(PatternFamilies, UnionOfWindowAndSinkIsExplicit) {
  for (std::uint64_t n : {1u, 5u, 64u, 200u})
    for (std::uint64_t w : {1u, 8u})
      for (std::uint64_t s : {1u, 2u, 4u}) {
        const std::string spec = "window:" + std::to_string(w) + "|sink:" + std::to_string(s);
        expect_matches(spec, n,
                       shared([=](std::uint64_t i, std::uint64_t j) { return i - j <= w || j <= s; }));
        EXPECT_EQ(make_pattern(spec, n).family, PatternFamily::Matrix);
        EXPECT_EQ(make_pattern(spec, n).a_mode, AMode::Shared);
      }
  // Three parts, one dilated; order does not matter.
  const auto ref = shared([](std::uint64_t i, std::uint64_t j) {
    const auto o = i - j;
    return o <= 2 || (o % 5 == 0 && o <= 30) || j <= 3;
  });
  expect_matches("window:2|dilated:6,5|sink:3", 150, ref);
  expect_matches("sink:3 | dilated:6,5 | window:2", 150, ref);
}

TEST(PatternFamilies, UnionOfTranslationInvariantPartsStaysTranslationInvariant) {
  const auto p = make_pattern("window:3|dilated:4,8|offsets:50", 200);
  EXPECT_EQ(p.family, PatternFamily::TranslationInvariant);
  EXPECT_EQ(p.a_mode, AMode::Shared);
  expect_matches("window:3|dilated:4,8|offsets:50", 200, shared([](std::uint64_t i, std::uint64_t j) {
                   const auto o = i - j;
                   return o <= 3 || (o % 8 == 0 && o <= 32) || o == 50;
                 }));
  // A-only parts: A reads the union, B stays empty.
  const auto l = make_pattern("local:2|local:5", 60);
  EXPECT_EQ(l.family, PatternFamily::TranslationInvariant);
  expect_matches("local:2|local:5", 60,
                 {[](std::uint64_t, std::uint64_t) { return false; },
                  [](std::uint64_t i, std::uint64_t j) { return i - j <= 5; }});
  // +cache applies to the whole union: the same as +cache of the merged offsets.
  EXPECT_EQ(make_pattern("window:2|offsets:7,20+cache", 100).b.idx,
            make_pattern("offsets:1,2,7,20+cache", 100).b.idx);
}

TEST(PatternFamilies, UnionWithMixedAModesIsExplicit) {
  // window (shared A) with local (A only): B = the window's reads, A = union of both parts' A reads.
  const std::uint64_t w = 3, l = 6;
  const Ref ref{[=](std::uint64_t i, std::uint64_t j) { return i - j <= w; },
                [=](std::uint64_t i, std::uint64_t j) { return i - j <= std::max(w, l); }};
  expect_matches("window:3|local:6", 80, ref);
  const auto p = make_pattern("window:3|local:6", 80);
  EXPECT_EQ(p.family, PatternFamily::Matrix);
  EXPECT_EQ(p.a_mode, AMode::Explicit);
  // ssm (diagonal A) with sink (shared A): B = offset 1 and the sinks, A = the diagonal and the sinks.
  expect_matches("ssm|sink:2", 50,
                 {[](std::uint64_t i, std::uint64_t j) { return i - j == 1 || j <= 2; },
                  [](std::uint64_t i, std::uint64_t j) { return i == j || j <= 2; }});
}

TEST(PatternFamilies, UnionRefusesUndefinedCompositions) {
  expect_error<UsageError>("window:8|sink:2+cache", 64, "translation-invariant patterns only");
  expect_error<UsageError>("window:8|ssm+cache", 64, "translation-invariant patterns only");
  expect_error<UsageError>("sink:2+cache", 64, "not a translation-invariant pattern");
  expect_error<UsageError>("window:8||sink:2", 64, "empty part");
  expect_error<UsageError>("window:8|", 64, "empty part");
  expect_error<UsageError>("window:8|nope", 64, "unknown pattern 'nope'");
  expect_error<UsageError>("sink:0", 64, ">= 1");
  expect_error<UsageError>("global:x", 64, "not a positive integer");
  expect_error<UsageError>("window:8|sink:2", 0, "n must be >= 1");
}

TEST(PatternFamilies, UnionOfMtxFilesNeedsEqualN) {
  const std::string dir = ::testing::TempDir();
  auto write = [&](const std::string& name, int n) {
    const std::string path = dir + "/" + name;
    FILE* f = std::fopen(path.c_str(), "w");
    std::fprintf(f, "%%%%MatrixMarket matrix coordinate pattern general\n%d %d 1\n2 1\n", n, n);
    std::fclose(f);
    return path;
  };
  const auto a = write("union_a.mtx", 5), b = write("union_b.mtx", 6);
  expect_error<InputError>("mtx:" + a + "|mtx:" + b, 0, "union parts must have equal n");
  const auto p = make_pattern("mtx:" + a + "|window:2", 0);  // n from the file
  EXPECT_EQ(p.n, 5u);
  expect_matches("mtx:" + a + "|window:2", 5,
                 shared([](std::uint64_t i, std::uint64_t j) { return i - j <= 2; }));
}

TEST(PatternFamilies, CliPrintsAUnionAndRefusesBadSpecs) {
  const std::string cli = mixgraph::test::cli_path();
  const std::string ok = cli + " pattern -p 'window:8|sink:2' --n 64 --format json > /dev/null 2>&1";
  EXPECT_EQ(std::system(ok.c_str()), 0) << ok;
  const std::string cached =
      cli + " pattern -p 'window:2|offsets:7+cache' --n 64 --format json > /dev/null 2>&1";
  EXPECT_EQ(std::system(cached.c_str()), 0) << cached;
  for (const std::string bad :
       {"'window:8|sink:0'", "'dilated:3'", "'window:8|sink:2+cache'", "'window:8|'"}) {
    const std::string cmd = cli + " pattern -p " + bad + " --n 64 2>&1 >/dev/null";
    const int rc = std::system(cmd.c_str());
    EXPECT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 2) << cmd;
  }
}

TEST(PatternFamilies, BlockReadsItsOwnBlockThroughA) {
  const auto none = [](std::uint64_t, std::uint64_t) { return false; };
  for (std::uint64_t n : {1u, 2u, 10u, 64u, 199u})
    for (std::uint64_t b : {1u, 2u, 7u, 16u, 300u}) {
      expect_matches("block:" + std::to_string(b), n,
                     {none, [=](std::uint64_t i, std::uint64_t j) { return (i - 1) / b == (j - 1) / b; }});
      const auto p = make_pattern("block:" + std::to_string(b), n);
      EXPECT_EQ(p.a_mode, AMode::Explicit);
      EXPECT_TRUE(p.b_empty());
    }
  // With a sink: B = the sinks, A = the block and the sinks and i.
  expect_matches("block:8|sink:2", 40,
                 {[](std::uint64_t, std::uint64_t j) { return j <= 2; },
                  [](std::uint64_t i, std::uint64_t j) { return (i - 1) / 8 == (j - 1) / 8 || j <= 2; }});
  expect_error<UsageError>("block:0", 10, ">= 1");
  expect_error<UsageError>("block:8+cache", 10, "not a translation-invariant pattern");
}
