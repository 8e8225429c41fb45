// Reference solution of the Callable exercise.
#include <set>

#include "chapters/01_session/exercises/make_callable/make_callable.h"

namespace mts {

Callable::Callable(Session& session, std::vector<Output> feeds, std::vector<Output> fetches,
                   std::vector<Operation*> targets)
    : session_(session),
      feeds_(std::move(feeds)),
      fetches_(std::move(fetches)),
      targets_(std::move(targets)) {
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
}

std::vector<Tensor> Callable::operator()(const std::vector<Tensor>& feed_values) const {
  if (feed_values.size() != feeds_.size()) {
    throw InvalidArgumentError("Callable expects " + std::to_string(feeds_.size()) +
                               " feed values, got " + std::to_string(feed_values.size()));
  }
  FeedDict feeds;
  for (size_t i = 0; i < feeds_.size(); ++i) feeds.emplace(feeds_[i], feed_values[i]);
  return session_.Run(fetches_, feeds, targets_);
}

}  // namespace mts
