// Output written behind the trimming: while the run trims group g + 1, the
// formatted reads of group g are written by threads of their own, so the
// writing (gigabytes for a few million pairs) no longer stops the pipeline
// between groups (issue 17).
//
// The caller owns a fixed number of output buffers and passes them round by
// index: acquire() a free one, fill it, submit() it. Each lane (a thread)
// then calls write(buffer, lane) for every buffer in the order submitted,
// and a buffer is free again once every lane has written it. Lanes let
// several output files be written at once; whatever must keep its
// interleaving (two outputs on one descriptor) belongs to one lane. With two
// buffers at most two groups of output are held: one written, one filled.
//
// Errors cross in both directions, and nothing waits forever:
// - A write that throws stops every lane before its next buffer; the first
//   such exception comes back from the caller's next acquire(), submit() or
//   finish(). The caller then leaves, and its outputs are never committed.
// - A caller that throws (a malformed record, an engine error) destroys the
//   WriteBehind on its way out: the destructor drops what is still queued,
//   lets a write in progress end and joins the lanes.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace seqfuse::preprocess {

class WriteBehind {
 public:
  using Write = std::function<void(std::size_t buffer, std::size_t lane)>;

  // buffers >= 1 and lanes >= 1. `write` runs on the lane threads, each
  // lane on one thread, lanes at the same time (never one buffer and lane
  // twice).
  WriteBehind(std::size_t buffers, std::size_t lanes, Write write);
  ~WriteBehind();
  WriteBehind(const WriteBehind&) = delete;
  WriteBehind& operator=(const WriteBehind&) = delete;

  // A buffer no lane is writing or will write; waits while all are queued.
  [[nodiscard]] std::size_t acquire();
  // Queues a buffer acquire() gave for every lane, after those before it.
  void submit(std::size_t buffer);
  // Waits until every submitted buffer is written and the lanes have ended.
  // After it returns, the outputs are the caller's alone again (commit).
  void finish();

 private:
  void run_lane(std::size_t lane);
  void rethrow_error() const;  // with mutex_ held
  void stop_lanes();

  std::mutex mutex_;
  std::condition_variable changed_;  // anything below changed
  std::vector<std::size_t> free_;
  std::vector<std::size_t> submitted_;   // buffers in submission order (one per group)
  std::vector<std::size_t> next_;        // per lane: its next index into submitted_
  std::vector<std::size_t> lanes_left_;  // per buffer: lanes yet to write it
  bool closed_ = false;                  // finish(): nothing more will be submitted
  bool stopped_ = false;                 // the destructor, or an error: lanes end now
  std::exception_ptr error_;
  Write write_;
  std::vector<std::thread> lanes_;  // last: started once the rest is ready
};

}  // namespace seqfuse::preprocess
