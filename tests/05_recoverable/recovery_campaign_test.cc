// A seeded fault campaign: thousands of training steps through the whole stage-05 stack
// while random Aborted and Unavailable errors strike a fixed share of runs and of session
// creations. Training must reach its target step; every recovered model must equal the last
// checkpoint written; the test log reports what was survived and what was redone.
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "src/01_session/training_util.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/02_chief_worker/saver.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/03_hooked/hooks/checkpoint_saver_hook.h"
#include "src/03_hooked/hooks/checkpoint_saver_listener.h"
#include "src/04_coordinated/coordinated_session.h"
#include "src/05_recoverable/recoverable_session.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "tests/testing/fault_injection.h"

namespace mts {
namespace {

// Remembers the step of the last checkpoint written completely (AfterSave: the file and
// the state file are both on disk).
class LastSavedStep : public CheckpointSaverListener {
 public:
  bool AfterSave(SessionInterface&, int64_t step) override {
    step_ = step;
    return false;
  }
  int64_t step() const { return step_; }

 private:
  int64_t step_ = 0;  // No checkpoint yet: a new session starts at step 0.
};

// On every (re)created session, before anything runs, compares the model's step with the
// last checkpoint written: a recovered model must be exactly that checkpoint.
class RestoredStepCheck : public SessionRunHook {
 public:
  RestoredStepCheck(Output step, std::shared_ptr<LastSavedStep> saved)
      : step_(step), saved_(std::move(saved)) {}
  void AfterCreateSession(SessionInterface& session, Coordinator*) override {
    const int64_t now = GlobalStepValue(session, step_);
    ++sessions_checked;
    if (now != saved_->step()) ++mismatches;
    if (now < first_step_seen) first_step_seen = now;
  }
  int64_t sessions_checked = 0;
  int64_t mismatches = 0;
  int64_t first_step_seen = INT64_MAX;

 private:
  Output step_;
  std::shared_ptr<LastSavedStep> saved_;
};

struct Campaign {
  double rate;     // Share of runs, and of creations, that fail.
  uint64_t seed;
  int64_t target;  // Steps to train.
  int64_t save_every;
};

class RecoveryCampaignTest : public ::testing::TestWithParam<Campaign> {
 protected:
  ~RecoveryCampaignTest() override { SummaryWriterCache::Clear(); }
};

// [mts:fault-campaign]
TEST_P(RecoveryCampaignTest, TrainingReachesItsTargetThroughRandomPreemptions) {
  const Campaign& c = GetParam();
  Graph graph;
  DefaultGraphScope as_default(graph);
  Variable global_step = GetOrCreateGlobalStep();
  Output train = IncrementGlobalStep();  // The counter the train op increments.
  GetSaverOrDefault();

  static int count = 0;
  const std::string dir =
      JoinPath(::testing::TempDir(), "campaign_" + std::to_string(++count));
  DefaultFileSystem()->CreateDirectories(dir);

  const std::vector<ErrorCode> preemptions = {ErrorCode::kAborted, ErrorCode::kUnavailable};
  auto run_faults = FaultSchedule::Random(c.rate, preemptions, c.seed);
  auto creation_faults = FaultSchedule::Random(c.rate, preemptions, c.seed + 1);

  auto saved = std::make_shared<LastSavedStep>();
  auto check = std::make_shared<RestoredStepCheck>(global_step.value(), saved);
  CheckpointSaverHookOptions saving;
  saving.save_steps = c.save_every;
  saving.listeners = {saved};
  std::vector<std::shared_ptr<SessionRunHook>> hooks = {
      check, std::make_shared<CheckpointSaverHook>(dir, saving)};
  for (auto& hook : hooks) hook->Begin();

  ChiefSessionCreatorOptions chief;
  chief.checkpoint_dir = dir;
  auto counting = std::make_shared<CountingSessionCreator>(
      std::make_shared<ChiefSessionCreator>(nullptr, chief));
  // Run faults strike after the raw run: the step's update happened, then was lost.
  auto faulty = std::make_shared<FaultySessionCreator>(counting, creation_faults, run_faults,
                                                       FaultTiming::kAfterRun);
  RecoverableSession session(std::make_shared<CoordinatedSessionCreator>(faulty, hooks));

  int64_t step = 0, steps_run = 0;
  while (!session.ShouldStop() && step < c.target) {
    step = session.Run(train).scalar<int64_t>();
    ++steps_run;
  }
  run_faults->set_enabled(false);
  creation_faults->set_enabled(false);

  EXPECT_EQ(step, c.target);
  EXPECT_EQ(GlobalStepValue(session, global_step.value()), c.target);
  EXPECT_EQ(check->mismatches, 0) << "a recovered model differed from the last checkpoint";
  EXPECT_EQ(check->first_step_seen, 0);
  EXPECT_GT(session.num_recoveries(), 0);
  // A Run that fails is one recovery; so is a ShouldStop that finds a thread's error (none
  // here). Failed creations are retried inside a recovery and are not counted by it.
  EXPECT_LE(session.num_recoveries(), run_faults->faults());
  // Some sessions were made and then failed in a hook's AfterCreateSession: at least one
  // per recovery, plus the first.
  EXPECT_GE(counting->created(), session.num_recoveries() + 1);
  session.Close();

  const int64_t steps_redone = steps_run - c.target;
  std::cout << "fault campaign: rate " << c.rate << ", seed " << c.seed << ", " << c.target
            << " steps, checkpoint every " << c.save_every << " steps\n"
            << "  runs: " << run_faults->calls() << ", run faults survived: "
            << run_faults->faults() << "\n"
            << "  creation attempts: " << creation_faults->calls()
            << ", creation faults survived: " << creation_faults->faults() << "\n"
            << "  recoveries: " << session.num_recoveries()
            << ", sessions created: " << counting->created() << "\n"
            << "  steps run: " << steps_run << ", steps redone: " << steps_redone << "\n";
  RecordProperty("run_faults", std::to_string(run_faults->faults()));
  RecordProperty("creation_faults", std::to_string(creation_faults->faults()));
  RecordProperty("recoveries", std::to_string(session.num_recoveries()));
  RecordProperty("steps_redone", std::to_string(steps_redone));
}
// [mts:fault-campaign-end]

INSTANTIATE_TEST_SUITE_P(Seeded, RecoveryCampaignTest,
                         ::testing::Values(Campaign{0.02, 2024, 5000, 10},
                                           Campaign{0.05, 7, 3000, 10}),
                         [](const ::testing::TestParamInfo<Campaign>& info) {
                           return "Rate" + std::to_string(static_cast<int>(
                                               info.param.rate * 100 + 0.5)) +
                                  "Percent";
                         });

}  // namespace
}  // namespace mts
