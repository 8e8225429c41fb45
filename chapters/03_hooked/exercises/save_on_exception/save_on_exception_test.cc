// save_on_exception_test.cc: decides whether the save_on_exception exercise of chapter 03 is
// done.
//
// The failure comes from a test double, FailAtRunSession: a raw session whose n-th run
// raises a chosen error instead of running, so each test picks the step and the kind of
// failure.
#include "chapters/03_hooked/exercises/save_on_exception/save_on_exception.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "src/platform/errors.h"
#include "src/01_session/session.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/02_chief_worker/saver.h"
#include "src/03_hooked/hooked_session.h"
#include "src/platform/file_system.h"
#include "tests/testing/expect_error.h"
#include "tests/testing/recording_hook.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::Throws;

// A session whose `fail_at`-th Run (counting from 1) calls `fail` instead of running. Every
// other run goes to the session below.
class FailAtRunSession : public WrappedSession {
 public:
  FailAtRunSession(std::unique_ptr<SessionInterface> inner, int fail_at,
                   std::function<void()> fail)
      : WrappedSession(std::move(inner)), fail_at_(fail_at), fail_(std::move(fail)) {}

  using WrappedSession::Run;
  std::vector<Tensor> Run(const std::vector<Output>& fetches, const FeedDict& feeds,
                          const std::vector<Operation*>& targets, const RunOptions& options,
                          RunMetadata* run_metadata) override {
    if (++runs_ == fail_at_) fail_();
    return WrappedSession::Run(fetches, feeds, targets, options, run_metadata);
  }

 private:
  int fail_at_;
  std::function<void()> fail_;
  int runs_ = 0;
};

// A training program (a global step and its increment) with a Saver, a checkpoint directory
// per test, and a SaveOnErrorSession over a raw session that fails as the test says.
class SaveOnErrorTest : public ::testing::Test {
 protected:
  SaveOnErrorTest()
      : as_default_(graph_),
        step_(GetOrCreateGlobalStep()),
        train_op_(IncrementGlobalStep().op()),
        init_(GlobalVariablesInitializer()),
        saver_(std::make_shared<Saver>()) {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = JoinPath(::testing::TempDir(), std::string("save_on_error_") + info->name());
    DefaultFileSystem()->CreateDirectories(dir_);
    graph_.Finalize();
  }

  // The layer under test, over a raw session whose `fail_at`-th run calls `fail`.
  std::unique_ptr<SaveOnErrorSession> Make(int fail_at, std::function<void()> fail,
                                           const std::string& save_path = "") {
    auto raw = std::make_unique<Session>(&graph_);
    raw->Run(init_);
    auto failing = std::make_unique<FailAtRunSession>(std::move(raw), fail_at, std::move(fail));
    return std::make_unique<SaveOnErrorSession>(
        std::move(failing), saver_, save_path.empty() ? Prefix() : save_path, step_.value());
  }

  std::string Prefix() const { return JoinPath(dir_, "model.ckpt"); }

  // The global step stored in the checkpoint at `path`, restored into a fresh session.
  int64_t RestoredStep(const std::string& path) {
    Session fresh(&graph_);
    saver_->Restore(fresh, path);
    return GlobalStepValue(fresh, step_.value());
  }

  Graph graph_;
  DefaultGraphScope as_default_;
  Variable step_;
  Operation* train_op_;
  Operation* init_;
  std::shared_ptr<Saver> saver_;
  std::string dir_;
};

// The third run fails: the checkpoint holds the state after the two that worked, and the
// caller still gets the very error that was raised.
TEST_F(SaveOnErrorTest, SavesWhenARunFailsThenRethrowsTheSameError) {
  auto session = Make(3, [] { throw InvalidArgumentError("bad batch", "input"); });
  session->Run(train_op_);
  session->Run(train_op_);
  EXPECT_THAT([&] { session->Run(train_op_); },
              Throws<InvalidArgumentError>(AllOf(HasMessage("bad batch"), HasOpName("input"))));
  ASSERT_TRUE(session->last_error_checkpoint().has_value()) << "nothing was saved";
  EXPECT_EQ(*session->last_error_checkpoint(), Prefix() + "-2");
  EXPECT_EQ(LatestCheckpoint(dir_), Prefix() + "-2");
  EXPECT_EQ(RestoredStep(Prefix() + "-2"), 2);
}

