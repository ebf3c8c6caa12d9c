#pragma once
// Input files are checked before they are read (not installed): a FIFO, a directory or a device would make
// a reader block, read forever (/dev/zero) or fail with a confusing message.
#include <cstdint>
#include <string>

namespace mixgraph::detail {

/// Opens `path` without blocking and checks that it is a readable regular file; returns its size in bytes.
/// Throws InputError (exit 3) naming `what` and the problem: missing, unreadable, a directory, or not a
/// regular file (FIFO, socket, device). O(1).
std::uint64_t check_input_file(const std::string& path, const std::string& what);

}  // namespace mixgraph::detail
