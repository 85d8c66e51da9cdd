#pragma once
// The one error type of the whole program, defined at the bottom layer so that kernels/ can
// throw it without reaching up into core/ (a layer calls only layers below it; core/util/error.h
// builds on this header).
//
// Error style, kernels/ (docs/style.md "Errors"): everything a caller can trigger — a bad file
// (an NPU bundle), a request this CPU or build cannot serve (--cpu avx2 without AVX2), a call
// that breaks a kernel's documented preconditions (a weight format a kernel does not take) —
// throws glance::Error with one line that names the function, file or flag and the problem.
// Kernels throw nothing else (no std::logic_error / std::invalid_argument): front ends catch
// glance::Error, so whatever a kernel reports reaches the user as a sentence, not an abort.
// Broken internal invariants that no input can reach are asserts.
#include <stdexcept>
#include <string>

namespace glance {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace glance
