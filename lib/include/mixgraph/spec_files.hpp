#pragma once
// The pieces of a pattern spec and the files it reads, found by walking every wrapper: stack: layers,
// heads: heads, union parts, read marks and a trailing +cache. Used to hash a job's input files for its
// checkpoint and to spot a bare file name given where `mtx:FILE` was meant.
//
//   mixgraph::spec_input_files("stack:mtx:a.mtx,(ssm|mtx:b.mtx@A)*2")   // {"a.mtx", "b.mtx"}
#include <string>
#include <vector>

namespace mixgraph {

/// The single-pattern pieces of a spec, each once, in order of appearance: the layers of a stack (its
/// repetitions expanded), the heads of heads:, the parts of a union P1|P2 as written (a read mark @A / @B /
/// @AB kept, blanks trimmed), with a trailing +cache removed. A stack whose grammar is bad gives no pieces
/// (make_stack refuses it). Reads no file; O(length of the spec + the stack's layers).
std::vector<std::string> spec_leaf_parts(const std::string& spec);

/// The files a spec reads, each once, in order of appearance: every file of an mtx: piece (mtx:A.mtx or
/// mtx:B.mtx,A.mtx) and the score file of topk-blocks:b,k,FILE, wherever the piece sits in the spec.
std::vector<std::string> spec_input_files(const std::string& spec);

/// "" or, where a piece of the spec (a union part, head or stack layer, or one of a ',' list that is not a
/// stack's) is a bare file name ending in .mtx, "'B.mtx' is a file name: did you mean mtx:B.mtx?" (the
/// hint of the CLI's and the Python package's pattern checks). mtx: and topk-blocks: pieces are left alone.
/// Reads no file; O(length of the spec + the stack's layers).
std::string spec_file_name_hint(const std::string& spec);

}  // namespace mixgraph
