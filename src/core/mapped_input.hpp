// A memory-mapped input that shrinks while it is read (another process
// truncates or rewrites it) makes the next read of a page past its new end
// raise SIGBUS, which would end the process with no message and leave the
// run's temporary output files behind.
//
// Why a handler that exits, not sigsetjmp/siglongjmp around the reads: the
// mapped text is parsed on several threads and through C++ frames whose
// destructors a longjmp would skip, and nothing can be recovered anyway (the
// file is not what it was). So a SIGBUS whose address lies inside a
// registered mapping prints one error line naming the file, removes the
// temporary outputs (as the other terminating signals do) and _exits with
// status 1. A SIGBUS anywhere else goes on to the handler that was there
// before (the default core dump, or a sanitizer's report).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace seqfuse {

// The start of the error line, "seqfuse <subcommand>" (main sets it once
// the subcommand is known; "seqfuse" until then).
void set_fault_message_prefix(std::string_view prefix);

// Registers [data, data + size) as the mapping of `path` while it lives.
class MappedInputGuard {
 public:
  MappedInputGuard(const void* data, std::size_t size, const std::string& path);
  ~MappedInputGuard();
  MappedInputGuard(const MappedInputGuard&) = delete;
  MappedInputGuard& operator=(const MappedInputGuard&) = delete;

 private:
  int slot_ = -1;  // -1: more live mappings than slots (then not guarded)
};

}  // namespace seqfuse
