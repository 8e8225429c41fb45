// TensorFlow's session_manager_test.py, case by case: each TEST is named
// <TF test class>.<TF test method>. Waits run on a FakeClock that jumps to each deadline,
// so "wait three seconds for a checkpoint" takes no time.
#include "src/02_chief_worker/session_manager.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/graph_keys.h"
#include "src/01_session/session.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/02_chief_worker/saver.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "tests/testing/expect_error.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/new_dir.h"

namespace mts {
namespace {

using ::testing::HasSubstr;
using ::testing::Throws;
using ::testing::ThrowsMessage;

// Each case builds in a graph of its own, as TensorFlow's `with ops.Graph().as_default()`.
class SessionManagerTest : public ::testing::Test {
 protected:
  SessionManagerOptions Options() {
    SessionManagerOptions options;
    options.ready_op = ReportUninitializedVariables();
    options.graph = graph_.get();
    options.clock = &clock_;
    return options;
  }
  // A fresh default graph, as a second `with ops.Graph().as_default()` block.
  void NewGraph() {
    scope_.reset();
    graph_ = std::make_unique<Graph>();
    scope_ = std::make_unique<DefaultGraphScope>(*graph_);
  }
  // The local variable w = v of TensorFlow's ready_for_local_init cases.
  Variable LocalCopyOf(const Variable& v) {
    VariableOptions options;
    options.name = "w";
    options.trainable = false;
    options.collections = {GraphKeys::kLocalVariables};
    return Variable(v.value(), options);
  }
  static bool IsSet(Session& session, const Variable& v) {
    return session.Run(IsVariableInitialized(v)).scalar<bool>();
  }
  // Saves v (initialised to `value`) into `dir` from a session of a graph of its own.
  void SaveV(const std::string& dir, int32_t value) {
    NewGraph();
    Variable v(Tensor::Scalar(value), "v");
    SessionManager manager(Options());
    Saver saver({v});
    RecoverSessionOptions recover;
    recover.saver = &saver;
    recover.checkpoint_dir = dir;
    auto [session, initialized] = manager.RecoverSession("", recover);
    EXPECT_FALSE(initialized);
    session->Run(v.initializer());
    saver.Save(*session, JoinPath(dir, "recover_session_checkpoint"));
  }

