// Several --pool values in one run (--pool mean,bos,none), as esm-extract's
// --include mean bos per_tok: the engines read out every token once
// (Pooling::none) and this writer derives each pool from those rows with
// the single-pool code (pooling.hpp), so a pool's numbers are the ones a
// run with that --pool alone writes on the CPU.
//
// Layout per format:
//   h5    one file, one group per pool ("/mean", "/bos", "/none"), each
//         holding one dataset per sequence id as a single --pool writes it;
//         root attribute "pooling" lists the pools ("mean,bos,none"), each
//         group's says its own;
//   tsv, npy  one file per pool, named by inserting ".POOL" before the
//         extension: -o emb.npy gives emb.mean.npy (+ emb.mean.ids.txt),
//         emb.bos.npy, ...; -o emb.tsv.gz gives emb.mean.tsv.gz, ...; each
//         file as a single --pool writes it.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "models/embed_job.hpp"
#include "models/embed_outputs.hpp"

namespace seqfuse::models {

// "mean", "bos,mean", ...: each value once. Throws UsageError.
[[nodiscard]] std::vector<Pooling> parse_poolings(std::string_view text);

// `path` with ".POOL" inserted before its extension (.tsv, .npy, .txt,
// .csv, each optionally .gz); at the end when it has none.
[[nodiscard]] std::string pool_output_path(std::string_view path, Pooling pool);

// The writer for several pools; it takes rows written as Pooling::none
// (write_window). Throws UsageError for stdout ("-") with tsv or npy.
[[nodiscard]] std::unique_ptr<EmbeddingWriter> make_pools_writer(
    EmbedFormat format, const std::string& path, const ProteinSet& input,
    const std::vector<int>& layers, std::size_t hidden, const std::vector<Pooling>& pools);

}  // namespace seqfuse::models
