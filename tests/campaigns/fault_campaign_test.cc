// The fault campaign, bounded: 2000 steps of the main example through MonitoredSession while
// 0.5% of the calls of every phase fail with Aborted or Unavailable. Training reaches its
// last step, every rebuilt session starts from the newest checkpoint, faults struck every
// phase, and the final model is the fault-free run's, bit for bit. The full campaign is
// `bazel run //tests/campaigns:fault_campaign`.
#include "tests/campaigns/fault_campaign.h"

#include <cstdlib>
#include <iostream>
#include <string>

#include "gtest/gtest.h"
#include "src/platform/file_system.h"

namespace mts {
namespace {

// Faults at all seven phases are survived, the work lost is redone, and the result is the
// fault-free result exactly.
TEST(FaultCampaignTest, FaultsAtEveryPhaseEndOnTheFaultFreeModel) {
  setenv("MTS_MIN_LOG_LEVEL", "2", /*overwrite=*/1);  // Hundreds of recoveries log at INFO.
  FaultCampaignOptions options;
  options.work_dir = JoinPath(std::getenv("TEST_TMPDIR"), "fault_campaign");
  options.steps = 2000;

  const FaultCampaignReport report = RunFaultCampaign(options);
  PrintFaultCampaignReport(options, report, std::cout);

  EXPECT_EQ(report.final_step, options.steps);
  ASSERT_EQ(report.phases.size(), 7u);
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
  EXPECT_EQ(report.restore_mismatches, 0);
  EXPECT_TRUE(report.model_differences.empty());
}

}  // namespace
}  // namespace mts
