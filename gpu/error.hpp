// Failures of the GPU runtime itself (a driver or library call failed, the
// device ran out of memory). The kernel layer throws these; it includes
// nothing from src/, so they are its own types. main() reports them as it
// reports seqfuse::Error: one line, exit status 1. A checked entry point that
// refuses its arguments returns a Status (gpu/status.hpp) instead.
#pragma once

#include <stdexcept>

namespace seqfuse::gpu {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A device allocation failed. Callers that can shrink their batch catch this one.
class OutOfMemory : public Error {
 public:
  using Error::Error;
};

}  // namespace seqfuse::gpu
