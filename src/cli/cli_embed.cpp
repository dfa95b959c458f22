// seqfuse embed: protein embeddings of ESM-2, ProtBERT and ProtT5 checkpoints, equal
// to Hugging Face transformers' EsmModel / BertModel within float rounding. This file binds the
// options and checks their values; the run is models::run_embed (models/embed_run.hpp).
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "cli/subcommand.hpp"
#include "core/error.hpp"
#include "core/output_file.hpp"
#include "core/report.hpp"
#include "models/embed_pools.hpp"
#include "models/embed_run.hpp"
#include "models/hub_cache.hpp"

namespace seqfuse::cli {
namespace {

struct EmbedConfig {
  CommonOptions common;
  std::string model;
  std::string input;
  std::string output = "-";
  std::string format;  // empty: from the output's extension, tsv otherwise
  std::string pool = "mean";
  std::vector<int> layers;  // empty: the final, normed layer
  std::string dtype;        // empty: fp32 on the CPU, bf16 on a GPU
  int toks_per_batch = 0;
  bool toks_per_batch_given = false;  // else the engine's preference
  int max_length = 1022;
};

models::EmbedFormat chosen_format(const EmbedConfig& c) {
  return c.format.empty() ? models::format_for_path(c.output)
                          : models::parse_embed_format(c.format);
}

// Every problem with the command line at once, before any work.
void validate(const EmbedConfig& c) {
  std::string problems;
  const auto add = [&](const std::string& p) { problems += (problems.empty() ? "" : "; ") + p; };
  const auto check = [&](auto&& parse) {
    try {
      parse();
    } catch (const UsageError& e) {
      add(e.what());
    }
  };
  check([&] {
    if (models::parse_poolings(c.pool).size() > 1 && chosen_format(c) != models::EmbedFormat::h5 &&
        c.output == "-")
      add("--pool with several values writes one file per pool (FILE.mean.tsv, ...): give -o "
          "FILE, or -o FILE.h5 for one file with a group per pool");
  });
  check([&] {
    if (chosen_format(c) == models::EmbedFormat::npy && c.output == "-")
      add("--format npy writes two files (FILE.npy and FILE.ids.txt): give -o FILE.npy");
  });
  check([&] {
    if (chosen_format(c) != models::EmbedFormat::tsv &&
        compresses_text(c.output, text_compression()))
      add("npy and h5 outputs are written uncompressed: drop --compress or '.gz'");
  });
  if (!c.dtype.empty()) check([&] { (void)models::parse_compute_type(c.dtype); });
  if (c.toks_per_batch_given && c.toks_per_batch < 1) add("--toks-per-batch must be 1 or more");
  if (c.max_length < 1) add("--max-length must be 1 or more residues");
  if (!problems.empty()) throw UsageError(problems);
}

// The validated command line as the run's options.
models::EmbedOptions embed_options(const EmbedConfig& c) {
  models::EmbedOptions options;
  options.model = models::resolve_model_folder(c.model);
  options.input = c.input;
  options.output = c.output;
  options.format = chosen_format(c);
  options.pools = models::parse_poolings(c.pool);
  options.pooling = options.pools.front();
  options.layers = c.layers;
  if (!c.dtype.empty()) options.dtype = models::parse_compute_type(c.dtype);
  if (c.toks_per_batch_given) options.toks_per_batch = static_cast<std::size_t>(c.toks_per_batch);
  options.max_length = static_cast<std::size_t>(c.max_length);
  options.threads = resolve_threads(c.common.threads);
  // --device cpu needs no device thread; auto and gpu resolve on one.
  const DeviceSpec::Kind device_kind = parse_device_spec(c.common.device).kind;
  if (device_kind != DeviceSpec::Kind::kCpu)
    options.choose_device = [&c] { return choose_device(c.common); };
  options.device_auto = device_kind == DeviceSpec::Kind::kAuto;
  return options;
}

}  // namespace

Subcommand add_embed(CLI::App& parent) {
  auto config = std::make_shared<EmbedConfig>();
  CLI::App* app = parent.add_subcommand(
      "embed",
      "Protein embeddings (ESM-2, ProtBERT, ProtT5), as Hugging Face transformers computes them");
  app->footer(
      "Examples:\n"
      "  seqfuse embed --model facebook/esm2_t6_8M_UR50D proteins.fa -o emb.h5  from the HF cache\n"
      "  seqfuse embed --model DIR proteins.fa --pool none -o emb.npy     per residue (+ "
      "emb.ids.txt)\n"
      "  seqfuse embed --model DIR proteins.fa --layers 0 -1 --pool bos   two layers, BOS vectors\n"
      "  seqfuse embed --model Rostlab/prot_bert proteins.fa --pool mean,bos,none -o emb.h5\n"
      "DIR is a Hugging Face checkpoint folder: config.json, model.safetensors (sharded too) or\n"
      "pytorch_model.bin, for BERT its vocab.txt, for T5 its spiece.model (or tokenizer.json).\n"
      "config.json's model_type picks the family: esm (ESM-2), bert (ProtBERT, ProtBERT-BFD) or\n"
      "t5 (ProtT5's encoder: prot_t5_xl_uniref50, _bfd and their -enc halves; CPU only for now:\n"
      "--device auto runs it on the CPU, --device gpu refuses it).\n"
      "A model id (ORG/NAME) that is not a folder is looked up in the local Hugging Face cache\n"
      "(HF_HUB_CACHE, HF_HOME/hub or ~/.cache/huggingface/hub), never downloaded.\n"
      "Lowercase letters are read as uppercase (the Hugging Face tokenizers read them as\n"
      "unknown); letters outside the model's alphabet are <unk> / [UNK]. ProtBERT and ProtT5\n"
      "read U, Z, O and B as X, as RostLab's scripts do. ProtT5 appends </s> only (no leading\n"
      "token: no --pool bos) and reads a run of unknown letters as one <unk>, as SentencePiece\n"
      "does (its --pool none rows are its tokens).\n"
      "--pool with several values (mean,bos,none) computes them in one pass: -o FILE.h5 gets a\n"
      "group per pool (/mean/ID, /bos/ID, /none/ID); tsv and npy get a file per pool (-o\n"
      "emb.npy: emb.mean.npy, emb.bos.npy, ...).\n"
      "--device auto runs on a GPU when there is one (in bf16 unless --dtype says otherwise),\n"
      "else on the CPU (fp32).");
  app->add_option("PROTEINS", config->input, "Protein FASTA/FASTQ (plain, gzip, - for stdin)")
      ->required();
  app->add_option("--model", config->model,
                  "Hugging Face ESM-2, BERT or T5 checkpoint folder (config.json + weights), or a "
                  "model id in the local Hugging Face cache (facebook/esm2_t6_8M_UR50D)")
      ->required();
  app->add_option("--format", config->format,
                  "h5, npy or tsv (default: from -o's extension .h5/.npy, else tsv)");
  app->add_option("--pool", config->pool,
                  "mean (over residues, BOS/EOS excluded), bos ([CLS] for BERT; not for T5), "
                  "none (per residue), or several, comma-separated, in one pass (mean,bos,none)")
      ->capture_default_str();
  app->add_option("--layers", config->layers,
                  "Hidden states to output: 0 embeddings .. N the last layer (ESM-2, T5: after "
                  "the final norm); negative from the end (default -1)");
  app->add_option("--dtype", config->dtype,
                  "fp32, bf16 or fp16 (default fp32 on the CPU, bf16 on a GPU)");
  app->add_option_function<int>(
      "--toks-per-batch",
      [config](int tokens) {
        config->toks_per_batch = tokens;
        config->toks_per_batch_given = true;
      },
      "Tokens per batch; sequences are batched by length (default 4096 on the CPU; on a GPU "
      "up to 65536, as its free memory allows)");
  app->add_option("--max-length", config->max_length,
                  "Residues kept per sequence; longer ones are cut with a warning (a BERT "
                  "model refuses a sequence longer than its position table holds)")
      ->capture_default_str();
  app->add_option("-o,--output", config->output, "Output path, - for stdout")
      ->capture_default_str();
  add_compress_options(*app);
  add_threads_option(*app, config->common);
  add_device_option(*app, config->common);
  add_quiet_option(*app, config->common);
  add_json_option(*app, config->common.json);
  return {app, [config] {
            validate(*config);
            JsonReport json(config->common.json, names_stdout(config->output));
            Reporter report("embed", config->common.quiet);
            models::run_embed(embed_options(*config), report);
            json.write(report_source("embed"), report.facts());
            return 0;
          }};
}

}  // namespace seqfuse::cli
