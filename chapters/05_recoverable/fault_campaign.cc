// fault_campaign: trains a counter for 5000 steps through the whole stage-05 stack while
// seeded random preemptions strike 2% of the runs and 2% of the session creations, with a
// checkpoint every 10 steps, and prints what it survived, for chapter 05. The same
// campaign, with checks, is tests/05_recoverable/recovery_campaign_test.cc.
//
//   RecoverableSession -> CoordinatedSession -> HookedSession (CheckpointSaverHook)
//     -> FaultySession (2% of runs fail after running) -> Session from ChiefSessionCreator
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include "src/01_session/training_util.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/02_chief_worker/saver.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/03_hooked/hooks/checkpoint_saver_hook.h"
#include "src/04_coordinated/coordinated_session.h"
#include "src/05_recoverable/recoverable_session.h"
#include "src/platform/file_system.h"
#include "tests/testing/fault_injection.h"

int main() {
  using namespace mts;
  // Hundreds of saves and recoveries are logged at INFO; the numbers below are the story.
  setenv("MTS_MIN_LOG_LEVEL", "2", /*overwrite=*/1);
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = JoinPath(tmp != nullptr ? tmp : "/tmp",
                                   "mts_fault_campaign_" + std::to_string(getpid()));
  DefaultFileSystem()->CreateDirectories(dir);

  Graph graph;
  DefaultGraphScope as_default(graph);
  GetOrCreateGlobalStep();
  Output train = IncrementGlobalStep();
  GetSaverOrDefault();

  // [mts:fault-campaign-stack]
  const std::vector<ErrorCode> preemptions = {ErrorCode::kAborted, ErrorCode::kUnavailable};
  auto run_faults = FaultSchedule::Random(0.02, preemptions, /*seed=*/2024);
  auto creation_faults = FaultSchedule::Random(0.02, preemptions, /*seed=*/2025);
  CheckpointSaverHookOptions saving;
  saving.save_steps = 10;
  std::vector<std::shared_ptr<SessionRunHook>> hooks = {
      std::make_shared<CheckpointSaverHook>(dir, saving)};
  for (auto& hook : hooks) hook->Begin();
  ChiefSessionCreatorOptions chief;
  chief.checkpoint_dir = dir;
  auto counting = std::make_shared<CountingSessionCreator>(
      std::make_shared<ChiefSessionCreator>(nullptr, chief));
  auto faulty = std::make_shared<FaultySessionCreator>(counting, creation_faults, run_faults,
                                                       FaultTiming::kAfterRun);
  RecoverableSession session(std::make_shared<CoordinatedSessionCreator>(faulty, hooks));

  const int64_t target = 5000;
  int64_t step = 0, steps_run = 0;
  while (!session.ShouldStop() && step < target) {
    step = session.Run(train).scalar<int64_t>();
    ++steps_run;
  }
  // [mts:fault-campaign-stack-end]
  session.Close();
  SummaryWriterCache::Clear();
  std::filesystem::remove_all(dir);

  std::cout << "reached step " << step << " of " << target << "\n"
            << "runs: " << run_faults->calls() << ", run faults survived: "
            << run_faults->faults() << "\n"
            << "creation attempts: " << creation_faults->calls()
            << ", creation faults survived: " << creation_faults->faults() << "\n"
            << "recoveries: " << session.num_recoveries()
            << ", sessions created: " << counting->created() << "\n"
            << "steps run: " << steps_run << ", steps redone: " << steps_run - target << "\n";
  return step == target ? 0 : 1;
}
