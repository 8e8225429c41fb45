// Starter for the Callable exercise.
#include "chapters/01_session/exercises/make_callable/make_callable.h"

namespace mts {

// [mts:exercise-todo]
Callable::Callable(Session& session, std::vector<Output> feeds, std::vector<Output> fetches,
                   std::vector<Operation*> targets)
    : session_(session),
      feeds_(std::move(feeds)),
      fetches_(std::move(fetches)),
      targets_(std::move(targets)) {
  // TODO: the header states what is checked here, once, so that no call has to. Decide
  // what identifies "the same tensor" for the duplicate-feed check, and what a null
  // Output or Operation* should raise (it has no graph to compare).
}

std::vector<Tensor> Callable::operator()(const std::vector<Tensor>& feed_values) const {
  // TODO: one run of the signature with these values. Which check can only happen here?
  return {};
}
// [mts:exercise-todo-end]

}  // namespace mts
