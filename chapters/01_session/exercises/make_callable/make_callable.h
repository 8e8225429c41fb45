// make_callable.h: chapter 01's exercise: a pre-checked, fixed run signature.
//
//   Session  <-- a Callable runs one signature of it, again and again
//
// A training loop calls Run with the same feeds, fetches and targets millions of times. The
// Session already plans each signature once; a Callable goes one step further and checks the
// signature itself once, when it is made (every tensor in the session's graph, no duplicate
// feeds), so each call only checks the values it is given. TensorFlow offers the same thing
// as Session.make_callable.
#ifndef MTS_CHAPTERS_01_SESSION_EXERCISES_MAKE_CALLABLE_MAKE_CALLABLE_H_
#define MTS_CHAPTERS_01_SESSION_EXERCISES_MAKE_CALLABLE_MAKE_CALLABLE_H_

#include <vector>

#include "src/01_session/session.h"

namespace mts {

// [mts:callable-api]
/// One run signature of one session, checked when made.
class Callable {
 public:
  /// Checks the signature: every feed, fetch and target is in `session`'s graph, and no
  /// tensor is fed twice. \throws ValueError naming the first offending tensor or op.
  /// \pre `session` outlives the Callable.
  Callable(Session& session, std::vector<Output> feeds, std::vector<Output> fetches,
           std::vector<Operation*> targets = {});

  /// Runs the signature with `feed_values[i]` fed to the i-th feed; returns the fetches.
  /// \throws InvalidArgumentError if the number of values differs from the number of
  ///   feeds; whatever Session::Run raises otherwise.
  std::vector<Tensor> operator()(const std::vector<Tensor>& feed_values) const;

 private:
  Session& session_;
  std::vector<Output> feeds_;
  std::vector<Output> fetches_;
  std::vector<Operation*> targets_;
};
// [mts:callable-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_01_SESSION_EXERCISES_MAKE_CALLABLE_MAKE_CALLABLE_H_
