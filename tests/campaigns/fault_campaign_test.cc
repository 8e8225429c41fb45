// The fault campaign, bounded: 2000 steps of the main example through MonitoredSession, its
// variables on a parameter server, while 0.5% of the calls of every phase fail with Aborted
// or Unavailable and the parameter server is killed before 0.5% of the raw runs. Training
// reaches its last step, every rebuilt session starts from the newest checkpoint or past it, faults
// struck every phase, the ps restarts reached the chief as the real errors of a RemoteSession,
// and the final model is the fault-free (in-process) run's, bit for bit. The full campaign is
// `bazel run //tests/campaigns:fault_campaign`.
#include "tests/campaigns/fault_campaign.h"

#include <cstdlib>
#include <iostream>
#include <map>
#include <string>

#include "gtest/gtest.h"
#include "src/platform/file_system.h"

namespace mts {
namespace {

// Faults at all eight phases, parameter-server restarts included, are survived, the work lost
// is redone, and the result is the fault-free result exactly.
TEST(FaultCampaignTest, FaultsAtEveryPhaseAndPsRestartsEndOnTheFaultFreeModel) {
  setenv("MTS_MIN_LOG_LEVEL", "2", /*overwrite=*/1);  // Hundreds of recoveries log at INFO.
  FaultCampaignOptions options;
  options.work_dir = JoinPath(std::getenv("TEST_TMPDIR"), "fault_campaign");
  options.steps = 2000;
  // A seed whose schedules strike all eight phases in 2000 steps. The faults the ps survives
  // keep the live model and cost at most a step, so a run makes only about 100 sessions, and
  // the once-per-session phases (creation, after_create_session) are called about 100 times:
  // at 0.5%, a seed can miss one of them (the default seed, 12, misses after_create_session).
  options.seed = 3;

  const FaultCampaignReport report = RunFaultCampaign(options);
  PrintFaultCampaignReport(options, report, std::cout);

  EXPECT_EQ(report.final_step, options.steps);
  ASSERT_EQ(report.phases.size(), 8u);
  for (const PhaseFaults& phase : report.phases) {
    int64_t faults = 0;
    for (const auto& [code, count] : phase.faults) {
      EXPECT_TRUE(IsPreemptionError(code)) << phase.phase;
      faults += count;
    }
    EXPECT_GT(faults, 0) << "no fault struck " << phase.phase;
  }
  // Without faults every step runs once; with them, the steps since the last checkpoint
  // are run again after each recovery.
  EXPECT_EQ(report.fault_free_train_ops_run, options.steps);
  EXPECT_GT(report.train_ops_run, options.steps);
  EXPECT_GE(report.steps_completed, options.steps);
  // One session, then one more per fault that reached the recoverable layer, at least.
  EXPECT_GT(report.sessions_created, report.faults / 2);
  EXPECT_GT(report.restores_checked, 0);

  // The ps was killed several times, and came back empty each time: once at the start, then
  // once per restart. Its restarts reached the stack as RemoteSession's own errors: one from
  // the run that met a ps that came back at once (Aborted: a new incarnation; Unavailable if
  // gRPC had not yet seen the old connection close), two Unavailable from one that stayed
  // down (the run, then the creation that found it down).
  const PhaseFaults& restarts = report.phases.back();
  EXPECT_EQ(restarts.phase, "ps restart, before a raw run");
  EXPECT_GE(report.ps_restarts, 5);
  EXPECT_EQ(report.ps_incarnations, report.ps_restarts + 1);
  auto count = [](const std::map<ErrorCode, int64_t>& counts, ErrorCode code) -> int64_t {
    return counts.count(code) ? counts.at(code) : 0;
  };
  const int64_t back_at_once = count(restarts.faults, ErrorCode::kAborted);
  const int64_t down_for_a_while = count(restarts.faults, ErrorCode::kUnavailable);
  EXPECT_EQ(back_at_once + down_for_a_while, report.ps_restarts);
  EXPECT_GT(back_at_once, 0);
  EXPECT_GT(down_for_a_while, 0);
  const int64_t aborted = count(report.ps_errors, ErrorCode::kAborted);
  const int64_t unavailable = count(report.ps_errors, ErrorCode::kUnavailable);
  EXPECT_EQ(report.ps_errors.size(), static_cast<size_t>((aborted > 0) + (unavailable > 0)));
  EXPECT_EQ(aborted + unavailable, back_at_once + 2 * down_for_a_while);
  EXPECT_GT(aborted, 0);
  EXPECT_GE(unavailable, 2 * down_for_a_while);
  // Every restart cost a session (the chief restored the newest checkpoint onto the new ps).
  EXPECT_GT(report.sessions_created, report.ps_restarts);
  EXPECT_EQ(report.restore_mismatches, 0);
  // A fault the ps survived kept the live model: some sessions started past the checkpoint.
  EXPECT_GT(report.sessions_past_checkpoint, 0);
  EXPECT_TRUE(report.model_differences.empty());
}

}  // namespace
}  // namespace mts
