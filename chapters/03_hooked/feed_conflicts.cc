// feed_conflicts: the two feed conflicts HookedSession refuses, raised for real: two hooks
// feeding one tensor, and a hook feeding a tensor the caller feeds too. Chapter 03 shows
// this program's output, produced during the book's build.
#include <cstdio>
#include <memory>

#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/01_session/session.h"
#include "src/03_hooked/hooked_session.h"
#include "src/platform/errors.h"

namespace {

using namespace mts;

// A hook that feeds `x` a value of its own on every run.
class FeedingHook : public SessionRunHook {
 public:
  explicit FeedingHook(Output x) : x_(x) {}
  SessionRunArgs BeforeRun(SessionRunContext&) override {
    SessionRunArgs args;
    args.feeds = {{x_, Tensor::Scalar(1.0f)}};
    return args;
  }

 private:
  Output x_;
};

// Runs `session` and prints the RuntimeError it raises; false if it raised none.
bool PrintConflict(HookedSession& session, const FeedDict& feeds, const Output& y) {
  try {
    session.Run({y}, feeds);
  } catch (const RuntimeError& e) {
    std::printf("RuntimeError: %s\n", e.what());
    return true;
  }
  return false;
}

}  // namespace

int main() {
  Graph graph;
  DefaultGraphScope as_default(graph);
  Output x = Placeholder(DataType::kFloat, {}, "x");
  Output y = Identity(x, "y");
  HookedSession two_hooks(std::make_unique<Session>(),
                          {std::make_shared<FeedingHook>(x), std::make_shared<FeedingHook>(x)});
  HookedSession hook_and_user(std::make_unique<Session>(), {std::make_shared<FeedingHook>(x)});
  const bool both = PrintConflict(two_hooks, {}, y) &&
                    PrintConflict(hook_and_user, {{x, Tensor::Scalar(2.0f)}}, y);
  return both ? 0 : 1;
}
