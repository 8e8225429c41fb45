// The crash campaign, bounded: 20 SIGKILLs at seeded random moments into real training
// processes. Whatever the moments hit (start-up, a step, the middle of a save), no save that
// completed is lost, every checkpoint reads back under its checksums, every restart resumes
// at the newest checkpoint, and every run's final model is the uninterrupted run's, bit for
// bit. The full campaign is `bazel run //tests/campaigns:crash_campaign -- --kills=200`.
#include "tests/campaigns/crash_campaign.h"

#include <cstdlib>
#include <iostream>
#include <string>

#include "gtest/gtest.h"
#include "src/platform/file_system.h"

namespace mts {
namespace {

// Twenty kills; every figure that says "nothing was lost" is zero, every run completed and
// equals the reference.
TEST(CrashCampaignTest, TwentyKillsLoseNothingAndEndOnTheUninterruptedModel) {
  CrashCampaignOptions options;
  options.trainer = JoinPath(JoinPath(std::getenv("TEST_SRCDIR"), std::getenv("TEST_WORKSPACE")),
                             "tests/campaigns/crash_trainer");
  options.work_dir = JoinPath(std::getenv("TEST_TMPDIR"), "crash_campaign");
  options.kills = 20;

  const CrashCampaignReport report = RunCrashCampaign(options, std::cout);
  PrintCrashCampaignReport(options, report, std::cout);

  EXPECT_EQ(report.kills, 20);
  EXPECT_GE(report.runs, 1);
  EXPECT_EQ(report.processes, report.kills + report.runs);  // Each run ends unkilled.
  EXPECT_EQ(report.data_lost, 0);
  EXPECT_EQ(report.corrupt_checkpoints, 0);
  EXPECT_EQ(report.wrong_resumes, 0);
  EXPECT_GT(report.resumes_checked, 0);
  EXPECT_GT(report.checkpoints_verified, report.kills / 2);
  EXPECT_EQ(report.final_models_equal, report.runs);
  EXPECT_EQ(report.final_models_different, 0);
  EXPECT_TRUE(report.problems.empty());
}

}  // namespace
}  // namespace mts
