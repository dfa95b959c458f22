#include "models/embed_outputs.hpp"

#include <charconv>
#include <cstdint>
#include <optional>
#include <unordered_map>

#include "core/error.hpp"
#include "core/output_file.hpp"

namespace seqfuse::models {
namespace {

bool ends_with(std::string_view text, std::string_view tail) {
  return text.size() >= tail.size() && text.substr(text.size() - tail.size()) == tail;
}

std::size_t features_of(const OutputShape& shape) {
  return shape.layers.size() * shape.hidden;
}

// Appends row r of a sequence: every layer's vector, side by side.
void append_row_text(const SequenceRows& seq, std::size_t r, const OutputShape& shape,
                     std::string& line) {
  char number[32];
  for (std::size_t l = 0; l < shape.layers.size(); ++l) {
    const float* v = seq.values + ((l * seq.block_rows) + seq.first_row + r) * shape.hidden;
    for (std::size_t c = 0; c < shape.hidden; ++c) {
      // Shortest text that reads back as the same float.
      const auto [end, ec] = std::to_chars(number, number + sizeof number, v[c]);
      line += '\t';
      line.append(number, end);
    }
  }
}

// The row label: the id, plus the 1-based residue number for --pool none.
void append_label(const SequenceRows& seq, std::size_t r, const OutputShape& shape,
                  std::string& line) {
  line += seq.id;
  if (shape.pooling == Pooling::none) line += '\t' + std::to_string(r + 1);
}

class TsvWriter final : public EmbeddingWriter {
 public:
  TsvWriter(const std::string& path, OutputShape shape)
      : out_(path, OutputKind::text), shape_(std::move(shape)) {}

  void write(const SequenceRows& seq) override {
    for (std::size_t r = 0; r < seq.rows; ++r) {
      line_.clear();
      append_label(seq, r, shape_, line_);
      append_row_text(seq, r, shape_, line_);
      line_ += '\n';
      out_.write(line_);
    }
  }
  void commit() override { out_.commit(); }

 private:
  OutputFile out_;
  OutputShape shape_;
  std::string line_;
};

// NumPy's .npy format 1.0: magic, version, header length, a Python dict
// literal padded so the data starts on a 64-byte boundary, then the data.
std::string npy_header(std::size_t rows, std::size_t columns) {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(rows) +
                     ", " + std::to_string(columns) + "), }";
  const std::size_t unpadded = 10 + dict.size() + 1;  // + the closing newline
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::string header = "\x93NUMPY";
  header += '\x01';
  header += '\x00';
  header += static_cast<char>(dict.size() & 0xff);
  header += static_cast<char>((dict.size() >> 8) & 0xff);
  return header + dict;
}

class NpyWriter final : public EmbeddingWriter {
 public:
  NpyWriter(const std::string& path, OutputShape shape) : matrix_(path), shape_(std::move(shape)) {
    // The row labels go beside a regular file only: /dev/null, a FIFO or
    // /dev/stdout has no folder of its own (/dev/null.ids.txt would be a
    // new file in /dev), and its reader wants the matrix alone.
    if (!matrix_.written_through()) ids_.emplace(npy_ids_path(path));
    matrix_.write(npy_header(shape_.total_rows, features_of(shape_)));
    row_.resize(features_of(shape_));
  }

  void write(const SequenceRows& seq) override {
    for (std::size_t r = 0; r < seq.rows; ++r) {
      for (std::size_t l = 0; l < shape_.layers.size(); ++l) {
        const float* v = seq.values + ((l * seq.block_rows) + seq.first_row + r) * shape_.hidden;
        std::copy(v, v + shape_.hidden,
                  row_.begin() + static_cast<std::ptrdiff_t>(l * shape_.hidden));
      }
      matrix_.write(row_.data(), row_.size() * sizeof(float));  // '<f4': little-endian host
      label_.clear();
      append_label(seq, r, shape_, label_);
      label_ += '\n';
      if (ids_) ids_->write(label_);
      ++rows_written_;
    }
  }

  void commit() override {
    if (rows_written_ != shape_.total_rows)
      throw Error("internal: npy header says " + std::to_string(shape_.total_rows) + " rows, " +
                  std::to_string(rows_written_) + " were written");
    matrix_.commit();
    if (ids_) ids_->commit();
  }

 private:
  OutputFile matrix_;
  std::optional<OutputFile> ids_;  // none when the matrix is written through
  OutputShape shape_;
  std::vector<float> row_;
  std::string label_;
  std::size_t rows_written_ = 0;
};

}  // namespace

const char* pooling_name(Pooling pooling) noexcept {
  switch (pooling) {
    case Pooling::bos:
      return "bos";
    case Pooling::none:
      return "none";
    case Pooling::mean:
      break;
  }
  return "mean";
}

EmbedFormat parse_embed_format(std::string_view text) {
  if (text == "tsv") return EmbedFormat::tsv;
  if (text == "npy") return EmbedFormat::npy;
  if (text == "h5" || text == "hdf5") return EmbedFormat::h5;
  throw UsageError("--format must be h5, npy or tsv, not '" + std::string(text) + "'");
}

EmbedFormat format_for_path(std::string_view path) {
  if (ends_with(path, ".gz")) path.remove_suffix(3);  // x.npy.gz is refused as npy, not tsv
  if (ends_with(path, ".h5") || ends_with(path, ".hdf5")) return EmbedFormat::h5;
  if (ends_with(path, ".npy")) return EmbedFormat::npy;
  return EmbedFormat::tsv;
}

std::string npy_ids_path(std::string_view npy_path) {
  if (ends_with(npy_path, ".npy")) npy_path.remove_suffix(4);
  return std::string(npy_path) + ".ids.txt";
}

std::string h5_dataset_name(std::string_view id) {
  if (id == ".") return "%2E";
  std::string name;
  name.reserve(id.size());
  for (const char c : id) {
    if (c == '%')
      name += "%25";
    else if (c == '/')
      name += "%2F";
    else
      name += c;
  }
  return name;
}

void check_ids_for_format(EmbedFormat format, const std::vector<std::string>& ids) {
  if (format != EmbedFormat::h5) return;
  std::unordered_map<std::string_view, std::size_t> first_record;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::string& id = ids[i];
    const std::string record = "record " + std::to_string(i + 1);
    if (id.empty()) throw Error(record + " has an empty id; h5 datasets are named by id");
    const auto [it, fresh] = first_record.emplace(id, i);
    if (!fresh)
      throw Error("sequence id '" + id + "' occurs twice (records " +
                  std::to_string(it->second + 1) + " and " + std::to_string(i + 1) +
                  "); h5 holds one dataset per id");
  }
}

std::unique_ptr<EmbeddingWriter> make_embedding_writer(EmbedFormat format, const std::string& path,
                                                       const OutputShape& shape) {
  if (format != EmbedFormat::tsv && compresses_text(path, text_compression()))
    throw UsageError("npy and h5 outputs are written uncompressed: drop --compress or '.gz'");
  switch (format) {
    case EmbedFormat::tsv:
      return std::make_unique<TsvWriter>(path, shape);
    case EmbedFormat::npy:
      if (path == "-")
        throw UsageError(
            "--format npy writes two files (FILE.npy and FILE.ids.txt): give -o FILE.npy");
      return std::make_unique<NpyWriter>(path, shape);
    case EmbedFormat::h5:
      return make_h5_writer(path, shape);
  }
  throw Error("internal: unknown embed format");
}

}  // namespace seqfuse::models