  FakeClock clock_{FakeClock::Mode::kAutoAdvance};
  std::unique_ptr<Graph> graph_ = std::make_unique<Graph>();
  std::unique_ptr<DefaultGraphScope> scope_ = std::make_unique<DefaultGraphScope>(*graph_);
};

TEST_F(SessionManagerTest, testPrepareSessionSucceeds) {
  Variable v(Tensor::Vector<float>({1, 2, 3}), "v");
  SessionManager manager(Options());
  PrepareSessionOptions prepare;
  prepare.init_op = GlobalVariablesInitializer();
  auto session = manager.PrepareSession("", prepare);
  EXPECT_EQ(session->Run(v.value()).ToVector<float>(), (std::vector<float>{1, 2, 3}));
}

TEST_F(SessionManagerTest, testPrepareSessionSucceedsWithInitFeedDict) {
  Output p = Placeholder(DataType::kFloat, TensorShape{3});
  Variable v(p, "v");
  SessionManager manager(Options());
  PrepareSessionOptions prepare;
  prepare.init_op = GlobalVariablesInitializer();
  prepare.init_feed_dict = {{p, Tensor::Vector<float>({1, 2, 3})}};
  auto session = manager.PrepareSession("", prepare);
  EXPECT_EQ(session->Run(v.value()).ToVector<float>(), (std::vector<float>{1, 2, 3}));
}

TEST_F(SessionManagerTest, testPrepareSessionSucceedsWithInitFn) {
  Variable v(Tensor::Vector<int32_t>({125}), "v");
  SessionManager manager(Options());
  PrepareSessionOptions prepare;
  prepare.init_fn = [&](SessionInterface& s) { s.Run(v.initializer()); };
  auto session = manager.PrepareSession("", prepare);
  EXPECT_EQ(session->Run(v.value()).ToVector<int32_t>(), (std::vector<int32_t>{125}));
}

TEST_F(SessionManagerTest, testPrepareSessionFails) {
  const std::string checkpoint_dir = NewDir();
  const std::string empty_dir = NewDir();
  {
    Variable v(Tensor::Vector<float>({1, 2, 3}), "v");
    SessionManager manager(Options());
    Saver saver({v});
    PrepareSessionOptions prepare;
    prepare.init_op = GlobalVariablesInitializer();
    prepare.saver = &saver;
    prepare.checkpoint_dir = checkpoint_dir;
    auto session = manager.PrepareSession("", prepare);
    EXPECT_EQ(session->Run(v.value()).ToVector<float>(), (std::vector<float>{1, 2, 3}));
    saver.Save(*session, JoinPath(checkpoint_dir, "prepare_session_checkpoint"));
  }
  NewGraph();
  Variable v(Tensor::Vector<float>({6, 7, 8}), "v");
  SessionManager manager(Options());
  Saver saver({v});
  PrepareSessionOptions prepare;
  prepare.saver = &saver;
  prepare.checkpoint_dir = empty_dir;  // No checkpoint within 2 seconds.
  prepare.wait_for_checkpoint = true;
  prepare.max_wait_secs = 2;
  EXPECT_THAT(
      [&] { manager.PrepareSession("", prepare); },
      ThrowsMessage<RuntimeError>(HasSubstr("no init_op or init_fn or local_init_op was given")));
  prepare.checkpoint_dir = checkpoint_dir;  // Now there is one.
  auto session = manager.PrepareSession("", prepare);
  EXPECT_TRUE(IsSet(*session, v));
  EXPECT_EQ(session->Run(v.value()).ToVector<float>(), (std::vector<float>{1, 2, 3}));
}

TEST_F(SessionManagerTest, testRecoverSession) {
  const std::string checkpoint_dir = NewDir();
  SaveV(checkpoint_dir, 1);
  auto recovered = [&](const std::string& dir, const std::string& file) {
    NewGraph();
    Variable v(Tensor::Scalar<int32_t>(2), "v");
    SessionManager manager(Options());
    Saver saver({v});
    RecoverSessionOptions recover;
    recover.saver = &saver;
    recover.checkpoint_dir = dir;
    recover.checkpoint_filename_with_path = file;
    auto [session, initialized] = manager.RecoverSession("", recover);
    EXPECT_TRUE(initialized);
    EXPECT_TRUE(IsSet(*session, v));
    EXPECT_EQ(session->Run(v.value()).scalar<int32_t>(), 1);
  };
  recovered(checkpoint_dir, "");
  const std::string latest = *LatestCheckpoint(checkpoint_dir);
  recovered("", latest);
  EXPECT_THROW(recovered(checkpoint_dir, latest), ValueError);  // Not both.
}

TEST_F(SessionManagerTest, testWaitForSessionReturnsNoneAfterTimeout) {
  Variable v(Tensor::Scalar<int32_t>(1), "v");
  SessionManagerOptions options = Options();
  options.recovery_wait_secs = 1;
  SessionManager manager(options);
  EXPECT_THROW(manager.WaitForSession("", 3), DeadlineExceededError);
}

TEST_F(SessionManagerTest, testInitWithNoneLocalInitOpError) {
  Variable v(Tensor::Scalar<int32_t>(1), "v");
  SessionManagerOptions options = Options();
  options.ready_for_local_init_op = ReportUninitializedVariables(GlobalVariables());
  options.local_init_op = nullptr;
  EXPECT_THAT([&] { SessionManager{options}; },
              ThrowsMessage<ValueError>(HasSubstr(
                  "If you pass a ready_for_local_init_op you must also pass a local_init_op ")));
}

TEST_F(SessionManagerTest, testRecoverSessionWithReadyForLocalInitOp) {
  const std::string checkpoint_dir = NewDir();
  SaveV(checkpoint_dir, 1);
  NewGraph();
  Variable v(Tensor::Scalar<int32_t>(2), "v");
  Variable w = LocalCopyOf(v);
  SessionManagerOptions options = Options();
  options.ready_for_local_init_op = ReportUninitializedVariables(GlobalVariables());
  options.local_init_op = w.initializer();
  SessionManager manager(options);
  Saver saver({v});
  RecoverSessionOptions recover;
  recover.saver = &saver;
  recover.checkpoint_dir = checkpoint_dir;
  auto [session, initialized] = manager.RecoverSession("", recover);
  EXPECT_TRUE(initialized);
  EXPECT_TRUE(IsSet(*session, v));
  EXPECT_TRUE(IsSet(*session, w));
  EXPECT_EQ(session->Run(v.value()).scalar<int32_t>(), 1);
  EXPECT_EQ(session->Run(w.value()).scalar<int32_t>(), 1);
}

TEST_F(SessionManagerTest, testRecoverSessionWithReadyForLocalInitOpFailsToReadyLocal) {
  const std::string checkpoint_dir = NewDir();
  SaveV(checkpoint_dir, 1);
  NewGraph();
  Variable v(Tensor::Scalar<int32_t>(2), "v");
  Variable w = LocalCopyOf(v);
  SessionManagerOptions options = Options();
  options.ready_for_local_init_op = ReportUninitializedVariables();  // Too strict: names w.
  options.local_init_op = w.initializer();
  SessionManager manager(options);
  Saver saver({v});
  RecoverSessionOptions recover;
  recover.saver = &saver;
  recover.checkpoint_dir = checkpoint_dir;
  auto [session, initialized] = manager.RecoverSession("", recover);
  EXPECT_FALSE(initialized);
  EXPECT_TRUE(IsSet(*session, v));
  EXPECT_FALSE(IsSet(*session, w));
  EXPECT_EQ(session->Run(v.value()).scalar<int32_t>(), 1);
}

TEST_F(SessionManagerTest, testRecoverSessionNoChkptStillRunsLocalInitOp) {
  VariableOptions local;
  local.name = "w";
  local.trainable = false;
  local.collections = {GraphKeys::kLocalVariables};
  Variable w(Tensor::Scalar<int32_t>(1), local);
  SessionManagerOptions options = Options();
  options.local_init_op = w.initializer();
  SessionManager manager(options);
  auto [session, initialized] = manager.RecoverSession("", {});
  EXPECT_FALSE(initialized);
  EXPECT_TRUE(IsSet(*session, w));
  EXPECT_EQ(session->Run(w.value()).scalar<int32_t>(), 1);
}

TEST_F(SessionManagerTest, testRecoverSessionFailsStillRunsLocalInitOp) {
  const std::string checkpoint_dir = NewDir();
  Variable v(Tensor::Scalar<int32_t>(2), "v");
  VariableOptions local;
  local.name = "w";
  local.trainable = false;
  local.collections = {GraphKeys::kLocalVariables};
  Variable w(Tensor::Scalar<int32_t>(1), local);
  SessionManagerOptions options = Options();
  options.local_init_op = w.initializer();
  SessionManager manager(options);
  Saver saver({v});
  RecoverSessionOptions recover;
  recover.saver = &saver;
  recover.checkpoint_dir = checkpoint_dir;
  recover.wait_for_checkpoint = false;
  auto [session, initialized] = manager.RecoverSession("", recover);
  EXPECT_FALSE(initialized);
  EXPECT_FALSE(IsSet(*session, v));
  EXPECT_TRUE(IsSet(*session, w));
  EXPECT_EQ(session->Run(w.value()).scalar<int32_t>(), 1);
}

TEST_F(SessionManagerTest, testWaitForSessionWithReadyForLocalInitOpFailsToReadyLocal) {
  Variable v(Tensor::Scalar<int32_t>(1), "v");
  Variable w = LocalCopyOf(v);
  SessionManagerOptions options = Options();
  options.ready_for_local_init_op = ReportUninitializedVariables();
  options.local_init_op = w.initializer();
  SessionManager manager(options);
  EXPECT_THROW(manager.WaitForSession("", 3), DeadlineExceededError);
}

TEST_F(SessionManagerTest, testWaitForSessionInsufficientReadyForLocalInitCheck) {
  Variable v(Tensor::Scalar<int32_t>(1), "v");
  Variable w = LocalCopyOf(v);
  SessionManagerOptions options = Options();
  options.local_init_op = w.initializer();
  SessionManager manager(options);
  EXPECT_THAT([&] { manager.WaitForSession("", 3); },
              Throws<FailedPreconditionError>(
                  HasMessage(HasSubstr("Attempting to use uninitialized value v"))));
}

TEST_F(SessionManagerTest, testPrepareSessionWithReadyForLocalInitOp) {
  Variable v(Tensor::Scalar<int32_t>(1), "v");
  Variable w = LocalCopyOf(v);
  SessionManagerOptions options = Options();
  options.ready_for_local_init_op = ReportUninitializedVariables(GlobalVariables());
  options.local_init_op = w.initializer();
  SessionManager manager(options);
  PrepareSessionOptions prepare;
  prepare.init_op = v.initializer();
  auto session = manager.PrepareSession("", prepare);
  EXPECT_TRUE(IsSet(*session, v));
  EXPECT_TRUE(IsSet(*session, w));
  EXPECT_EQ(session->Run(v.value()).scalar<int32_t>(), 1);
  EXPECT_EQ(session->Run(w.value()).scalar<int32_t>(), 1);
}

TEST_F(SessionManagerTest, testPrepareSessionDidNotInitLocalVariable) {
  Variable v(Tensor::Scalar<int32_t>(1), "v");
  LocalCopyOf(v);
  SessionManager manager(Options());
  PrepareSessionOptions prepare;
  prepare.init_op = v.initializer();
  EXPECT_THAT([&] { manager.PrepareSession("", prepare); },
              ThrowsMessage<RuntimeError>(HasSubstr("Init operations did not make model ready")));
}

// TensorFlow's init_op may be a list; mts takes one op, and a list is its Group.
TEST_F(SessionManagerTest, testPrepareSessionDidNotInitLocalVariableList) {
  Variable v(Tensor::Scalar<int32_t>(1), "v");
  LocalCopyOf(v);
  SessionManager manager(Options());
  PrepareSessionOptions prepare;
  prepare.init_op = Group({v.initializer()});
  EXPECT_THAT([&] { manager.PrepareSession("", prepare); },
              ThrowsMessage<RuntimeError>(HasSubstr("Init operations did not make model ready")));
}

TEST_F(SessionManagerTest, testPrepareSessionWithReadyNotReadyForLocal) {
  Variable v(Tensor::Scalar<int32_t>(1), "v");
  Variable w = LocalCopyOf(v);
  SessionManagerOptions options = Options();
  options.ready_for_local_init_op = ReportUninitializedVariables(GlobalVariables());
  options.local_init_op = w.initializer();
  SessionManager manager(options);
  EXPECT_THAT([&] { manager.PrepareSession("", {}); },
              ThrowsMessage<RuntimeError>(
                  HasSubstr("Init operations did not make model ready for local_init")));
}

TEST_F(SessionManagerTest, testPrepareSessionWithInsufficientReadyForLocalInitCheck) {
  Variable v(Tensor::Scalar<int32_t>(1), "v");
  Variable w = LocalCopyOf(v);
  SessionManagerOptions options = Options();
  options.local_init_op = w.initializer();
  SessionManager manager(options);
  EXPECT_THAT([&] { manager.PrepareSession("", {}); },
              Throws<FailedPreconditionError>(
                  HasMessage(HasSubstr("Attempting to use uninitialized value v"))));
}

}  // namespace
}  // namespace mts
