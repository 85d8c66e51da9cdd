#pragma once
// Errors at the engine's boundaries (bad files, bad input, bad requests) are thrown as
// glance::Error with a message that names the file/tensor/field and says what to do.
// Front ends (glance-cli, the GUI worker) catch them; nothing below aborts on bad input.
// Programmer errors (broken invariants) use assert.
#include <stdexcept>
#include <string>

namespace glance {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace glance
