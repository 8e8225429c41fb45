// crash_campaign: the crash campaign as one command (crash_campaign.h says what it does).
//
//   bazel run //tests/campaigns:crash_campaign -- --kills=200
//
// Prints the machine and the date, one line per completed run, then the figures. Exits 0 if
// no data was lost, every checkpoint read back whole, every process resumed at the newest
// checkpoint and every run's final model equals the uninterrupted run's bit for bit.
#include <sys/utsname.h>

#include <cstdlib>
#include <ctime>
#include <exception>
#include <iostream>
#include <string>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/usage.h"
#include "tests/campaigns/crash_campaign.h"
#include "tools/command_line.h"

ABSL_FLAG(int, kills, 200, "SIGKILLs to deliver.");
ABSL_FLAG(int64_t, steps, 300, "The step every run trains to.");
ABSL_FLAG(int64_t, save_every, 10, "The trainer's checkpoint period, in steps.");
ABSL_FLAG(uint64_t, seed, 20261130, "Seeds the kill moments.");
ABSL_FLAG(double, max_kill_fraction, 0.5,
          "Kill each process after a random share in [0, this) of the reference run's time.");
ABSL_FLAG(std::string, trainer, "tests/campaigns/crash_trainer",
          "The crash_trainer binary (the default is its place under `bazel run`).");
ABSL_FLAG(std::string, work_dir, "",
          "Where the runs' checkpoint directories go (default: $TMPDIR/mts_crash_campaign).");

namespace {

// "host (x86_64, 2 hardware threads), 2026-11-30 20:01 UTC": where and when the figures
// were made.
std::string MachineAndDate() {
  utsname u{};
  ::uname(&u);
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  return std::string(u.nodename) + " (" + u.sysname + " " + u.machine + ", " +
         std::to_string(std::thread::hardware_concurrency()) + " hardware threads), " + date;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Kills a training process with SIGKILL at seeded random moments, restarts it each "
      "time, and checks its checkpoints and its final model.");
  mts::ParseFlagsOnly(argc, argv);  // Flags only: any other argument is refused.
  mts::CrashCampaignOptions options;
  options.trainer = absl::GetFlag(FLAGS_trainer);
  options.kills = absl::GetFlag(FLAGS_kills);
  options.steps = absl::GetFlag(FLAGS_steps);
  options.save_every = absl::GetFlag(FLAGS_save_every);
  options.seed = absl::GetFlag(FLAGS_seed);
  options.max_kill_fraction = absl::GetFlag(FLAGS_max_kill_fraction);
  options.work_dir = absl::GetFlag(FLAGS_work_dir);
  if (options.work_dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    options.work_dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/mts_crash_campaign";
  }
  try {
    std::cout << "machine: " << MachineAndDate() << "\n";
    const mts::CrashCampaignReport report = mts::RunCrashCampaign(options, std::cout);
    mts::PrintCrashCampaignReport(options, report, std::cout);
    return report.problems.empty() ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "crash_campaign failed: " << e.what() << "\n";
    return 1;
  }
}
