// Embedding outputs read back: tsv text, the npy matrix and its ids file,
// HDF5 datasets and attributes (HDF5 C API), atomicity, id checks, and a
// whole embed job whose length-sorted, windowed batches still come out in
// input order.
#include <hdf5.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "io/batch_reader.hpp"
#include "models/cpu_forward.hpp"
#include "models/embed_job.hpp"
#include "models/embed_outputs.hpp"
#include "models/esm_weights.hpp"
#include "test_embed_support.hpp"
#include "test_temp_dir.hpp"

using namespace seqfuse::models;
using namespace seqfuse::models::test;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;
using seqfuse::test::slurp;
using seqfuse::test::TempDir;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Npy {
  std::string dict;
  std::vector<float> values;
};

Npy read_npy(const std::string& path) {
  const std::string bytes = read_text(path);
  REQUIRE(bytes.size() >= 10);
  REQUIRE(bytes.compare(0, 8, std::string("\x93NUMPY\x01\x00", 8)) == 0);
  const std::size_t dict_size =
      static_cast<unsigned char>(bytes[8]) |
      (static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8);
  REQUIRE((10 + dict_size) % 64 == 0);  // data aligned as NumPy writes it
  Npy npy;
  npy.dict = bytes.substr(10, dict_size);
  npy.values.resize((bytes.size() - 10 - dict_size) / 4);
  std::memcpy(npy.values.data(), bytes.data() + 10 + dict_size, npy.values.size() * 4);
  return npy;
}

struct H5Dataset {
  std::vector<hsize_t> dims;
  std::vector<float> values;
};

