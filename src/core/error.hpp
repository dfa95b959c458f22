// Errors that end a subcommand. main() catches them, prints one line
// `seqfuse <subcommand>: error: <what>` and exits with exit_code().
#pragma once

#include <stdexcept>
#include <string>

namespace seqfuse {

// A runtime failure: bad input data, I/O error, device failure. Exit status 1.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
  [[nodiscard]] virtual int exit_code() const noexcept { return 1; }
};

// The command line itself is wrong (bad option value, missing argument). Exit status 2.
class UsageError : public Error {
 public:
  using Error::Error;
  [[nodiscard]] int exit_code() const noexcept override { return 2; }
};

}  // namespace seqfuse
