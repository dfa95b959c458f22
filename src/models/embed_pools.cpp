#include "models/embed_pools.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "models/embed_run.hpp"
#include "models/pooling.hpp"

namespace seqfuse::models {
namespace {

bool ends_with(std::string_view text, std::string_view tail) {
  return text.size() >= tail.size() && text.substr(text.size() - tail.size()) == tail;
}

class PoolsWriter final : public EmbeddingWriter {
 public:
  PoolsWriter(std::vector<Pooling> pools, std::vector<std::unique_ptr<EmbeddingWriter>> writers,
              std::vector<int> layers, std::size_t hidden)
      : pools_(std::move(pools)),
        writers_(std::move(writers)),
        layers_(std::move(layers)),
        hidden_(hidden) {}

  // `seq` holds every token (block_rows of them per layer, BOS first); its
  // rows are the residues.
  void write(const SequenceRows& seq) override {
    for (std::size_t p = 0; p < pools_.size(); ++p) {
      EmbeddingWriter& writer = *writers_[writers_.size() == 1 ? 0 : p];
      SequenceRows out = seq;
      out.group = writers_.size() == 1 ? p : 0;
      if (pools_[p] == Pooling::none) {
        writer.write(out);
        continue;
      }
      pooled_.resize(layers_.size() * hidden_);
      for (std::size_t l = 0; l < layers_.size(); ++l)
        pool_hidden_states(pools_[p], seq.values + l * seq.block_rows * hidden_, seq.block_rows,
                           hidden_, pooled_.data() + l * hidden_);
      out.values = pooled_.data();
      out.rows = 1;
      out.block_rows = 1;
      out.first_row = 0;
      writer.write(out);
    }
  }

  void commit() override {
    for (const auto& writer : writers_) writer->commit();
  }

 private:
  std::vector<Pooling> pools_;
  std::vector<std::unique_ptr<EmbeddingWriter>> writers_;  // one per pool, or one (h5 groups)
  std::vector<int> layers_;
  std::size_t hidden_;
  std::vector<float> pooled_;
};

}  // namespace

std::vector<Pooling> parse_poolings(std::string_view text) {
  std::vector<Pooling> pools;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string_view value = text.substr(start, comma - start);
    const Pooling pool = parse_pooling(value);
    if (std::find(pools.begin(), pools.end(), pool) != pools.end())
      throw UsageError("--pool names '" + std::string(value) + "' twice");
    pools.push_back(pool);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return pools;
}

std::string pool_output_path(std::string_view path, Pooling pool) {
  std::string_view tail;
  for (const std::string_view ext : {".tsv", ".npy", ".txt", ".csv", ".h5", ".hdf5"})
    for (const std::string_view gz : {"", ".gz"}) {
      const std::string full = std::string(ext) + std::string(gz);
      if (tail.empty() && ends_with(path, full)) tail = path.substr(path.size() - full.size());
    }
  const std::string_view stem = path.substr(0, path.size() - tail.size());
  return std::string(stem) + "." + pooling_name(pool) + std::string(tail);
}

std::unique_ptr<EmbeddingWriter> make_pools_writer(EmbedFormat format, const std::string& path,
                                                   const ProteinSet& input,
                                                   const std::vector<int>& layers,
                                                   std::size_t hidden,
                                                   const std::vector<Pooling>& pools) {
  const auto shape_for = [&](Pooling pool) {
    Readout readout;
    readout.layers = layers;
    readout.pooling = pool;
    return output_shape(input, readout, hidden);
  };
  std::vector<std::unique_ptr<EmbeddingWriter>> writers;
  if (format == EmbedFormat::h5) {
    OutputShape shape = shape_for(Pooling::none);
    shape.groups = pools;
    writers.push_back(make_embedding_writer(format, path, shape));
  } else {
    if (path == "-")
      throw UsageError(
          "--pool with several values writes one file per pool (FILE.mean.tsv, ...): "
          "give -o FILE, or -o FILE.h5 for one file with a group per pool");
    for (const Pooling pool : pools)
      writers.push_back(
          make_embedding_writer(format, pool_output_path(path, pool), shape_for(pool)));
  }
  return std::make_unique<PoolsWriter>(pools, std::move(writers), layers, hidden);
}

}  // namespace seqfuse::models
