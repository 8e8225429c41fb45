// hook_test_harness.h: a tiny training program the built-in hooks' tests run their hooks in.
//
//   HookedSession      <-- the harness drives the hooks through a real one ...
//     Session          ... over a real raw session, with a real global step
//
// The program is the least a hook can watch: a global step and a train op that adds one to
// it (IncrementGlobalStep, as an optimizer's Minimize ends). Tests build any further ops
// (a loss, a placeholder) after constructing the harness and before Start(), because
// Start() finalizes the graph as MonitoredSession will.
//
// The harness plays MonitoredSession's part (stage 06) in the hook lifecycle:
//   1. Start(hooks): Begin() on every hook, a raw session with its variables initialised
//      (and the step set, as a restore would), AfterCreateSession() on every hook, then a
//      HookedSession around the raw session.
//   2. Step() / RunUntilStop(): run the train op through the HookedSession.
//   3. Recreate(): what a recovery does: a fresh raw session and AfterCreateSession() again,
//      without Begin().
//   4. End(): End() on every hook, with the raw session.
#ifndef MTS_TESTS_03_HOOKED_HOOKS_HOOK_TEST_HARNESS_H_
#define MTS_TESTS_03_HOOKED_HOOKS_HOOK_TEST_HARNESS_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/03_hooked/hooked_session.h"
#include "src/platform/logging.h"

namespace mts {

/// A graph with a global step and a train op, and the hook lifecycle around a real session.
class HookTestHarness {
 public:
  /// Wraps the raw session before the hooks see it (to simulate another process, say).
  using SessionWrapper =
      std::function<std::unique_ptr<SessionInterface>(std::unique_ptr<SessionInterface>)>;

  /// Builds the step, the train op and an op that sets the step; the graph is the default
  /// graph of this thread while the harness lives.
  HookTestHarness()
      : as_default_(graph_),
        step_(GetOrCreateGlobalStep()),
        train_op_(IncrementGlobalStep().op()),
        new_step_(Placeholder(DataType::kInt64, TensorShape{}, "new_step")),
        set_step_(step_.Assign(new_step_).op()) {}

  /// The program's graph (finalized by Start).
  Graph& graph() { return graph_; }
  /// The global step variable.
  const Variable& step() const { return step_; }
  /// The train op: adds one to the global step, after its read.
  Operation* train_op() const { return train_op_; }

  /// Begin on every hook, a session at `initial_step` (wrapped by `wrap` if given),
  /// AfterCreateSession on every hook, and a HookedSession around it, which it returns.
  HookedSession& Start(std::vector<std::shared_ptr<SessionRunHook>> hooks,
                       int64_t initial_step = 0, SessionWrapper wrap = nullptr) {
    hooks_ = std::move(hooks);
    wrap_ = std::move(wrap);
    for (const auto& hook : hooks_) hook->Begin();
    init_op_ = GlobalVariablesInitializer();
    graph_.Finalize();
    return Recreate(initial_step);
  }

  /// A new raw session at `initial_step` and AfterCreateSession on every hook, as after a
  /// recovery (Begin is not called again).
  HookedSession& Recreate(int64_t initial_step = 0) {
    if (hooked_ != nullptr) hooked_->Close();
    std::unique_ptr<SessionInterface> raw = std::make_unique<Session>(&graph_);
    raw->Run(init_op_);
    raw->Run(set_step_, {{new_step_, Tensor::Scalar<int64_t>(initial_step)}});
    if (wrap_) raw = wrap_(std::move(raw));
    for (const auto& hook : hooks_) hook->AfterCreateSession(*raw, nullptr);
    hooked_ = std::make_unique<HookedSession>(std::move(raw), hooks_);
    return *hooked_;
  }

  /// The HookedSession of the current session. \pre Start() was called.
  HookedSession& hooked() { return *hooked_; }
  /// The session below the hooks (what their run_context.session() is).
  SessionInterface& raw() { return *hooked_->inner(); }

  /// One training step through the hooks.
  void Step() { hooked_->Run(train_op_); }

  /// Steps until a hook asks to stop, at most `max_steps` times; returns the steps run.
  int RunUntilStop(int max_steps = 1000) {
    int steps = 0;
    while (!hooked_->ShouldStop() && steps < max_steps) {
      Step();
      ++steps;
    }
    return steps;
  }

  /// The exact global step, read with a raw run.
  int64_t GlobalStep() { return raw().Run(step_.value()).scalar<int64_t>(); }

  /// Calls End on every hook with the raw session, as a clean close does.
  void End() {
    for (const auto& hook : hooks_) hook->End(raw());
  }

 private:
  Graph graph_;
  DefaultGraphScope as_default_;
  Variable step_;
  Operation* train_op_;
  Output new_step_;
  Operation* set_step_;
  Operation* init_op_ = nullptr;
  std::vector<std::shared_ptr<SessionRunHook>> hooks_;
  SessionWrapper wrap_;
  std::unique_ptr<HookedSession> hooked_;
};

/// The captured messages without glog's prefix ("I1130 15:04:05.123456 file.cc:42] "), so a
/// test can compare whole messages.
inline std::vector<std::string> LoggedMessages(const ScopedLogCapture& capture) {
  std::vector<std::string> messages;
  for (const std::string& line : capture.lines()) {
    const size_t end_of_prefix = line.find("] ");
    messages.push_back(end_of_prefix == std::string::npos ? line
                                                          : line.substr(end_of_prefix + 2));
  }
  return messages;
}

}  // namespace mts

#endif  // MTS_TESTS_03_HOOKED_HOOKS_HOOK_TEST_HARNESS_H_