// While runs succeed, nothing is written.
TEST_F(SaveOnErrorTest, SavesNothingWhileRunsSucceed) {
  auto session = Make(100, [] { throw InternalError("never"); });
  for (int i = 0; i < 5; ++i) session->Run(train_op_);
  EXPECT_FALSE(session->last_error_checkpoint().has_value());
  EXPECT_EQ(LatestCheckpoint(dir_), std::nullopt);
}

// Which errors call for a save: all but the preemption errors and the end of input.
TEST_F(SaveOnErrorTest, SavesOnEveryErrorButPreemptionAndOutOfRange) {
  EXPECT_TRUE(SaveOnErrorSession::SavesOn(ErrorCode::kInvalidArgument));
  EXPECT_TRUE(SaveOnErrorSession::SavesOn(ErrorCode::kInternal));
  EXPECT_TRUE(SaveOnErrorSession::SavesOn(ErrorCode::kResourceExhausted));
  EXPECT_TRUE(SaveOnErrorSession::SavesOn(ErrorCode::kDataLoss));
  EXPECT_FALSE(SaveOnErrorSession::SavesOn(ErrorCode::kAborted));
  EXPECT_FALSE(SaveOnErrorSession::SavesOn(ErrorCode::kUnavailable));
  EXPECT_FALSE(SaveOnErrorSession::SavesOn(ErrorCode::kOutOfRange));
}

// A preemption error passes through unsaved: recovery will restore the last checkpoint.
TEST_F(SaveOnErrorTest, APreemptionErrorIsNotSaved) {
  auto session = Make(2, [] { throw AbortedError("parameter server restarted"); });
  session->Run(train_op_);
  EXPECT_THROW(session->Run(train_op_), AbortedError);
  EXPECT_FALSE(session->last_error_checkpoint().has_value());
  EXPECT_EQ(LatestCheckpoint(dir_), std::nullopt);
}

// The end of the input is a clean stop, not a crash: no save here.
TEST_F(SaveOnErrorTest, OutOfRangeIsNotSaved) {
  auto session = Make(2, [] { throw OutOfRangeError("End of sequence"); });
  session->Run(train_op_);
  EXPECT_THROW(session->Run(train_op_), OutOfRangeError);
  EXPECT_EQ(LatestCheckpoint(dir_), std::nullopt);
}

// An error that is not an OpError goes through untouched.
TEST_F(SaveOnErrorTest, OtherExceptionsPassThrough) {
  auto session = Make(1, [] { throw RuntimeError("misuse"); });
  EXPECT_THROW(session->Run(train_op_), RuntimeError);
  EXPECT_EQ(LatestCheckpoint(dir_), std::nullopt);
}

// When the save fails as well (here: its directory is missing), the caller still gets the
// run's error, not the save's.
TEST_F(SaveOnErrorTest, AFailedSaveDoesNotHideTheRunError) {
  auto session = Make(1, [] { throw InternalError("kernel crashed"); },
                      JoinPath(dir_, "missing/model.ckpt"));
  EXPECT_THROW(session->Run(train_op_), InternalError);
  EXPECT_FALSE(session->last_error_checkpoint().has_value());
}

// A layer below the hooks: they see no AfterRun for the failed step (which is why a hook
// could not have done this), and the save does not pass through them either.
TEST_F(SaveOnErrorTest, WorksBelowTheHooksWithoutRunningThem) {
  auto hook = std::make_shared<RecordingHook>();
  HookedSession hooked(Make(3, [] { throw InvalidArgumentError("bad batch"); }),
                       std::vector<std::shared_ptr<SessionRunHook>>{hook});
  hooked.Run(train_op_);
  hooked.Run(train_op_);
  EXPECT_THROW(hooked.Run(train_op_), InvalidArgumentError);
  EXPECT_EQ(hook->Count("BeforeRun"), 3);
  EXPECT_EQ(hook->Count("AfterRun"), 2);
  EXPECT_EQ(LatestCheckpoint(dir_), Prefix() + "-2");
}

}  // namespace
}  // namespace mts
