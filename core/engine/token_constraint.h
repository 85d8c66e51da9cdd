#pragma once
// A constraint on the tokens an answer may take (constrained decoding, issue 29): before each
// token is chosen the session lets the constraint set the logits of the tokens it refuses to
// -inf, and after it tells the constraint which token was chosen. Sampling then draws only
// allowed tokens, greedy picks the best allowed one, and a speculative draft the constraint
// refuses can never be accepted (its verify row is masked the same way, so it cannot be the
// choice; core/engine/session.cpp).
//
// GenerateOptions carries a TokenConstraintSpec (immutable, shared, e.g. a compiled JSON
// schema: core/engine/json_constraint.h); each answer gets its own TokenConstraint from it.
// Thread contract: a spec may be shared by threads; a TokenConstraint belongs to one answer.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace glance {

class TokenConstraint {
 public:
  virtual ~TokenConstraint() = default;
  // Sets logits[id] to -inf for every id that may not come next (ids past the vocabulary
  // included). A stop id is allowed only when the answer may end here. Throws glance::Error
  // when it would allow nothing.
  virtual void MaskLogits(std::span<float> logits) = 0;
  // The token chosen (one MaskLogits allowed). Throws glance::Error for a token it refuses.
  virtual void Accept(int32_t token) = 0;
  // Whether the answer so far may end here.
  virtual bool Complete() const = 0;
};

class TokenConstraintSpec {
 public:
  virtual ~TokenConstraintSpec() = default;
  // A fresh constraint for one answer; `stop_ids` end an answer (the engine's stop tokens).
  virtual std::unique_ptr<TokenConstraint> Start(const std::vector<int32_t>& stop_ids) const = 0;
};

}  // namespace glance
