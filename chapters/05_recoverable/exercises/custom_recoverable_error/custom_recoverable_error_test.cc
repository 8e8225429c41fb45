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
  std::unique_ptr<CustomRecoverableSession> Make(
      std::shared_ptr<FaultSchedule> runs,
      std::shared_ptr<FaultSchedule> creations = FaultSchedule::Never(), int max_in_a_row = 3) {
    auto faulty = std::make_shared<FaultySessionCreator>(std::make_shared<ChiefSessionCreator>(),
                                                         creations, runs);
    coordinated_ = std::make_shared<CoordinatedSessionCreator>(
        faulty, std::vector<std::shared_ptr<SessionRunHook>>{});
    return std::make_unique<CustomRecoverableSession>(coordinated_, ErrorCode::kDeadlineExceeded,
                                                      RecoveryOptions{}, max_in_a_row);
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
  auto session =
      Make(FaultSchedule::AtCalls({{1, ErrorCode::kUnavailable}, {3, ErrorCode::kInternal}}));
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

// A failure a restart does not cure: past the budget (3 in a row), the error reaches the
// caller as what it is, instead of recovery for ever.
TEST_F(CustomRecoverableErrorTest, ErrorsInARowPastTheBudgetReachTheCaller) {
  auto runs = FaultSchedule::AtCalls({{1, ErrorCode::kDeadlineExceeded},
                                      {2, ErrorCode::kDeadlineExceeded},
                                      {3, ErrorCode::kDeadlineExceeded},
                                      {4, ErrorCode::kDeadlineExceeded},
                                      {5, ErrorCode::kDeadlineExceeded}});
  auto session = Make(runs);
  EXPECT_THROW(Step(*session), DeadlineExceededError);
  EXPECT_EQ(session->num_recoveries(), 3);
  EXPECT_EQ(runs->calls(), 4);
}

// A successful run proves the failures were transient: the budget is whole again.
TEST_F(CustomRecoverableErrorTest, ASuccessfulRunRestoresTheBudget) {
  auto runs = FaultSchedule::AtCalls({{1, ErrorCode::kDeadlineExceeded},
                                      {2, ErrorCode::kDeadlineExceeded},
                                      {4, ErrorCode::kDeadlineExceeded},
                                      {5, ErrorCode::kDeadlineExceeded},
                                      {7, ErrorCode::kDeadlineExceeded},
                                      {8, ErrorCode::kDeadlineExceeded}});
  auto session = Make(runs, FaultSchedule::Never(), 2);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(Step(*session), 1);  // Each on a fresh model.
  EXPECT_EQ(session->num_recoveries(), 6);
}

// A creation that succeeds is not progress: creations and runs failing in turn spend one
// budget, and the error reaches the caller.
TEST_F(CustomRecoverableErrorTest, CreationsSpendTheSameBudget) {
  auto creations = FaultSchedule::AtCalls({{2, ErrorCode::kDeadlineExceeded}});
  auto runs = FaultSchedule::AtCalls({{1, ErrorCode::kDeadlineExceeded},
                                      {2, ErrorCode::kDeadlineExceeded},
                                      {3, ErrorCode::kDeadlineExceeded}});
  auto session = Make(runs, creations);
  // Run 1 fails (1), creation 2 fails (2), creation 3 succeeds, run 2 fails (3), creation 4
  // succeeds, and run 3 is one too many.
  EXPECT_THROW(Step(*session), DeadlineExceededError);
  EXPECT_EQ(creations->calls(), 4);
  EXPECT_EQ(runs->calls(), 3);
}

}  // namespace
}  // namespace mts
