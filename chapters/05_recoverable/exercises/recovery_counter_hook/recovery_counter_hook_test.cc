// Tests of the RecoveryCounterHook exercise, in a real stage-05 stack whose runs are
// preempted by the fault-injection harness.
#include "chapters/05_recoverable/exercises/recovery_counter_hook/recovery_counter_hook.h"

#include "gtest/gtest.h"
#include "src/01_session/training_util.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/03_hooked/event_file_reader.h"
#include "src/04_coordinated/coordinated_session.h"
#include "src/05_recoverable/recoverable_session.h"
#include "src/platform/file_system.h"
#include "tests/testing/fault_injection.h"

namespace mts {
namespace {

class RecoveryCounterHookTest : public ::testing::Test {
 protected:
  // Recoverable(Coordinated(Hooked(Faulty(Chief)))) with `hook`; runs fail per `faults`.
  std::unique_ptr<RecoverableSession> Make(std::shared_ptr<RecoveryCounterHook> hook,
                                           std::shared_ptr<FaultSchedule> faults) {
    auto faulty = std::make_shared<FaultySessionCreator>(
        std::make_shared<ChiefSessionCreator>(), FaultSchedule::Never(), faults);
    return std::make_unique<RecoverableSession>(std::make_shared<CoordinatedSessionCreator>(
        faulty, std::vector<std::shared_ptr<SessionRunHook>>{hook}));
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

// With a writer, each new count is a "recoveries" scalar in the event file.
TEST_F(RecoveryCounterHookTest, WritesTheCountAsASummary) {
  const std::string dir = JoinPath(::testing::TempDir(), "recovery_counter");
  auto writer = std::make_shared<FileWriter>(dir);
  auto hook = std::make_shared<RecoveryCounterHook>(writer);
  auto session = Make(hook, FaultSchedule::AtCalls({{2, ErrorCode::kAborted},
                                                    {4, ErrorCode::kUnavailable}}));
  for (int i = 0; i < 4; ++i) session->Run(train_);
  writer->Close();
  std::vector<float> counts;
  for (const ScalarValue& v : ScalarSummaries(ReadEventDirectory(dir))) {
    if (v.tag == "recoveries") counts.push_back(v.simple_value);
  }
  EXPECT_EQ(counts, (std::vector<float>{1, 2}));
}

}  // namespace
}  // namespace mts
