// fault_campaign: the fault campaign as one command (fault_campaign.h says what it does).
//
//   bazel run //tests/campaigns:fault_campaign -- --steps=5000 --rate=0.005
//   bazel run //tests/campaigns:fault_campaign -- --ps_restart_rate=0.02   # more ps restarts
//
// Prints the faults injected by phase and code, the parameter-server restarts survived, the
// work redone, and whether the final model equals the fault-free run's bit for bit. Exits 0
// if training reached its last step, no session lost a saved step, and the two models are
// equal.
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/usage.h"
#include "tests/campaigns/fault_campaign.h"
#include "tools/command_line.h"

ABSL_FLAG(int64_t, steps, 5000, "The step both runs train to.");
ABSL_FLAG(int64_t, save_every, 20, "Checkpoint period, in steps.");
ABSL_FLAG(double, rate, 0.005, "Share of each phase's calls that fail.");
ABSL_FLAG(double, ps_restart_rate, -1,
          "Share of the raw runs before which the parameter server is killed and restarted "
          "(negative: --rate).");
ABSL_FLAG(uint64_t, seed, 12, "Seeds the fault schedules.");
ABSL_FLAG(std::string, work_dir, "",
          "Where the two runs' checkpoints go (default: $TMPDIR/mts_fault_campaign).");

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Trains through MonitoredSession, its variables on a parameter server, while random "
      "Aborted/Unavailable errors strike every phase and the parameter server is killed and "
      "restarted, and compares the result with a fault-free run.");
  mts::ParseFlagsOnly(argc, argv);  // Flags only: any other argument is refused.
  // Every recovery is logged at INFO; the figures below are the story.
  setenv("MTS_MIN_LOG_LEVEL", "2", /*overwrite=*/1);
  mts::FaultCampaignOptions options;
  options.steps = absl::GetFlag(FLAGS_steps);
  options.save_every = absl::GetFlag(FLAGS_save_every);
  options.rate = absl::GetFlag(FLAGS_rate);
  if (absl::GetFlag(FLAGS_ps_restart_rate) >= 0) {
    options.ps_restart_rate = absl::GetFlag(FLAGS_ps_restart_rate);
  }
  options.seed = absl::GetFlag(FLAGS_seed);
  options.work_dir = absl::GetFlag(FLAGS_work_dir);
  if (options.work_dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    options.work_dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/mts_fault_campaign";
  }
  try {
    const mts::FaultCampaignReport report = mts::RunFaultCampaign(options);
    mts::PrintFaultCampaignReport(options, report, std::cout);
    const bool ok = report.final_step == options.steps && report.restore_mismatches == 0 &&
                    report.model_differences.empty();
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "fault_campaign failed: " << e.what() << "\n";
    return 1;
  }
}
