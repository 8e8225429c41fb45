// fault_campaign.h: thousands of training steps through the whole MonitoredSession stack,
// its variables on a parameter server, while seeded random Aborted and Unavailable errors
// strike every phase of it and the parameter server is killed and restarted again and again;
// training must reach its last step, and its final model must equal a fault-free run's, bit
// for bit.
//
//   MonitoredSession                   recovers: rebuilds the stack, restores the checkpoint
//     RecoverableSession
//       CoordinatedSession             <- an input thread's error (FaultyThreadHook)
//         HookedSession                <- after_create_session, before_run, after_run
//           FaultySession (after)      <- a raw run, after the session below ran it
//             FaultySession (before)   <- a raw run, before the session below runs it
//               TrainOpCounter         counts the train op's real executions
//                 PsRestartingSession  <- the ps is killed before a raw run (ps restart)
//                   RemoteSession      from ChiefSessionCreator ("grpc://") <- creation
//                     Server           /job:ps/task:0 in this process, 127.0.0.1, one port
//
// Chapter 05's campaign (chapters/05_recoverable/fault_campaign.cc) strikes the stage-05
// stack with faults at creation and after raw runs, on a counter. This one goes further: the
// stack is MonitoredSession with MonitoredTrainingSession's own default hooks
// (MonitoredTrainingSessionHooks: a CheckpointSaverHook every `save_every` steps), the
// model and loop are the main example's, and faults strike all eight phases at once, each
// phase with its own schedule at `rate` of its calls (the ps restarts at `ps_restart_rate`,
// by default the same). "Raw runs" are every run of the session below the hooks: the loop's
// reads of the global step, the train step, the saver's reads.
//
// The eighth phase is not an injected error but a real failure: the faulty run is a
// distributed job (stage 07) whose global variables, the optimizer's slots and the global
// step included, live on a parameter server placed by ReplicaDeviceSetter, and before the
// raw runs its schedule picks the ps is killed, losing every variable. Half the time (the
// drawn code) it comes back at once, and the run meets its new incarnation: RemoteSession
// raises AbortedError. Otherwise it stays down until a session creation has found it down:
// the run, then that creation, raise UnavailableError. Either way the chief's
// RecoverableSession makes a new RemoteSession, ChiefSessionCreator restores the newest
// checkpoint onto the new ps, and the steps since that checkpoint are redone. The injected
// faults of the other seven phases leave the ps running: there the new session finds the
// same ps process, and the chief keeps the live model it holds (SessionManager), so such a
// fault costs at most the step it struck.
//
// Why the ps runs in this process and not as a child killed with SIGKILL (as
// tests/07_distributed/multi_process_test.cc does): what the worker sees is the same (a real
// gRPC server on a real port closes its connections and comes back empty, with a new
// incarnation), but a restart between two raw runs of the one training thread is a seeded
// call number, not a moment: the run is deterministic and its figures are the same on every
// machine, like the other seven phases', and a restart costs milliseconds, not a process
// start. A kill in the middle of an RPC is the multi-process test's subject.
//
// Every fault is recovered from the newest checkpoint or from the live model past it, and the
// batch of a step is a function of the global step, so the steps redone compute exactly what
// they computed the first time: the final model must be the fault-free run's, bit for bit. The
// campaign runs that fault-free run first, in the same process and without a parameter server (a
// plain in-process Session), and compares: equality then also says that the distributed runtime
// computes the local kernels' bits. The final close runs with the faults switched off:
// closing does not recover (TensorFlow's does not either), and a job that failed its close
// would restart from its last checkpoint, which is crash_campaign's subject.
//
// Thread safety: one call at a time (it uses the default graph of the calling thread); the
// parameter server takes a free port of 127.0.0.1, so campaigns in different processes may
// run side by side.
#ifndef MTS_TESTS_CAMPAIGNS_FAULT_CAMPAIGN_H_
#define MTS_TESTS_CAMPAIGNS_FAULT_CAMPAIGN_H_

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "src/platform/errors.h"

namespace mts {

/// What a fault campaign does.
struct FaultCampaignOptions {
  std::string work_dir;     ///< Created if missing; the two runs' checkpoints go inside.
  int64_t steps = 5000;     ///< The step both runs train to.
  int64_t save_every = 20;  ///< Checkpoint period in steps (save_checkpoint_steps).
  double rate = 0.005;      ///< Share of each phase's calls that fail.
  /// Share of the raw runs before which the ps is killed; nullopt: `rate`.
  std::optional<double> ps_restart_rate;
  uint64_t seed = 12;  ///< Seeds the schedules (phase i uses seed + i).
};

/// One phase's calls and the faults injected into them.
struct PhaseFaults {
  std::string phase;                    ///< Where in the stack, e.g. "before_run".
  int64_t calls = 0;                    ///< Calls counted, faulty ones included.
  std::map<ErrorCode, int64_t> faults;  ///< Faults injected, by code.
};

/// What a fault campaign saw.
struct FaultCampaignReport {
  /// The eight phases, bottom of the stack first; the last is the ps restarts, counted over
  /// raw runs, by the error the restart is meant to raise (Aborted: back at once;
  /// Unavailable: down until a creation found it down).
  std::vector<PhaseFaults> phases;
  int64_t faults = 0;                    ///< All faults injected, all phases.
  int64_t final_step = 0;                ///< The faulty run's global step at the end.
  int64_t steps_completed = 0;           ///< Steps whose run returned to the loop.
  int64_t train_ops_run = 0;             ///< Train-op executions in a raw session.
  int64_t fault_free_train_ops_run = 0;  ///< The same in the fault-free run.
  int64_t sessions_created = 0;          ///< Raw sessions made (the first included).
  int64_t ps_restarts = 0;               ///< Times the ps was killed and started again.
  int64_t ps_incarnations = 0;           ///< Parameter servers started (the first included).
  /// Errors the RemoteSessions raised (runs and creations), by code: what the restarts did.
  std::map<ErrorCode, int64_t> ps_errors;
  int64_t restores_checked = 0;  ///< Sessions whose step was checked on creation.
  /// Sessions (of either run) whose step was before the newest checkpoint's: data lost.
  int64_t restore_mismatches = 0;
  /// Sessions that started past the newest checkpoint: the chief kept the live model, which
  /// the ps held through a fault it survived.
  int64_t sessions_past_checkpoint = 0;
  std::vector<std::string> model_differences;  ///< Tensors differing from the fault-free run.
  double fault_free_seconds = 0;               ///< The fault-free run's duration.
  double seconds = 0;                          ///< The faulty run's duration.
};

/// Trains fault-free, then with faults, and compares the two final checkpoints.
/// \throws whatever the stack raises that it does not recover from (a campaign failure).
FaultCampaignReport RunFaultCampaign(const FaultCampaignOptions& options);

/// Prints the figures of `report`, as the campaign's command and the book show them.
void PrintFaultCampaignReport(const FaultCampaignOptions& options,
                              const FaultCampaignReport& report, std::ostream& out);

}  // namespace mts

#endif  // MTS_TESTS_CAMPAIGNS_FAULT_CAMPAIGN_H_
