// FaultyThreadHook (tests/testing/faulty_thread_hook.h): an input thread's preemption error,
// raised after the step its schedule names, reaches the recoverable layer through the
// Coordinator and ShouldStop, not through Run.
#include "tests/testing/faulty_thread_hook.h"

#include <memory>

#include "gtest/gtest.h"
#include "src/platform/errors.h"
#include "src/01_session/training_util.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/04_coordinated/coordinated_session.h"
#include "src/05_recoverable/recoverable_session.h"
#include "tests/testing/fault_injection.h"

namespace mts {
namespace {

// A counter trained through RecoverableSession(CoordinatedSession(Hooked(Chief))), with a
// hook whose thread fails with UnavailableError after the 2nd step.
class FaultyThreadHookTest : public ::testing::Test {
 protected:
  FaultyThreadHookTest() : as_default_(graph_) {
    GetOrCreateGlobalStep();
    train_ = IncrementGlobalStep();
    hook_ = std::make_shared<FaultyThreadHook>(FaultSchedule::AtCall(2, ErrorCode::kUnavailable));
    creator_ = std::make_shared<CoordinatedSessionCreator>(
        std::make_shared<ChiefSessionCreator>(),
        std::vector<std::shared_ptr<SessionRunHook>>{hook_});
  }

  Graph graph_;
  DefaultGraphScope as_default_;
  Output train_;
  std::shared_ptr<FaultyThreadHook> hook_;
  std::shared_ptr<CoordinatedSessionCreator> creator_;
};

// Before the scheduled step no thread fails and nothing is recorded.
TEST_F(FaultyThreadHookTest, StepsWithoutAFaultLeaveTheCoordinatorClean) {
  RecoverableSession session(creator_);
  EXPECT_EQ(session.Run(train_).scalar<int64_t>(), 1);
  EXPECT_EQ(hook_->threads_failed(), 0);
  EXPECT_FALSE(creator_->coord()->ShouldStop());
  EXPECT_FALSE(session.ShouldStop());
  EXPECT_EQ(session.num_recoveries(), 0);
  session.Close();
}

// The scheduled step returns normally; its thread's error is already recorded, and the next
// ShouldStop recovers from it: a new stack, re-initialised (no checkpoint), training on.
TEST_F(FaultyThreadHookTest, AThreadsErrorIsRecordedThenRecoveredByShouldStop) {
  RecoverableSession session(creator_);
  session.Run(train_);
  std::shared_ptr<Coordinator> first = creator_->coord();
  EXPECT_EQ(session.Run(train_).scalar<int64_t>(), 2);  // The run itself succeeds.
  EXPECT_EQ(hook_->threads_failed(), 1);
  EXPECT_TRUE(first->ShouldStop());
  EXPECT_THROW(first->RaiseRequestedException(), UnavailableError);

  EXPECT_FALSE(session.ShouldStop());  // Recovered, so: don't stop.
  EXPECT_EQ(session.num_recoveries(), 1);
  EXPECT_EQ(session.Run(train_).scalar<int64_t>(), 1);  // Re-initialised: no checkpoint.
  session.Close();  // The new stack's coordinator holds no error: Close does not raise.
}

}  // namespace
}  // namespace mts
