// Tests of the custom recoverable error exercise: DeadlineExceededError made recoverable,
// in runs, in creations and from a coordinator's thread; other errors still propagate.
#include "chapters/05_recoverable/exercises/custom_recoverable_error/custom_recoverable_error.h"

#include "gtest/gtest.h"
#include "src/01_session/training_util.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/04_coordinated/coordinated_session.h"
#include "src/04_coordinated/coordinated_thread.h"
#include "tests/testing/fault_injection.h"

namespace mts {
namespace {

class CustomRecoverableErrorTest : public ::testing::Test {
 protected:
  std::unique_ptr<CustomRecoverableSession> Make(std::shared_ptr<FaultSchedule> runs,
                                                 std::shared_ptr<FaultSchedule> creations =
                                                     FaultSchedule::Never()) {
    auto faulty = std::make_shared<FaultySessionCreator>(
        std::make_shared<ChiefSessionCreator>(), creations, runs);
    coordinated_ = std::make_shared<CoordinatedSessionCreator>(
        faulty, std::vector<std::shared_ptr<SessionRunHook>>{});
    return std::make_unique<CustomRecoverableSession>(coordinated_,
                                                      ErrorCode::kDeadlineExceeded);
  }
  int64_t Step(SessionInterface& s) { return s.Run(train_).scalar<int64_t>(); }

  Graph graph_;
  DefaultGraphScope scope_{graph_};
  Variable step_ = GetOrCreateGlobalStep();
  Output train_ = IncrementGlobalStep();
  std::shared_ptr<CoordinatedSessionCreator> coordinated_;
};

// A run failing with the chosen code is recovered from, like a preemption.
TEST_F(CustomRecoverableErrorTest, RunRecoversFromTheChosenCode) {
  auto session = Make(FaultSchedule::AtCall(2, ErrorCode::kDeadlineExceeded));
  EXPECT_EQ(Step(*session), 1);
  EXPECT_EQ(Step(*session), 1);  // Recovered onto a fresh model.
  EXPECT_EQ(session->num_recoveries(), 1);
}

// The preemption errors are still recovered from; other codes still propagate.
TEST_F(CustomRecoverableErrorTest, OtherCodesKeepTheirMeaning) {
  auto session = Make(FaultSchedule::AtCalls(
      {{1, ErrorCode::kUnavailable}, {3, ErrorCode::kInternal}}));
  EXPECT_EQ(Step(*session), 1);
  EXPECT_EQ(session->num_recoveries(), 1);
  EXPECT_THROW(Step(*session), InternalError);
}

// A creation failing with the chosen code is retried.
TEST_F(CustomRecoverableErrorTest, CreationRetriesTheChosenCode) {
  auto creations = FaultSchedule::AtCall(1, ErrorCode::kDeadlineExceeded);
  auto session = Make(FaultSchedule::Never(), creations);
  EXPECT_EQ(creations->calls(), 2);
  EXPECT_EQ(Step(*session), 1);
}

// A thread's error of the chosen code makes ShouldStop recover, not stop.
TEST_F(CustomRecoverableErrorTest, ShouldStopRecoversFromAThreadsError) {
  auto session = Make(FaultSchedule::Never());
  std::shared_ptr<Coordinator> coord = coordinated_->coord();
  auto thread = std::make_shared<CoordinatedThread>("slow storage", [coord] {
    coord->RequestStop(std::make_exception_ptr(DeadlineExceededError("storage timed out")));
  });
  coord->RegisterThread(thread);
  thread->Start();
  coord->WaitForStop();
  EXPECT_FALSE(session->ShouldStop());
  EXPECT_EQ(session->num_recoveries(), 1);
  EXPECT_NO_THROW(session->Close());
}

}  // namespace
}  // namespace mts
