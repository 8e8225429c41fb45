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
  // TODO: check that every feed and fetch has graph() == session.graph(), every target too,
  // and that no feed appears twice; throw ValueError naming the culprit otherwise.
}

std::vector<Tensor> Callable::operator()(const std::vector<Tensor>& feed_values) const {
  // TODO: check the number of values, pair them with feeds_ in a FeedDict, and run.
  return {};
}
// [mts:exercise-todo-end]

}  // namespace mts
