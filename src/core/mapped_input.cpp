#include "core/mapped_input.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>

#include "core/output_file.hpp"

namespace seqfuse {
namespace {

// Fixed storage only: the handler may not allocate or lock.
constexpr int kSlots = 16;
constexpr std::size_t kMaxText = 4096;

struct Slot {
  std::atomic<bool> claimed{false};
  std::atomic<bool> armed{false};  // begin, end and path are complete
  std::uintptr_t begin = 0;
  std::uintptr_t end = 0;
  std::array<char, kMaxText> path{};
};
std::array<Slot, kSlots> g_slots;
std::array<char, 256> g_prefix{"seqfuse"};
struct sigaction g_previous {};
std::once_flag g_installed;

void write_all(const char* text, std::size_t size) noexcept {
  while (size > 0) {
    const ssize_t n = ::write(STDERR_FILENO, text, size);
    if (n <= 0) return;
    text += n;
    size -= static_cast<std::size_t>(n);
  }
}
void write_text(const char* text) noexcept {
  write_all(text, std::strlen(text));
}

// write, unlink, sigaction and _exit only: all async-signal-safe.
extern "C" void on_sigbus(int sig, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  for (Slot& slot : g_slots) {
    if (!slot.armed.load() || address < slot.begin || address >= slot.end) continue;
    remove_temporary_outputs_now();
    write_text(g_prefix.data());
    write_text(": error: input '");
    write_text(slot.path.data());
    write_text("' shrank while it was being read (truncated or rewritten by another process)\n");
    ::_exit(1);
  }
  // Not ours: hand the fault to whoever had it; returning re-runs the
  // faulting access under that action.
  if ((g_previous.sa_flags & SA_SIGINFO) != 0 && g_previous.sa_sigaction != nullptr) {
    g_previous.sa_sigaction(sig, info, context);
    return;
  }
  ::sigaction(SIGBUS, &g_previous, nullptr);
}

void install() {
  struct sigaction action {};
  action.sa_sigaction = on_sigbus;
  action.sa_flags = SA_SIGINFO;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGBUS, &action, &g_previous);
}

}  // namespace

void set_fault_message_prefix(std::string_view prefix) {
  const std::size_t n = std::min(prefix.size(), g_prefix.size() - 1);
  std::memcpy(g_prefix.data(), prefix.data(), n);
  g_prefix[n] = '\0';
}

MappedInputGuard::MappedInputGuard(const void* data, std::size_t size, const std::string& path) {
  if (data == nullptr || size == 0) return;
  std::call_once(g_installed, install);
  for (int i = 0; i < kSlots; ++i) {
    Slot& slot = g_slots[i];
    if (slot.claimed.exchange(true)) continue;
    slot.begin = reinterpret_cast<std::uintptr_t>(data);
    slot.end = slot.begin + size;
    const std::size_t n = std::min(path.size(), kMaxText - 1);
    std::memcpy(slot.path.data(), path.data(), n);
    slot.path[n] = '\0';
    slot.armed.store(true);
    slot_ = i;
    return;
  }
}

MappedInputGuard::~MappedInputGuard() {
  if (slot_ < 0) return;
  g_slots[slot_].armed.store(false);
  g_slots[slot_].claimed.store(false);
}

}  // namespace seqfuse
