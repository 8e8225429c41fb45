// Tests of the RecoveryCounterHook exercise, in a real stage-05 stack whose runs are
// preempted by the fault-injection harness.
#include "chapters/05_recoverable/exercises/recovery_counter_hook/recovery_counter_hook.h"

#include "gtest/gtest.h"
#include "src/01_session/training_util.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/03_hooked/events/event_file_reader.h"
#include "src/04_coordinated/coordinated_session.h"
#include "src/05_recoverable/recoverable_session.h"
#include "src/platform/file_system.h"
#include "tests/testing/fault_injection.h"

namespace mts {
namespace {

class RecoveryCounterHookTest : public ::testing::Test {
 protected:
  // Recoverable(Coordinated(Hooked(Faulty(Chief)))) with `hook` then `more` hooks; runs
  // fail per `faults`. Begin is called as MonitoredSession calls it.
  std::unique_ptr<RecoverableSession> Make(std::shared_ptr<RecoveryCounterHook> hook,
                                           std::shared_ptr<FaultSchedule> faults,
                                           std::vector<std::shared_ptr<SessionRunHook>> more = {}) {
    auto faulty = std::make_shared<FaultySessionCreator>(std::make_shared<ChiefSessionCreator>(),
                                                         FaultSchedule::Never(), faults);
    more.insert(more.begin(), hook);
    for (const auto& h : more) h->Begin();
    return std::make_unique<RecoverableSession>(
        std::make_shared<CoordinatedSessionCreator>(faulty, more));
  }
  Graph graph_;
  DefaultGraphScope scope_{graph_};
  Variable step_ = GetOrCreateGlobalStep();
  Output train_ = IncrementGlobalStep();
};

// The first session is no recovery.
TEST_F(RecoveryCounterHookTest, StartsAtZero) {
  auto hook = std::make_shared<RecoveryCounterHook>();
  auto session = Make(hook, FaultSchedule::Never());
  for (int i = 0; i < 5; ++i) session->Run(train_);
  EXPECT_EQ(hook->recoveries(), 0);
}

// Every rebuilt stack counts once: the hook agrees with the recoverable layer.
TEST_F(RecoveryCounterHookTest, CountsEachRecovery) {
  auto hook = std::make_shared<RecoveryCounterHook>();
  auto session = Make(hook, FaultSchedule::EveryKth(3, ErrorCode::kAborted));
  for (int i = 0; i < 10; ++i) session->Run(train_);
  EXPECT_EQ(session->num_recoveries(), 4);  // Runs 3, 6, 9 and 12 failed.
  EXPECT_EQ(hook->recoveries(), 4);
}

// With a writer, each new count is a "recoveries" scalar in the event file, at the step the
// recovered stack starts from (0 here: there is no checkpoint to restore).
TEST_F(RecoveryCounterHookTest, WritesTheCountAsASummary) {
  const std::string dir = JoinPath(::testing::TempDir(), "recovery_counter");
  auto writer = std::make_shared<FileWriter>(dir);
  auto hook = std::make_shared<RecoveryCounterHook>(writer);
  auto session =
      Make(hook, FaultSchedule::AtCalls({{3, ErrorCode::kAborted}, {5, ErrorCode::kUnavailable}}));
  for (int i = 0; i < 4; ++i) session->Run(train_);
  writer->Close();
  std::vector<float> counts;
  std::vector<int64_t> steps;
  for (const ScalarValue& v : ScalarSummaries(ReadEventDirectory(dir))) {
    if (v.tag != "recoveries") continue;
    counts.push_back(v.simple_value);
    steps.push_back(v.step);
  }
  EXPECT_EQ(counts, (std::vector<float>{1, 2}));
  EXPECT_EQ(steps, (std::vector<int64_t>{0, 0}));
}

// A creation that fails after the hook's AfterCreateSession (here a later hook is
// preempted) is retried with another stack: still one recovery, as the layer counts it.
TEST_F(RecoveryCounterHookTest, ACreationThatFailsLaterIsNotASecondRecovery) {
  auto hook = std::make_shared<RecoveryCounterHook>();
  auto later = std::make_shared<FaultyHook>(FaultyHook::Phase::kAfterCreateSession,
                                            FaultSchedule::AtCall(2, ErrorCode::kAborted));
  auto session = Make(hook, FaultSchedule::AtCall(3, ErrorCode::kAborted), {later});
  for (int i = 0; i < 5; ++i) session->Run(train_);
  EXPECT_EQ(later->after_create_session_calls(), 3);  // Three stacks were built...
  EXPECT_EQ(session->num_recoveries(), 1);            // ...for one recovery.
  EXPECT_EQ(hook->recoveries(), 1);
}

// The first stack can fail the same way: the stack that replaces it is the start of
// training, not a recovery.
TEST_F(RecoveryCounterHookTest, AFailedFirstCreationIsNotARecovery) {
  auto hook = std::make_shared<RecoveryCounterHook>();
  auto later = std::make_shared<FaultyHook>(FaultyHook::Phase::kAfterCreateSession,
                                            FaultSchedule::AtCall(1, ErrorCode::kUnavailable));
  auto session = Make(hook, FaultSchedule::Never(), {later});
  for (int i = 0; i < 3; ++i) session->Run(train_);
  EXPECT_EQ(later->after_create_session_calls(), 2);
  EXPECT_EQ(hook->recoveries(), 0);
}

// The hook adds no run of its own (a run in AfterCreateSession could itself be preempted
// and turn one recovery into two stacks): the faulty session sees only the caller's runs,
// two of them preempted in a row, and the hook counts two recoveries, as the layer does.
TEST_F(RecoveryCounterHookTest, AddsNoRunOfItsOwn) {
  const std::string dir = JoinPath(::testing::TempDir(), "recovery_counter_no_run");
  auto writer = std::make_shared<FileWriter>(dir);
  auto hook = std::make_shared<RecoveryCounterHook>(writer);
  auto faults = FaultSchedule::AtCalls({{2, ErrorCode::kAborted}, {3, ErrorCode::kAborted}});
  auto session = Make(hook, faults);
  for (int i = 0; i < 4; ++i) session->Run(train_);
  writer->Close();
  EXPECT_EQ(faults->calls(), 6);  // Four runs; the second one tried three times.
  EXPECT_EQ(session->num_recoveries(), 2);
  EXPECT_EQ(hook->recoveries(), 2);
}

}  // namespace
}  // namespace mts
