// crash_campaign.h: a training process killed with SIGKILL at seeded random moments, again
// and again, each time restarted on the same checkpoint directory, until its run completes;
// then the final model is compared, bit for bit, with an uninterrupted run's.
//
//   RunCrashCampaign           <-- this file: starts, kills, inspects, restarts
//     crash_trainer            one process: MonitoredTrainingSession on the spirals
//       CheckpointSaverHook    Saver -> WriteCheckpoint -> FileSystem::WriteFileAtomically
//
// Stage 02 promises that a checkpoint survives a crash at any moment (the file and the state
// file are each replaced by one rename), and stage 06 that a resumed run computes what an
// uninterrupted one does (exact resume: the batch is a function of the global step). This
// campaign holds both promises to account with real processes and real kills:
//   1. An uninterrupted run of the trainer is the reference; its duration sets the scale of
//      the kill moments (a seeded fraction of it after each start).
//   2. Then, until `kills` kills are done: start the trainer, wait the random moment,
//      SIGKILL it, and inspect the directory. The newest checkpoint must read back under
//      every checksum, as must every checkpoint the state file lists; it must be at least as
//      new as the last save the process reported complete (data lost: none); the next
//      process must say it resumed from exactly that step.
//   3. A process that reaches the last step before its kill ends the run: its final
//      checkpoint must equal the reference's byte for byte; the next run starts afresh.
//   4. After the last kill, the run in progress is finished without kills and compared too.
// The kill moments are seeded, but where they land depends on the machine's speed; the
// report counts where they landed (during start-up, during a save) rather than predicting it.
//
// Thread safety: one call at a time; it spawns and reaps child processes.
#ifndef MTS_TESTS_CAMPAIGNS_CRASH_CAMPAIGN_H_
#define MTS_TESTS_CAMPAIGNS_CRASH_CAMPAIGN_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace mts {

/// What a crash campaign does.
struct CrashCampaignOptions {
  std::string trainer;       ///< The crash_trainer binary.
  std::string work_dir;      ///< Created if missing; each run gets a directory inside.
  int kills = 200;           ///< SIGKILLs to deliver.
  int64_t steps = 300;       ///< The step every run trains to.
  int64_t save_every = 10;   ///< The trainer's checkpoint period, in steps.
  uint64_t seed = 20261130;  ///< Seeds the kill moments.
  /// Each process is killed after a uniform random share, in [0, this), of the reference
  /// run's duration (start-up included).
  double max_kill_fraction = 0.5;
};

/// What a crash campaign saw. A campaign that succeeded has data_lost, corrupt_checkpoints,
/// wrong_resumes and final_models_different all zero.
struct CrashCampaignReport {
  int runs = 0;                       ///< Runs completed and compared with the reference.
  int processes = 0;                  ///< Trainer processes started (reference excluded).
  int kills = 0;                      ///< Processes that died of our SIGKILL.
  int kills_before_start = 0;         ///< ... before the process trained its first step.
  int kills_during_save = 0;          ///< ... between a "saving" line and its "saved".
  int64_t saves_reported = 0;         ///< Saves the processes reported complete.
  int checkpoints_verified = 0;       ///< Checkpoint files read back under their checksums.
  int resumes_checked = 0;            ///< Processes whose first step was checked.
  int wrong_resumes = 0;              ///< ... that did not resume at the newest checkpoint.
  int data_lost = 0;                  ///< Kills after which a reported save was missing.
  int corrupt_checkpoints = 0;        ///< Checkpoints that failed to read back.
  int leftover_temp_files = 0;        ///< *.tmp.* files a killed atomic write left behind.
  int final_models_equal = 0;         ///< Completed runs equal to the reference, bit for bit.
  int final_models_different = 0;     ///< Completed runs that were not.
  double reference_seconds = 0;       ///< The uninterrupted run's duration.
  double seconds = 0;                 ///< The whole campaign's duration.
  std::vector<std::string> problems;  ///< What went wrong, one line each.
};

/// Runs the campaign, writing one line per completed run to `log`.
/// \throws RuntimeError if the trainer cannot be started, exits with an error, or a run
///   does not complete within 1000 processes; the report so far is lost.
CrashCampaignReport RunCrashCampaign(const CrashCampaignOptions& options, std::ostream& log);

/// Prints the figures of `report`, as the campaign's command and the book show them.
void PrintCrashCampaignReport(const CrashCampaignOptions& options,
                              const CrashCampaignReport& report, std::ostream& out);

}  // namespace mts

#endif  // MTS_TESTS_CAMPAIGNS_CRASH_CAMPAIGN_H_
