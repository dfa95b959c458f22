// Where embeddings go: tsv, npy (+ ids file) or HDF5, each written through
// seqfuse::OutputFile so a failed run leaves no partial file.
//
// Rows and features, the same in every format: a sequence gives one row
// (--pool mean or bos) or one row per residue (--pool none; BOS and EOS
// dropped, as esm-extract's per_tok and bio_embeddings). With several
// --layers, tsv and npy rows hold the layers' vectors side by side in
// --layers order; HDF5 datasets get a leading layer axis instead.
//   tsv   id<TAB>v1<TAB>v2...; with --pool none: id<TAB>residue<TAB>v1...
//         (residue numbered from 1)
//   npy   FILE: float32 matrix [rows x features]; beside it (a regular
//         FILE only, not a device or FIFO) FILE minus
//         ".npy" plus ".ids.txt": the row labels, one per line, as in tsv
//   h5    one dataset per sequence id: [hidden], [layers x hidden],
//         [residues x hidden] or [layers x residues x hidden]; root
//         attributes "layers" (hidden-state indices) and "pooling"
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "models/engine.hpp"

namespace seqfuse::models {

enum class EmbedFormat { tsv, npy, h5 };

// Throws UsageError for anything but tsv, npy or h5.
[[nodiscard]] EmbedFormat parse_embed_format(std::string_view text);
// From the output name: *.h5/*.hdf5 -> h5, *.npy -> npy, anything else tsv.
[[nodiscard]] EmbedFormat format_for_path(std::string_view path);
[[nodiscard]] std::string npy_ids_path(std::string_view npy_path);
// Throws seqfuse::Error when the ids cannot name HDF5 datasets: duplicates
// or empty. Other formats take any ids.
void check_ids_for_format(EmbedFormat format, const std::vector<std::string>& ids);
// The HDF5 dataset name of a sequence id: the id itself, except that '%'
// and '/' (which separates groups) are written %25 and %2F, and the id "."
// (the group itself) %2E. Where the name differs, the h5 writer stores the
// id in the dataset's "id" attribute. One-to-one, so distinct ids keep
// distinct names.
[[nodiscard]] std::string h5_dataset_name(std::string_view id);

struct OutputShape {
  std::size_t sequences = 0;
  std::size_t total_rows = 0;  // rows over all sequences (the npy header needs it first)
  std::size_t hidden = 0;
  std::vector<int> layers;  // hidden-state indices, in output order
  Pooling pooling = Pooling::mean;
  // h5 with several --pool values (embed_pools.hpp): one group per pool,
  // named as the pool ("mean", "bos", "none"), each holding one dataset per
  // sequence id; SequenceRows::group picks the group. Empty: datasets at
  // the root, as a single --pool writes them.
  std::vector<Pooling> groups;
};

// "mean", "bos", "none": as --pool spells them.
[[nodiscard]] const char* pooling_name(Pooling pooling) noexcept;

// One sequence's output rows: `layers` blocks; row r of block l starts at
// values + ((l * block_rows) + first_row + r) * hidden.
struct SequenceRows {
  std::string_view id;
  std::size_t rows = 0;
  const float* values = nullptr;
  std::size_t block_rows = 0;
  std::size_t first_row = 0;
  std::size_t group = 0;  // OutputShape::groups index (h5 with several pools)
};

class EmbeddingWriter {
 public:
  virtual ~EmbeddingWriter() = default;
  // Sequences come in input order.
  virtual void write(const SequenceRows& sequence) = 0;
  // Makes the output appear; without it nothing is left behind.
  virtual void commit() = 0;
};

// Creates the output at once, so an unwritable path fails before any work.
[[nodiscard]] std::unique_ptr<EmbeddingWriter> make_embedding_writer(EmbedFormat format,
                                                                     const std::string& path,
                                                                     const OutputShape& shape);

// The HDF5 writer (h5_output.cpp).
[[nodiscard]] std::unique_ptr<EmbeddingWriter> make_h5_writer(const std::string& path,
                                                              const OutputShape& shape);

}  // namespace seqfuse::models
