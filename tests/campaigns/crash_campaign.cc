#include "tests/campaigns/crash_campaign.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include "src/platform/errors.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/platform/file_system.h"
#include "tests/campaigns/campaign_training.h"

extern char** environ;

namespace mts {
namespace {

using SteadyClock = std::chrono::steady_clock;

double SecondsSince(SteadyClock::time_point start) {
  return std::chrono::duration<double>(SteadyClock::now() - start).count();
}

// One line the trainer wrote: "saving 40" is {"saving", 40}.
struct TrainerLine {
  std::string what;
  int64_t step;
};

// A trainer process that was started, and how it ended.
struct TrainerLife {
  bool killed = false;             // Died of our SIGKILL (else exited 0).
  std::vector<TrainerLine> lines;  // Everything it wrote on stdout, in order.
};

// Starts the trainer on `dir` with its stdout on a pipe and its stderr appended to `log`;
// returns its pid and the pipe's read end.
std::pair<pid_t, int> StartTrainer(const CrashCampaignOptions& options, const std::string& dir,
                                   const std::string& log) {
  int fds[2];
  if (::pipe(fds) != 0) throw RuntimeError("crash campaign: pipe() failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  std::vector<std::string> args = {options.trainer, "--checkpoint_dir=" + dir,
                                   "--steps=" + std::to_string(options.steps),
                                   "--save_every=" + std::to_string(options.save_every)};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int error =
      ::posix_spawn(&pid, options.trainer.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (error != 0) {
    ::close(fds[0]);
    throw RuntimeError("crash campaign: cannot start the trainer " + options.trainer +
                       " (pass --trainer=PATH)");
  }
  return {pid, fds[0]};
}

// Runs one trainer process on `dir`: kills it after `kill_after` if given (else lets it
// finish), reaps it, and reads what it wrote. \throws RuntimeError if it exited with an error.
TrainerLife LiveOnce(const CrashCampaignOptions& options, const std::string& dir,
                     const std::string& log, std::optional<std::chrono::microseconds> kill_after) {
  auto [pid, out] = StartTrainer(options, dir, log);
  if (kill_after) {
    std::this_thread::sleep_for(*kill_after);  // The random moment itself, not a wait.
    ::kill(pid, SIGKILL);
  }
  // Read to the end first: a process that exits on its own may fill the pipe before it does.
  std::string text;
  char chunk[4096];
  for (ssize_t n; (n = ::read(out, chunk, sizeof(chunk))) > 0;) text.append(chunk, n);
  ::close(out);
  int status = 0;
  ::waitpid(pid, &status, 0);

  TrainerLife life;
  life.killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
  if (!life.killed && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
    throw RuntimeError("crash campaign: the trainer failed on its own (status " +
                       std::to_string(status) + "); its stderr is in " + log);
  }
  std::istringstream lines(text);
  for (TrainerLine line; lines >> line.what >> line.step;) life.lines.push_back(line);
  return life;
}

// How many temporary files of an atomic write (WriteFileAtomically's "<name>.tmp.<pid>.<n>")
// are left in `dir`: each is a write a kill cut short before its rename.
int CountTempFiles(const std::string& dir) {
  int count = 0;
  for (const std::string& name : DefaultFileSystem()->ListDirectory(dir)) {
    count += name.find(".tmp.") != std::string::npos;
  }
  return count;
}

// [mts:crash-campaign-inspect]
// The checks made after every process: the newest checkpoint, and every one the state
// file lists, read back under their checksums; nothing reported saved is missing. Returns
// the newest checkpoint's step (0 if there is none): where the next process must resume.
int64_t InspectDirectory(const std::string& dir, int64_t last_saved, CrashCampaignReport& r) {
  const std::optional<std::string> newest = LatestCheckpoint(dir);
  if (!newest) {
    if (last_saved >= 0) {
      ++r.data_lost;
      r.problems.push_back("no checkpoint in " + dir + " after step " + std::to_string(last_saved) +
                           " was reported saved");
    }
    return 0;
  }
  int64_t step = 0;
  try {
    step = VerifyCheckpoint(*newest);
    ++r.checkpoints_verified;
    const std::optional<CheckpointState> state = GetCheckpointState(dir);
    for (const std::string& path : state->all_model_checkpoint_paths) {
      if (path == *newest) continue;
      VerifyCheckpoint(path);
      ++r.checkpoints_verified;
    }
  } catch (const OpError& e) {
    ++r.corrupt_checkpoints;
    r.problems.push_back(e.what());
  }
  if (step < last_saved) {
    ++r.data_lost;
    r.problems.push_back("the newest checkpoint of " + dir + " is of step " + std::to_string(step) +
                         ", but step " + std::to_string(last_saved) + " was reported saved");
  }
  return step;
}
// [mts:crash-campaign-inspect-end]

}  // namespace

CrashCampaignReport RunCrashCampaign(const CrashCampaignOptions& options, std::ostream& log) {
  const SteadyClock::time_point campaign_start = SteadyClock::now();
  CrashCampaignReport r;
  DefaultFileSystem()->CreateDirectories(options.work_dir);
  const std::string trainer_log = JoinPath(options.work_dir, "trainer_stderr.log");

  // 1. The reference: one uninterrupted run.
  const std::string reference_dir = FreshDirectory(JoinPath(options.work_dir, "reference"));
  LiveOnce(options, reference_dir, trainer_log, std::nullopt);
  r.reference_seconds = SecondsSince(campaign_start);
  const std::optional<std::string> reference = LatestCheckpoint(reference_dir);
  if (!reference || VerifyCheckpoint(*reference) != options.steps) {
    throw RuntimeError("crash campaign: the uninterrupted run did not reach step " +
                       std::to_string(options.steps) + " in " + reference_dir);
  }

  // 2-4. Runs of killed processes, until the kills are done and the last run is finished.
  std::mt19937_64 rng(options.seed);
  std::uniform_real_distribution<double> fraction(0.0, options.max_kill_fraction);
  while (true) {
    const std::string dir =
        FreshDirectory(JoinPath(options.work_dir, "run_" + std::to_string(r.runs + 1)));
    int64_t resume_at = 0;    // Where the next process must start: the newest checkpoint.
    int64_t last_saved = -1;  // The newest save any process of this run reported complete.
    int processes = 0, kills = 0, kills_during_save = 0;
    std::string resumes;
    while (true) {
      if (++processes > 1000) throw RuntimeError("crash campaign: a run did not complete");
      ++r.processes;
      // [mts:crash-campaign-process]
      std::optional<std::chrono::microseconds> kill_after;
      if (r.kills < options.kills) {
        kill_after = std::chrono::microseconds(
            static_cast<int64_t>(fraction(rng) * r.reference_seconds * 1e6));
      }
      const TrainerLife life = LiveOnce(options, dir, trainer_log, kill_after);

      bool started = false, in_save = false;
      for (const TrainerLine& line : life.lines) {
        if (line.what == "start") {
          started = true;
          ++r.resumes_checked;
          resumes += " " + std::to_string(line.step);
          if (line.step != resume_at) {
            ++r.wrong_resumes;
            r.problems.push_back("a process started at step " + std::to_string(line.step) +
                                 ", the newest checkpoint was of step " +
                                 std::to_string(resume_at));
          }
        } else if (line.what == "saving") {
          in_save = true;
        } else if (line.what == "saved") {
          in_save = false;
          ++r.saves_reported;
          last_saved = std::max(last_saved, line.step);
        }
      }
      if (life.killed) {
        ++r.kills;
        ++kills;
        r.kills_before_start += !started;
        r.kills_during_save += in_save;
        kills_during_save += in_save;
      }
      resume_at = InspectDirectory(dir, last_saved, r);
      if (!life.killed) break;  // It reached the last step: the run is complete.
      // [mts:crash-campaign-process-end]
    }

    // The run is complete: its final model against the uninterrupted one's.
    const std::optional<std::string> final_checkpoint = LatestCheckpoint(dir);
    std::vector<std::string> differences = {"(no final checkpoint)"};
    if (final_checkpoint && resume_at == options.steps) {
      differences = CheckpointDifferences(*final_checkpoint, *reference);
    }
    const bool equal = differences.empty();
    (equal ? r.final_models_equal : r.final_models_different)++;
    if (!equal) {
      std::string names;
      for (const std::string& name : differences) names += " " + name;
      r.problems.push_back("run " + std::to_string(r.runs + 1) +
                           " differs from the reference in:" + names);
    }
    const int temp_files = CountTempFiles(dir);
    r.leftover_temp_files += temp_files;
    ++r.runs;
    log << "run " << r.runs << ": " << processes << " processes, " << kills << " killed ("
        << kills_during_save << " during a save), started at steps" << resumes << ", final step "
        << resume_at << ", " << temp_files
        << " temporary files left, bit-equal to the reference: " << (equal ? "yes" : "NO") << "\n";
    if (r.kills >= options.kills) break;
  }
  r.seconds = SecondsSince(campaign_start);
  return r;
}

void PrintCrashCampaignReport(const CrashCampaignOptions& options, const CrashCampaignReport& r,
                              std::ostream& out) {
  const bool all_equal = r.final_models_different == 0 && r.final_models_equal == r.runs;
  out << std::fixed << std::setprecision(2) << "crash campaign: " << options.kills
      << " SIGKILLs, seed " << options.seed << "; each run trains the spirals to step "
      << options.steps << " with a checkpoint every " << options.save_every << " steps\n"
      << "reference run (uninterrupted): " << r.reference_seconds
      << " s; each process is killed after a random share in [0, " << options.max_kill_fraction
      << ") of that\n"
      << "runs completed: " << r.runs << ", trainer processes started: " << r.processes << "\n"
      << "kills: " << r.kills << " (" << r.kills_before_start << " before the first step, "
      << r.kills_during_save << " during a checkpoint save)\n"
      << "saves reported complete: " << r.saves_reported
      << ", checkpoints read back under their checksums: " << r.checkpoints_verified << "\n"
      << "processes that resumed at the newest checkpoint: " << r.resumes_checked - r.wrong_resumes
      << " of " << r.resumes_checked << "\n"
      << "temporary files left by kills inside an atomic write: " << r.leftover_temp_files
      << " (never read: the rename did not happen)\n"
      << "corrupt checkpoints: " << r.corrupt_checkpoints << "\n"
      << "data lost: " << r.data_lost << "\n"
      << "final model equal to the uninterrupted run's, bit for bit: " << (all_equal ? "yes" : "NO")
      << " (" << r.final_models_equal << " of " << r.runs << " runs)\n"
      << "campaign time: " << r.seconds << " s\n";
  for (const std::string& problem : r.problems) out << "PROBLEM: " << problem << "\n";
}

}  // namespace mts
