// What "the same file" and "where the bytes go" mean for an output path:
// identity after following links, the last component's links followed by
// hand (so a dangling link still names its target), and the names that
// stand for a descriptor this process already holds (/dev/stdout, /dev/fd/N).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

namespace seqfuse {

// A regular file's device and inode, links followed.
struct FileId {
  dev_t dev = 0;
  ino_t ino = 0;
  friend bool operator==(const FileId&, const FileId&) = default;
};

// The identity of the regular file `path` names now, or nothing: missing,
// unreadable, or not a regular file. Devices, FIFOs and sockets are never
// "the same file" as an input in the sense that matters (writing them does
// not destroy what was read), so they have no identity here.
[[nodiscard]] std::optional<FileId> regular_file_id(const std::string& path);

// `path` with its last component's symbolic links followed hop by hop (a
// relative link is relative to the folder holding it), also when the last
// hop does not exist yet: writing through `-o link.tsv` creates or
// replaces what the link points to and leaves the link. Folders on the way
// are left to the kernel. Throws seqfuse::Error naming `path` on a loop.
[[nodiscard]] std::string follow_links(const std::string& path);

// The descriptor `path` stands for when it, or any hop of its link chain,
// is /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N or /proc/self/fd/N
// (also /proc/thread-self/fd/N and /proc/<our pid>/fd/N); else nothing.
[[nodiscard]] std::optional<int> named_descriptor(const std::string& path);

// Absolute, with ".", ".." and the links of the part that exists resolved
// (std::filesystem::weakly_canonical): two outputs that do not exist yet
// are one file when these are equal.
[[nodiscard]] std::string normal_path(const std::string& path);

}  // namespace seqfuse
