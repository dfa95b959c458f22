// One embed run over several engines: one per GPU worker of --device
// gpu:0,1,... (repeats allowed: gpu:0,0 runs two on GPU 0), each on a host
// thread of its own (core/device_workers.hpp) with its device current.
//
// Each worker builds its own engine (weights uploaded to its device from the
// one host copy, its own workspace, streams and pinned buffers), then takes
// batches from one shared queue in the one-engine job's order (longest
// first within each window), so long and short batches balance between
// faster and slower workers. The batches are exactly the one-engine job's
// (embed_plan.hpp), so every sequence is computed in the same batch as on one
// GPU and the output is byte-identical. The calling thread is the writer: it
// waits for each window in input order, hands it to the writer and frees it;
// workers run at most `windows_in_flight` windows ahead of it, which bounds
// the results held in host memory.
//
// A worker that throws (an engine that cannot be built, a device failing
// mid-run) stops the others at their next batch; the first failure is
// rethrown once all have returned, and nothing is committed (the caller
// commits the writer only after a clean return). A writer that throws stops
// the workers the same way.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "core/device_workers.hpp"
#include "models/embed_job.hpp"

namespace seqfuse::models {

// Builds worker `worker`'s engine; called on that worker's thread with its
// device current, all workers at once (the uploads overlap). The engine is
// used and destroyed on that thread too.
using MakeWorkerEngine =
    std::function<std::unique_ptr<EmbeddingEngine>(std::size_t worker, int device)>;

struct EmbedWorkers {
  std::vector<int> devices;  // one entry per worker
  MakeWorkerEngine make_engine;
  // Makes a device current on a worker's thread; null: gpu::use_device.
  // Tests fake devices with a no-op.
  BindDevice bind;
  // No --toks-per-batch given: job.toks_per_batch is replaced by the
  // smallest preferred_batch_tokens() of the engines, asked once every engine
  // is built (so each answer counts the memory that the weights of other
  // workers on its device take). Workers on separate devices of one kind
  // answer as one engine alone would.
  bool engines_choose_batch = false;
  // Called once, on a worker's thread, when every engine is built and the
  // batch size is fixed, before any batch: where the forward clock starts.
  std::function<void()> engines_ready;
  // Windows whose results may be held at once, counting the one the writer
  // is on; 0: workers + 1, so each worker may be on a window of its own while
  // the writer writes one (with --pool none a window may be one batch).
  std::size_t windows_in_flight = 0;
};

// Throws what a worker or the writer threw, or seqfuse::Error for an empty
// worker list.
EmbedStats run_embed_job_on_workers(const EmbedJob& job, const EmbedWorkers& workers,
                                    const ProteinSet& input, std::size_t hidden,
                                    EmbeddingWriter& writer);

}  // namespace seqfuse::models