H5Dataset read_h5_dataset(hid_t file, const std::string& name) {
  H5Dataset out;
  const hid_t dataset = H5Dopen2(file, name.c_str(), H5P_DEFAULT);
  REQUIRE(dataset >= 0);
  const hid_t space = H5Dget_space(dataset);
  out.dims.resize(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
  H5Sget_simple_extent_dims(space, out.dims.data(), nullptr);
  out.values.resize(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
  REQUIRE(H5Dread(dataset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.values.data()) >=
          0);
  H5Sclose(space);
  H5Dclose(dataset);
  return out;
}

std::string h5_string_attribute(hid_t file, const char* name) {
  const hid_t attr = H5Aopen(file, name, H5P_DEFAULT);
  REQUIRE(attr >= 0);
  const hid_t type = H5Aget_type(attr);
  std::string text(H5Tget_size(type), '\0');
  H5Aread(attr, type, text.data());
  H5Tclose(type);
  H5Aclose(attr);
  return text;
}

std::vector<int> h5_int_attribute(hid_t file, const char* name) {
  const hid_t attr = H5Aopen(file, name, H5P_DEFAULT);
  REQUIRE(attr >= 0);
  const hid_t space = H5Aget_space(attr);
  std::vector<int> values(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
  H5Aread(attr, H5T_NATIVE_INT, values.data());
  H5Sclose(space);
  H5Aclose(attr);
  return values;
}

// Two sequences, two layers, hidden 3: per-token blocks of 4 and 3 tokens
// (BOS, residues, EOS), values = 100 layer + 10 token + channel.
struct Sample {
  std::vector<float> a, b;
  Sample() {
    for (int l = 0; l < 2; ++l)
      for (int t = 0; t < 4; ++t)
        for (int c = 0; c < 3; ++c) a.push_back(float(100 * l + 10 * t + c));
    for (int l = 0; l < 2; ++l)
      for (int t = 0; t < 3; ++t)
        for (int c = 0; c < 3; ++c) b.push_back(-float(100 * l + 10 * t + c));
  }
};

OutputShape sample_shape(Pooling pooling) {
  OutputShape shape;
  shape.sequences = 2;
  shape.hidden = 3;
  shape.layers = {6, 0};
  shape.pooling = pooling;
  shape.total_rows = pooling == Pooling::none ? 2 + 1 : 2;
  return shape;
}

// What the job hands a writer: residues only (rows 1..n-2) for none,
// otherwise row 0 of one-row blocks (here: the BOS-like first row).
void write_sample(EmbeddingWriter& writer, const Sample& s, Pooling pooling) {
  if (pooling == Pooling::none) {
    writer.write({"seqA", 2, s.a.data(), 4, 1});
    writer.write({"seqB", 1, s.b.data(), 3, 1});
  } else {
    writer.write({"seqA", 1, s.a.data(), 4, 0});
    writer.write({"seqB", 1, s.b.data(), 3, 0});
  }
}

}  // namespace

TEST_CASE("embed outputs: tsv rows hold layers side by side", "[embed]") {
  TempDir dir;
  const Sample s;
  auto pooled =
      make_embedding_writer(EmbedFormat::tsv, dir.file("p.tsv"), sample_shape(Pooling::mean));
  write_sample(*pooled, s, Pooling::mean);
  pooled->commit();
  CHECK(read_text(dir.file("p.tsv")) ==
        "seqA\t0\t1\t2\t100\t101\t102\n"
        "seqB\t-0\t-1\t-2\t-100\t-101\t-102\n");

  auto tokens =
      make_embedding_writer(EmbedFormat::tsv, dir.file("t.tsv"), sample_shape(Pooling::none));
  write_sample(*tokens, s, Pooling::none);
  tokens->commit();
  CHECK(read_text(dir.file("t.tsv")) ==
        "seqA\t1\t10\t11\t12\t110\t111\t112\n"
        "seqA\t2\t20\t21\t22\t120\t121\t122\n"
        "seqB\t1\t-10\t-11\t-12\t-110\t-111\t-112\n");
}

TEST_CASE("embed outputs: npy matrix and ids file", "[embed]") {
  TempDir dir;
  const Sample s;
  auto writer =
      make_embedding_writer(EmbedFormat::npy, dir.file("e.npy"), sample_shape(Pooling::none));
  write_sample(*writer, s, Pooling::none);
  writer->commit();
  const Npy npy = read_npy(dir.file("e.npy"));
  CHECK_THAT(npy.dict, Contains("'descr': '<f4', 'fortran_order': False, 'shape': (3, 6), }"));
  CHECK(npy.dict.back() == '\n');
  CHECK(npy.values == std::vector<float>{10, 11, 12, 110, 111, 112, 20, 21, 22, 120, 121, 122, -10,
                                         -11, -12, -110, -111, -112});
  CHECK(read_text(dir.file("e.ids.txt")) == "seqA\t1\nseqA\t2\nseqB\t1\n");
}

TEST_CASE("embed outputs: npy to a FIFO writes no ids file beside it", "[embed]") {
  // A device or a pipe has no folder of its own: `-o /dev/null` once made
  // /dev/null.ids.txt. The matrix still goes through whole.
  TempDir dir;
  const Sample s;
  const std::string fifo = dir.file("m.npy");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string received;
  std::thread reader([&] { received = read_text(fifo); });
  {
    auto writer = make_embedding_writer(EmbedFormat::npy, fifo, sample_shape(Pooling::mean));
    write_sample(*writer, s, Pooling::mean);
    writer->commit();
  }  // the writer's end closes: the reader sees the end of the stream
  reader.join();
  CHECK(received.starts_with("\x93NUMPY"));
  CHECK(received.size() == 128 + 2 * 6 * sizeof(float));
  CHECK_FALSE(fs::exists(dir.file("m.ids.txt")));
  CHECK(std::distance(fs::directory_iterator(dir.path()), {}) == 1);  // the FIFO alone
}

TEST_CASE("embed outputs: one HDF5 dataset per id, a layer axis for several layers", "[embed]") {
  TempDir dir;
  const Sample s;
  OutputShape shape = sample_shape(Pooling::none);
  auto writer = make_embedding_writer(EmbedFormat::h5, dir.file("e.h5"), shape);
  writer->write({"seqA", 2, s.a.data(), 4, 1});
  writer->write({"seqB", 1, s.b.data(), 3, 1});
  writer->commit();

  const hid_t file = H5Fopen(dir.file("e.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  const H5Dataset a = read_h5_dataset(file, "seqA");
  CHECK(a.dims == std::vector<hsize_t>{2, 2, 3});  // layers x residues x hidden
  CHECK(a.values == std::vector<float>{10, 11, 12, 20, 21, 22, 110, 111, 112, 120, 121, 122});
  const H5Dataset b = read_h5_dataset(file, "seqB");
  CHECK(b.dims == std::vector<hsize_t>{2, 1, 3});
  CHECK(h5_int_attribute(file, "layers") == std::vector<int>{6, 0});
  CHECK(h5_string_attribute(file, "pooling") == "none");
  H5Fclose(file);

  shape.layers = {6};
  shape.pooling = Pooling::mean;
  auto pooled = make_embedding_writer(EmbedFormat::h5, dir.file("m.h5"), shape);
  pooled->write({"seqA", 1, s.a.data(), 1, 0});
  pooled->commit();
  const hid_t mean_file = H5Fopen(dir.file("m.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(mean_file >= 0);
  const H5Dataset m = read_h5_dataset(mean_file, "seqA");
  CHECK(m.dims == std::vector<hsize_t>{3});  // [hidden], as bio_embeddings' reduced output
  CHECK(m.values == std::vector<float>{0, 1, 2});
  H5Fclose(mean_file);
}

TEST_CASE("embed outputs: nothing is left behind without commit", "[embed]") {
  TempDir dir;
  const Sample s;
  for (EmbedFormat format : {EmbedFormat::tsv, EmbedFormat::npy, EmbedFormat::h5}) {
    auto writer = make_embedding_writer(format, dir.file("x.out"), sample_shape(Pooling::mean));
    write_sample(*writer, s, Pooling::mean);
  }
  CHECK(fs::is_empty(dir.path()));
}

TEST_CASE("embed outputs: formats, ids file name and id checks", "[embed]") {
  CHECK(format_for_path("a/b.h5") == EmbedFormat::h5);
  CHECK(format_for_path("b.hdf5") == EmbedFormat::h5);
  CHECK(format_for_path("b.npy") == EmbedFormat::npy);
  CHECK(format_for_path("-") == EmbedFormat::tsv);
  CHECK(format_for_path("b.tsv") == EmbedFormat::tsv);
  CHECK(parse_embed_format("npy") == EmbedFormat::npy);
  CHECK_THROWS_AS(parse_embed_format("csv"), seqfuse::UsageError);
  CHECK(npy_ids_path("out/emb.npy") == "out/emb.ids.txt");
  CHECK(npy_ids_path("emb.matrix") == "emb.matrix.ids.txt");

  CHECK_NOTHROW(check_ids_for_format(EmbedFormat::h5, {"a", "b", "sp|P1|X"}));
  CHECK_NOTHROW(check_ids_for_format(EmbedFormat::tsv, {"a", "a"}));
  CHECK_THROWS_WITH(check_ids_for_format(EmbedFormat::h5, {"a", "b", "a"}),
                    Contains("sequence id 'a' occurs twice (records 1 and 3)"));
  CHECK_NOTHROW(check_ids_for_format(EmbedFormat::h5, {"x/y", ".", "50%"}));
  CHECK_THROWS_WITH(check_ids_for_format(EmbedFormat::h5, {""}), Contains("empty id"));
  CHECK(h5_dataset_name("sp|P1|X") == "sp|P1|X");
  CHECK(h5_dataset_name("x/y") == "x%2Fy");
  CHECK(h5_dataset_name("50%/") == "50%25%2F");
  CHECK(h5_dataset_name(".") == "%2E");
  CHECK(h5_dataset_name("..") == "..");
}

// The link names of `file`'s root group in creation order.
std::vector<std::string> h5_names_in_creation_order(hid_t file) {
  std::vector<std::string> names;
  H5Literate(
      file, H5_INDEX_CRT_ORDER, H5_ITER_INC, nullptr,
      [](hid_t, const char* name, const H5L_info_t*, void* out) -> herr_t {
        static_cast<std::vector<std::string>*>(out)->emplace_back(name);
        return 0;
      },
      &names);
  return names;
}

TEST_CASE("embed outputs: h5 is reproducible, in input order, any id", "[embed]") {
  TempDir dir;
  const Sample s;
  for (const char* name : {"one.h5", "two.h5"}) {
    auto writer =
        make_embedding_writer(EmbedFormat::h5, dir.file(name), sample_shape(Pooling::mean));
    writer->write({"zeta/1", 1, s.a.data(), 4, 0});
    writer->write({"alpha", 1, s.b.data(), 3, 0});
    writer->write({".", 1, s.b.data(), 3, 0});
    writer->commit();
  }
  // Identical runs, identical bytes: no object timestamps.
  CHECK(read_text(dir.file("one.h5")) == read_text(dir.file("two.h5")));
  const hid_t file = H5Fopen(dir.file("one.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  REQUIRE(file >= 0);
  CHECK(h5_names_in_creation_order(file) == std::vector<std::string>{"zeta%2F1", "alpha", "%2E"});
  const hid_t escaped = H5Dopen2(file, "zeta%2F1", H5P_DEFAULT);
  REQUIRE(escaped >= 0);
  CHECK(h5_string_attribute(escaped, "id") == "zeta/1");
  H5Dclose(escaped);
  const hid_t plain = H5Dopen2(file, "alpha", H5P_DEFAULT);
  CHECK(H5Aexists(plain, "id") == 0);  // only escaped names carry the id
  H5Dclose(plain);
  CHECK(read_h5_dataset(file, "alpha").values ==
        std::vector<float>{-0.0f, -1, -2, -100, -101, -102});  // two layers
  H5Fclose(file);
}

TEST_CASE("embed job: batches and windows out of order, output in input order", "[embed]") {
  const EsmModel model = load_esm_model(embed_data_dir() / "esm_hd24_fp16_saved");
  const auto batch = seqfuse::io::read_all((embed_data_dir() / "proteins.fa").string());
  seqfuse::io::SequenceBatch known;  // all_unknown is refused by tokenize_input
  for (std::size_t i = 0; i < batch.size(); ++i)
    if (batch.name(i) != "all_unknown") known.push_back_from(batch, i);
  const ProteinSet input = tokenize_input(known, "proteins.fa", 300);
  const auto hidden = static_cast<std::size_t>(model.config.hidden_size);

  EmbedJob job;
  job.readout = {resolve_layers({-1, 1}, model.config.num_layers), Pooling::none};
  job.toks_per_batch = 40;           // several sequences per batch, long ones alone
  job.window_floats = 300 * hidden;  // several windows
  std::vector<std::size_t> progress;
  job.progress = [&](std::size_t done) { progress.push_back(done); };
  TempDir dir;
  CpuEsmEngine engine(model, 2);
  auto writer = make_embedding_writer(EmbedFormat::npy, dir.file("e.npy"),
                                      output_shape(input, job.readout, hidden));
  const EmbedStats stats = run_embed_job(job, engine, input, hidden, *writer);
  writer->commit();
  CHECK(stats.sequences == input.size());
  CHECK(stats.tokens == input.tokens);
  CHECK(stats.batches > 3);
  CHECK(progress.size() == stats.batches);  // after every batch, counting up to all
  CHECK(std::is_sorted(progress.begin(), progress.end()));
  CHECK(progress.back() == input.size());

  const Npy npy = read_npy(dir.file("e.npy"));
  const std::string ids = read_text(dir.file("e.ids.txt"));
  std::size_t row = 0;
  std::string expected_ids;
  for (std::size_t i = 0; i < input.size(); ++i) {
    std::vector<Embedding> alone(1);
    const std::vector<std::span<const std::int32_t>> one = {input.proteins[i].ids};
    engine.embed(one, job.readout, alone);
    for (std::size_t r = 1; r + 1 < alone[0].rows; ++r, ++row) {
      expected_ids += input.ids[i] + "\t" + std::to_string(r) + "\n";
      for (std::size_t l = 0; l < 2; ++l)
        for (std::size_t c = 0; c < hidden; ++c) {
          const float want = alone[0].values[(l * alone[0].rows + r) * hidden + c];
          const float got = npy.values[row * 2 * hidden + l * hidden + c];
          REQUIRE(std::abs(got - want) <= 1e-4f * (1.0f + std::abs(want)));
        }
    }
  }
  CHECK(row * 2 * hidden == npy.values.size());
  CHECK(ids == expected_ids);
}
