#include "core/path_identity.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <filesystem>
#include <string_view>
#include <system_error>

#include "core/error.hpp"

namespace seqfuse {
namespace {

namespace fs = std::filesystem;

// The kernel's own limit on links followed in one lookup (MAXSYMLINKS).
constexpr int kMaxHops = 40;

// The text of the link at `path`, or "" when it cannot be read.
std::string read_link(const std::string& path) {
  std::string text(256, '\0');
  for (;;) {
    const ssize_t n = ::readlink(path.c_str(), text.data(), text.size());
    if (n < 0) return {};
    if (static_cast<std::size_t>(n) < text.size()) {
      text.resize(static_cast<std::size_t>(n));
      return text;
    }
    text.resize(text.size() * 2);  // possibly cut off: read again with room
  }
}

// The next hop of a link chain: the link's text, taken relative to the
// folder holding the link when it is relative (as the kernel does).
std::string next_hop(const std::string& link, std::string target) {
  if (target.empty() || target.front() == '/') return target;
  const auto slash = link.rfind('/');
  return slash == std::string::npos ? target : link.substr(0, slash + 1) + target;
}

bool is_link(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

std::optional<int> parse_descriptor(std::string_view digits) {
  int fd = -1;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), fd);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || fd < 0)
    return std::nullopt;
  return fd;
}

// The descriptor an absolute, lexically normal name stands for.
std::optional<int> descriptor_of_name(std::string_view name) {
  if (name == "/dev/stdin") return 0;
  if (name == "/dev/stdout") return 1;
  if (name == "/dev/stderr") return 2;
  const std::string own_proc = "/proc/" + std::to_string(::getpid()) + "/fd/";
  for (std::string_view prefix :
       {std::string_view("/dev/fd/"), std::string_view("/proc/self/fd/"),
        std::string_view("/proc/thread-self/fd/"), std::string_view(own_proc)}) {
    if (name.starts_with(prefix)) return parse_descriptor(name.substr(prefix.size()));
  }
  return std::nullopt;
}

}  // namespace

std::optional<FileId> regular_file_id(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return FileId{st.st_dev, st.st_ino};
}

std::string follow_links(const std::string& path) {
  std::string current = path;
  for (int hop = 0; hop < kMaxHops; ++hop) {
    if (!is_link(current)) return current;
    std::string target = next_hop(current, read_link(current));
    if (target.empty()) return current;  // unreadable: open or rename will say why
    current = std::move(target);
  }
  throw Error("cannot write '" + path + "': too many levels of symbolic links");
}

std::optional<int> named_descriptor(const std::string& path) {
  std::string current = path;
  for (int hop = 0; hop < kMaxHops; ++hop) {
    // Matched by name before the link is read: /dev/fd/1 reads as the file
    // descriptor 1 has open, which may be a pipe ("pipe:[1234]") or a file.
    if (const auto fd = descriptor_of_name(fs::path(current).lexically_normal().native()))
      return fd;
    if (!is_link(current)) return std::nullopt;
    current = next_hop(current, read_link(current));
    if (current.empty()) return std::nullopt;
  }
  return std::nullopt;
}

std::string normal_path(const std::string& path) {
  std::error_code error;
  const fs::path absolute = fs::absolute(path, error);
  if (error) return fs::path(path).lexically_normal().native();
  const fs::path normal = fs::weakly_canonical(absolute, error);
  return error ? absolute.lexically_normal().native() : normal.native();
}

}  // namespace seqfuse
