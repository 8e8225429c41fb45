// The Callable exercise of chapter 01: the checks of Callable's constructor and its call
// operator, so that make_callable_test passes. The parts to write lie between the
// `[mts:lab make_callable]` markers; the comments outside them say what to decide.
#include <set>

#include "chapters/01_session/exercises/make_callable/make_callable.h"

namespace mts {

// [mts:exercise-todo]
Callable::Callable(Session& session, std::vector<Output> feeds, std::vector<Output> fetches,
                   std::vector<Operation*> targets)
    : session_(session),
      feeds_(std::move(feeds)),
      fetches_(std::move(fetches)),
      targets_(std::move(targets)) {
  // TODO(student): the header states what is checked here, once, so that no call has to.
  // Decide what identifies "the same tensor" for the duplicate-feed check, and what a null
  // Output or Operation* should raise (it has no graph to compare).
  // [mts:lab make_callable]
  Graph* graph = session_.graph();
  auto check_tensor = [graph](const Output& t, const char* role) {
    if (t.op() == nullptr || t.graph() != graph) {
      throw ValueError(std::string(role) + " '" + (t.op() ? t.name() : "<null>") +
                       "' is not an element of the session's graph");
    }
  };
  std::set<Output> seen;
  for (const Output& f : feeds_) {
    check_tensor(f, "Feed");
    if (!seen.insert(f).second) throw ValueError("Feed '" + f.name() + "' is fed twice");
  }
  for (const Output& f : fetches_) check_tensor(f, "Fetch");
  for (Operation* t : targets_) {
    if (t == nullptr || t->graph() != graph) {
      throw ValueError("Target '" + (t ? t->name() : std::string("<null>")) +
                       "' is not an element of the session's graph");
    }
  }
  // [mts:lab-end]
}

std::vector<Tensor> Callable::operator()(const std::vector<Tensor>& feed_values) const {
  // TODO(student): one run of the signature with these values. Which check can only happen
  // here?
  // [mts:lab make_callable]
  if (feed_values.size() != feeds_.size()) {
    throw InvalidArgumentError("Callable expects " + std::to_string(feeds_.size()) +
                               " feed values, got " + std::to_string(feed_values.size()));
  }
  FeedDict feeds;
  for (size_t i = 0; i < feeds_.size(); ++i) feeds.emplace(feeds_[i], feed_values[i]);
  return session_.Run(fetches_, feeds, targets_);
  // [mts:lab-end]
}
// [mts:exercise-todo-end]

}  // namespace mts
