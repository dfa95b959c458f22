// The boundary between the embed job and the engines that run a model
// family's forward pass (model_family.hpp): for ESM-2 and BERT a CPU engine
// (cpu_forward.hpp, cpu_bert_forward.hpp) and a GPU engine (gpu_engine.hpp,
// over the ops in gpu/nn). Sequences hold the family's first special token
// (<cls>, [CLS]), the residues and its last one (<eos>, [SEP]).
//
// A GPU backend plugs in by implementing EmbeddingEngine over an EsmModel
// (plain fp32 host arrays, uploaded and converted to its compute type as it
// likes) and being made in make_embedding_engine (embed_run.hpp), the one
// place the engine is chosen. With several GPU workers each has an engine of
// its own, made, used and destroyed on the worker's thread
// (embed_workers.hpp), so an engine is only ever used from one thread. The job hands it
// length-sorted batches of tokenized sequences, at most --toks-per-batch tokens each (a longer
// sequence comes alone), and expects the readout below back, per sequence,
// in batch order. Each sequence attends only to its own tokens: no padding,
// as a separate forward pass of transformers' EsmModel per sequence would
// compute.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace seqfuse::models {

enum class Pooling {
  mean,  // mean over the residues of each layer (BOS and EOS excluded), as esm-extract
  bos,   // the BOS (<cls>) token's vector
  none,  // every token's vector: BOS, residues, EOS
};

enum class ComputeType { fp32, bf16, fp16 };

// What to read out of the forward pass: hidden states by index, as
// transformers numbers them (0: the embedding output; i: the output of
// layer i; num_layers: the final, normed layer), pooled as asked.
struct Readout {
  std::vector<int> layers;
  Pooling pooling = Pooling::mean;
};

// One sequence's result: for each readout layer in order, `rows` x hidden
// floats (rows = 1 for mean and bos; the token count for none).
struct Embedding {
  std::size_t rows = 0;
  std::vector<float> values;  // [layers][rows][hidden]
};

class EmbeddingEngine {
 public:
  virtual ~EmbeddingEngine() = default;

  // "cpu", "gpu:0", for the summary line.
  [[nodiscard]] virtual std::string name() const = 0;

  // Tokens per batch when the user does not say (--toks-per-batch): the CPU
  // engine takes esm-extract's 4096; a GPU fills its multiprocessors better
  // with more, as far as its free memory allows.
  [[nodiscard]] virtual std::size_t preferred_batch_tokens() const { return 4096; }

  // Called once before any batch: the longest sequence (in tokens) and the
  // largest batch (in tokens) that will come. Throws seqfuse::Error when the
  // engine cannot hold them (say, a sequence too long for device memory), so
  // the run stops before any work.
  virtual void reserve(std::size_t longest_sequence_tokens, std::size_t batch_tokens) = 0;

  // sequences[i]: <cls>, residue tokens, <eos>. Fills out[i] for each.
  virtual void embed(std::span<const std::span<const std::int32_t>> sequences,
                     const Readout& readout, std::span<Embedding> out) = 0;
};

}  // namespace seqfuse::models
