#include "core/regular_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "core/error.hpp"
#include "core/mapped_input.hpp"

namespace seqfuse {
namespace {

const char* kind_of(mode_t mode) noexcept {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

std::string quoted(std::string_view what, const std::string& path) {
  std::string text(what);
  text += " '";
  text += path;
  text += '\'';
  return text;
}

}  // namespace

std::uint64_t regular_file_size(const std::string& path) noexcept {
  std::error_code error;
  if (path.empty() || path == "-" || !std::filesystem::is_regular_file(path, error)) return 0;
  const std::uintmax_t bytes = std::filesystem::file_size(path, error);
  return error ? 0 : static_cast<std::uint64_t>(bytes);
}

int open_regular_file(const std::string& path, std::string_view what) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    if (err == EISDIR) throw Error(quoted(what, path) + " is a directory, not a regular file");
    throw Error("cannot open " + quoted(what, path) + ": " + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const mode_t mode = st.st_mode;
    ::close(fd);
    throw Error(quoted(what, path) + " is " + kind_of(mode) + ", not a regular file");
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

std::string read_regular_file(const std::string& path, std::string_view what) {
  const int fd = open_regular_file(path, what);
  std::string text;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      throw Error("cannot read " + quoted(what, path) + ": " + std::strerror(err));
    }
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

MappedRegularFile::MappedRegularFile(const std::string& path, std::string_view what)
    : MappedRegularFile(path, what, Edits::refused) {}

MappedRegularFile::MappedRegularFile(const std::string& path, std::string_view what, Edits edits) {
  const int fd = open_regular_file(path, what);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    throw Error("cannot read '" + path + "': " + std::strerror(err));
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size > 0) {
    editable_ = edits == Edits::private_copies;
    const int protection = editable_ ? PROT_READ | PROT_WRITE : PROT_READ;
    void* map = ::mmap(nullptr, size, protection, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      throw Error("cannot map '" + path + "': " + std::strerror(err));
    }
    data_ = static_cast<const char*>(map);
    size_ = size;
    try {
      guard_ = std::make_unique<MappedInputGuard>(data_, size_, path);
    } catch (...) {
      ::munmap(map, size_);
      ::close(fd);
      throw;
    }
  }
  ::close(fd);  // the mapping stays valid
}

MappedRegularFile::~MappedRegularFile() {
  guard_.reset();  // unregistered before the pages go
  if (data_ != nullptr) ::munmap(const_cast<char*>(data_), size_);
}

MappedRegularFile::MappedRegularFile(MappedRegularFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      editable_(std::exchange(other.editable_, false)),
      guard_(std::move(other.guard_)) {}

void MappedRegularFile::advise(int advice) const noexcept {
  if (data_ != nullptr) (void)::madvise(const_cast<char*>(data_), size_, advice);
}

}  // namespace seqfuse
