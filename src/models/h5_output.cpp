// HDF5 output, one dataset per sequence id (the layout ProtTrans and
// bio_embeddings write). The file is built in memory with HDF5's core driver
// and its image is written through OutputFile at commit: the HDF5 library
// wants a file name, OutputFile wants bytes, and this way the output is
// still atomic (and can go to stdout). The price: the whole file sits in
// memory until the end, which matters only for --pool none on large sets.
#include <hdf5.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <vector>

#include "core/error.hpp"
#include "core/output_file.hpp"
#include "models/embed_outputs.hpp"

namespace seqfuse::models {
namespace {

// Closes an HDF5 handle when it goes out of scope.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  [[nodiscard]] hid_t get() const noexcept { return id_; }
  [[nodiscard]] bool ok() const noexcept { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

class H5Writer final : public EmbeddingWriter {
 public:
  H5Writer(const std::string& path, OutputShape shape) : out_(path), shape_(std::move(shape)) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // our errors are one line
    try {
      Handle access(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
      if (!access.ok() || H5Pset_fapl_core(access.get(), std::size_t{1} << 20, 0) < 0)
        fail("cannot set up the in-memory HDF5 file");
      // The core driver still keys open files by name: one name per writer.
      static std::atomic<unsigned> files_made{0};
      const std::string name = "seqfuse-embeddings-" + std::to_string(files_made++) + ".h5";
      // Reproducible files: no object timestamps (two identical runs give
      // identical bytes), and links kept in creation order, so readers that
      // honour it (h5py) list the datasets in input order.
      Handle creation(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
      if (!creation.ok() || H5Pset_obj_track_times(creation.get(), false) < 0 ||
          H5Pset_link_creation_order(creation.get(),
                                     H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0)
        fail("cannot set HDF5 file properties");
      file_ = H5Fcreate(name.c_str(), H5F_ACC_TRUNC, creation.get(), access.get());
      if (file_ < 0) fail("cannot create the HDF5 file");
      link_properties_ = H5Pcreate(H5P_LINK_CREATE);
      if (link_properties_ < 0 || H5Pset_char_encoding(link_properties_, H5T_CSET_UTF8) < 0)
        fail("cannot set HDF5 link properties");
      dataset_properties_ = H5Pcreate(H5P_DATASET_CREATE);
      if (dataset_properties_ < 0 || H5Pset_obj_track_times(dataset_properties_, false) < 0)
        fail("cannot set HDF5 dataset properties");
      write_attributes();
    } catch (...) {
      close();
      throw;
    }
  }

  ~H5Writer() override { close(); }

  void write(const SequenceRows& seq) override {
    const std::size_t layers = shape_.layers.size(), hidden = shape_.hidden;
    std::vector<hsize_t> dims;
    if (layers > 1) dims.push_back(layers);
    const bool grouped = !shape_.groups.empty();
    if ((grouped ? shape_.groups.at(seq.group) : shape_.pooling) == Pooling::none)
      dims.push_back(seq.rows);
    dims.push_back(hidden);
    data_.resize(layers * seq.rows * hidden);
    for (std::size_t l = 0; l < layers; ++l)
      for (std::size_t r = 0; r < seq.rows; ++r) {
        const float* v = seq.values + ((l * seq.block_rows) + seq.first_row + r) * hidden;
        std::copy(v, v + hidden,
                  data_.begin() + static_cast<std::ptrdiff_t>((l * seq.rows + r) * hidden));
      }
    const std::string name = h5_dataset_name(seq.id);
    Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
    if (!space.ok()) fail("cannot describe dataset '" + name + "'");
    const hid_t parent = grouped ? groups_.at(seq.group) : file_;
    Handle dataset(H5Dcreate2(parent, name.c_str(), H5T_IEEE_F32LE, space.get(), link_properties_,
                              dataset_properties_, H5P_DEFAULT),
                   H5Dclose);
    if (!dataset.ok()) fail("cannot create dataset '" + name + "'");
    if (H5Dwrite(dataset.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, data_.data()) < 0)
      fail("cannot write dataset '" + name + "'");
    if (name != seq.id) write_text_attribute(dataset.get(), "id", seq.id);
  }

  void commit() override {
    if (H5Fflush(file_, H5F_SCOPE_GLOBAL) < 0) fail("cannot flush the HDF5 file");
    const ssize_t size = H5Fget_file_image(file_, nullptr, 0);
    if (size < 0) fail("cannot read back the HDF5 file image");
    std::vector<char> image(static_cast<std::size_t>(size));
    if (H5Fget_file_image(file_, image.data(), image.size()) != size)
      fail("cannot read back the HDF5 file image");
    out_.write(image.data(), image.size());
    out_.commit();
  }

 private:
  void close() noexcept {
    for (const hid_t group : groups_) H5Gclose(group);
    groups_.clear();
    if (dataset_properties_ >= 0) H5Pclose(dataset_properties_);
    if (link_properties_ >= 0) H5Pclose(link_properties_);
    if (file_ >= 0) H5Fclose(file_);
    dataset_properties_ = link_properties_ = file_ = -1;
  }

  // A fixed-length string attribute `name` = `text` on `object`.
  void write_text_attribute(hid_t object, const char* name, std::string_view text) const {
    Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
    Handle scalar(H5Screate(H5S_SCALAR), H5Sclose);
    if (!type.ok() || H5Tset_size(type.get(), std::max<std::size_t>(text.size(), 1)) < 0 ||
        H5Tset_cset(type.get(), H5T_CSET_UTF8) < 0)
      fail("string type");
    Handle attribute(H5Acreate2(object, name, type.get(), scalar.get(), H5P_DEFAULT, H5P_DEFAULT),
                     H5Aclose);
    const std::string value(text);
    if (!attribute.ok() || H5Awrite(attribute.get(), type.get(), value.c_str()) < 0)
      fail("cannot write the '" + std::string(name) + "' attribute");
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error("HDF5 output '" + out_.path() + "': " + what);
  }

  void write_attributes() {
    std::vector<int> layers(shape_.layers.begin(), shape_.layers.end());
    const hsize_t count = layers.size();
    Handle list_space(H5Screate_simple(1, &count, nullptr), H5Sclose);
    Handle layer_attr(
        H5Acreate2(file_, "layers", H5T_STD_I32LE, list_space.get(), H5P_DEFAULT, H5P_DEFAULT),
        H5Aclose);
    if (!layer_attr.ok() || H5Awrite(layer_attr.get(), H5T_NATIVE_INT, layers.data()) < 0)
      fail("cannot write the 'layers' attribute");
    if (shape_.groups.empty()) {
      write_text_attribute(file_, "pooling", pooling_name(shape_.pooling));
      return;
    }
    // Several pools: the root lists them, each group says its own.
    std::string pools;
    // Datasets listed in creation (input) order inside each group too.
    Handle group_creation(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
    if (!group_creation.ok() ||
        H5Pset_link_creation_order(group_creation.get(),
                                   H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0)
      fail("cannot set HDF5 group properties");
    for (const Pooling pool : shape_.groups) {
      if (!pools.empty()) pools += ',';  // in steps: GCC 12 warns (-Wrestrict) on "" + string
      pools += pooling_name(pool);
      const hid_t group = H5Gcreate2(file_, pooling_name(pool), link_properties_,
                                     group_creation.get(), H5P_DEFAULT);
      if (group < 0) fail(std::string("cannot create group '") + pooling_name(pool) + "'");
      groups_.push_back(group);
      write_text_attribute(group, "pooling", pooling_name(pool));
    }
    write_text_attribute(file_, "pooling", pools);
  }

  OutputFile out_;
  OutputShape shape_;
  hid_t file_ = -1;
  hid_t link_properties_ = -1;
  hid_t dataset_properties_ = -1;
  std::vector<hid_t> groups_;  // one per OutputShape::groups entry
  std::vector<float> data_;
};

}  // namespace

std::unique_ptr<EmbeddingWriter> make_h5_writer(const std::string& path, const OutputShape& shape) {
  return std::make_unique<H5Writer>(path, shape);
}

}  // namespace seqfuse::models
