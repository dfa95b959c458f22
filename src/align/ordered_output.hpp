// Formatting output on several threads while keeping its order: chunks of
// records are formatted in parallel into text of their own, and the texts
// are handed to one writer in chunk order, so the bytes are the same as a
// single thread's whatever the thread count or chunk size. Header-only (one
// user, output_format.cpp, plus its tests); it could move to core/ if
// another subcommand's writer wants it.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/parallel.hpp"

namespace seqfuse::align {

// Appends the text of items [begin, end) to `text` (which arrives empty).
// Runs on several threads at once, each with its own chunk and text.
using FormatChunk = std::function<void(std::size_t begin, std::size_t end, std::string& text)>;
// Takes one chunk's text; called in chunk order, never two at once.
using WriteChunk = std::function<void(std::string_view text)>;

// Formats [0, count) in chunks of at most `chunk` items on `threads` threads
// (0 counts as 1) and writes every chunk's text in order. A chunk is written
// by whichever worker finds it next in line, while the others keep
// formatting; at most twice `threads` chunks are held formatted or being
// formatted, so memory stays bounded whatever `count` is. If format or
// write throws, the rest is skipped and the first exception is rethrown here.
inline void format_in_order(std::size_t count, std::size_t chunk, unsigned threads,
                            const FormatChunk& format, const WriteChunk& write) {
  if (count == 0) return;
  chunk = std::max<std::size_t>(chunk, 1);
  const std::size_t chunks = (count + chunk - 1) / chunk;
  const auto workers = static_cast<unsigned>(std::min<std::size_t>(std::max(threads, 1U), chunks));

  // A ring of texts: chunk i formats into slot i % window, and may start only
  // once chunk i - window has been written, which bounds memory. The slots
  // keep their capacity, so after the first round nothing is allocated.
  const std::size_t window = 2 * std::size_t{workers};
  std::vector<std::string> slots(window);
  std::vector<char> ready(window, 0);  // slot holds a formatted, unwritten chunk
  std::mutex mutex;
  std::condition_variable slot_freed;
  std::size_t next = 0;  // the chunk to write next
  bool writing = false;  // a worker is writing: it picks up chunks readied meanwhile
  bool failed = false;   // stops workers waiting for a slot that will not free

  // parallel_chunks hands chunks out in increasing order, so the chunks
  // before a waiting one are all taken and being formatted: the wait ends.
  parallel_chunks(count, chunk, workers, [&](unsigned, std::size_t begin, std::size_t end) {
    const std::size_t index = begin / chunk;
    const std::size_t slot = index % window;
    try {
      {
        std::unique_lock<std::mutex> lock(mutex);
        slot_freed.wait(lock, [&] { return index < next + window || failed; });
        if (failed) return;
      }
      // Formatted in a string of this thread's own, not in place: the slots'
      // string objects share cache lines, and two threads appending to
      // neighbours (each append writes the size) ran at 2/3 of the speed.
      std::string text = std::move(slots[slot]);  // keeps the capacity
      text.clear();
      format(begin, end, text);

      std::unique_lock<std::mutex> lock(mutex);
      slots[slot] = std::move(text);
      ready[slot] = 1;
      if (writing) return;
      // This worker writes every chunk that is ready in order, outside the
      // lock, so the others can mark theirs ready (and go on) meanwhile.
      writing = true;
      while (!failed && ready[next % window]) {
        const std::size_t s = next % window;
        lock.unlock();
        write(slots[s]);
        lock.lock();
        ready[s] = 0;
        ++next;
        slot_freed.notify_all();
      }
      writing = false;
    } catch (...) {
      {
        const std::lock_guard<std::mutex> lock(mutex);
        failed = true;
      }
      slot_freed.notify_all();
      throw;
    }
  });
  if (next != chunks) throw Error("internal: formatted output lost a chunk");
}

}  // namespace seqfuse::align
