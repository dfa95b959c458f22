// seqfuse: the entry point stays thin. Subcommands live in cli_<name>.cpp.
#include <htslib/hts_log.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "cli/subcommand.hpp"
#include "core/error.hpp"
#include "core/mapped_input.hpp"
#include "core/quick_exit.hpp"
#include "core/report.hpp"
#include "gpu/error.hpp"

namespace {

void print_error(const std::string& subcommand, const std::string& what) {
  std::string line = "seqfuse";
  if (!subcommand.empty()) line += " " + subcommand;
  // One printable line, whatever the message holds: control bytes in a
  // record name, matrix header or tensor name are escaped (\xHH), never
  // passed raw to the terminal.
  line += ": error: " + seqfuse::printable_line(what);
  std::fprintf(stderr, "%s\n", line.c_str());
}

std::string parsed_subcommand_name(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) return sub->get_name();
  return {};
}

// Leaves at once after a subcommand has finished (core/quick_exit.hpp).
int finish(int status) {
  if constexpr (!seqfuse::kQuickExit) return status;
  seqfuse::trace("exit");
  std::fflush(nullptr);
  std::_Exit(status);
}

}  // namespace

int main(int argc, char** argv) {
  // htslib would add its own lines to ours; our errors already say what failed.
  hts_set_log_level(HTS_LOG_OFF);
  CLI::App app{"seqfuse: fused GPU kernels for sequence analysis", "seqfuse"};
  seqfuse::cli::add_version_flags(app, true);
  app.require_subcommand(1);
  app.footer("Run 'seqfuse <subcommand> --help' for its options and examples.");

  std::vector<seqfuse::cli::Subcommand> subcommands;
  subcommands.push_back(seqfuse::cli::add_align(app, seqfuse::align::AlignMode::global));
  subcommands.push_back(seqfuse::cli::add_align(app, seqfuse::align::AlignMode::local));
  subcommands.push_back(seqfuse::cli::add_align_merge(app));
  subcommands.push_back(seqfuse::cli::add_align_db(app));
  subcommands.push_back(seqfuse::cli::add_info(app));
  subcommands.push_back(seqfuse::cli::add_embed(app));
  subcommands.push_back(seqfuse::cli::add_kmer_count(app));
  subcommands.push_back(seqfuse::cli::add_bwt(app));
  subcommands.push_back(seqfuse::cli::add_fastq_trim(app));
  // fastp owns -V (--verbose): a fastp command line must not become a version query.
  for (const auto& sub : subcommands)
    seqfuse::cli::add_version_flags(*sub.app, sub.app->get_name() != "fastq-trim");
  for (int i = 0; i < argc; ++i) {
    seqfuse::cli::command_line() += (i ? " " : "") + std::string(argv[i]);
    seqfuse::cli::arguments().emplace_back(argv[i]);
  }

  // CLI11 would call a mistyped subcommand "extra arguments"; name it.
  if (argc > 1 && argv[1][0] != '-' &&
      std::none_of(subcommands.begin(), subcommands.end(),
                   [&](const auto& sub) { return sub.app->check_name(argv[1]); })) {
    print_error("", std::string("unknown subcommand '") + argv[1] + "' (see 'seqfuse --help')");
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const std::string sub = parsed_subcommand_name(app);
    // CLI11's own words for a bare 'seqfuse', in the project's voice.
    if (sub.empty() && app.get_subcommands().empty() && e.get_name() == "RequiredError" &&
        std::string(e.what()).find("subcommand") != std::string::npos) {
      print_error("", "a subcommand is required (see 'seqfuse --help')");
    } else {
      print_error(sub, e.what());
    }
    return 2;
  }

  const std::string name = parsed_subcommand_name(app);
  seqfuse::set_fault_message_prefix("seqfuse " + name);
  try {
    for (const auto& sub : subcommands)
      if (sub.app->parsed()) return finish(sub.run());
    print_error(name, "no subcommand given");
    return 2;
  } catch (const seqfuse::Error& e) {
    print_error(name, e.what());
    return e.exit_code();
  } catch (const seqfuse::gpu::Error& e) {  // the kernel layer's own failures
    print_error(name, e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    print_error(name, "out of host memory");
    return 1;
  } catch (const std::exception& e) {
    print_error(name, std::string("internal error: ") + e.what());
    return 1;
  }
}
