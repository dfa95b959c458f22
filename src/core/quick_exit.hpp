// seqfuse leaves with _Exit once a subcommand has finished (cli/main.cpp):
// its outputs are committed, and what is left to tear down (the GPU context,
// pinned host memory, large mappings) takes the OS less time than an orderly
// shutdown, which costs a GPU run a measurable share of a sub-second command.
// Sanitizer builds return normally so that leak checking still runs.
#pragma once

namespace seqfuse {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kQuickExit = false;
#else
inline constexpr bool kQuickExit = true;
#endif

}  // namespace seqfuse
