#include "tests/campaigns/fault_campaign.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <memory>
#include <optional>

#include "src/01_session/graph.h"
#include "src/01_session/training_util.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/02_chief_worker/chief_session_creator.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/03_hooked/hooks/stop_at_step_hook.h"
#include "src/03_hooked/wrapped_session.h"
#include "src/06_monitored/monitored_session.h"
#include "src/06_monitored/monitored_training_session.h"
#include "src/07_distributed/cluster_spec.h"
#include "src/07_distributed/replica_device_setter.h"
#include "src/07_distributed/server.h"
#include "src/platform/file_system.h"
#include "tests/campaigns/campaign_training.h"
#include "tests/testing/fault_injection.h"
#include "tests/testing/faulty_thread_hook.h"

namespace mts {
namespace {

// Counts the runs of the session below that executed `train_op` and returned: the updates
// that really happened, whether or not a fault above then lost them.
class TrainOpCounter : public WrappedSession {
 public:
  TrainOpCounter(std::unique_ptr<SessionInterface> inner, Operation* train_op, int64_t* count)
      : WrappedSession(std::move(inner)), train_op_(train_op), count_(count) {}

  using WrappedSession::Run;
  std::vector<Tensor> Run(const std::vector<Output>& fetches, const FeedDict& feeds,
                          const std::vector<Operation*>& targets, const RunOptions& options,
                          RunMetadata* run_metadata) override {
    std::vector<Tensor> out = WrappedSession::Run(fetches, feeds, targets, options, run_metadata);
    *count_ += std::count(targets.begin(), targets.end(), train_op_);
    return out;
  }

 private:
  Operation* train_op_;
  int64_t* count_;
};

// Checks every session the stack creates, before any other hook works on it: its global
// step must not be before the newest checkpoint's on disk (0 before the first), or the
// recovery lost work that had been saved. After a ps restart the chief restores that
// checkpoint, and the step is the checkpoint's; after a fault the ps survived, the chief
// keeps the live model the ps held (SessionManager: the same ps processes), and the step is
// the checkpoint's or past it. Given to MonitoredTrainingSessionHooks as a chief-only hook,
// which comes before the CheckpointSaverHook (whose AfterCreateSession saves).
class RestoreCheckHook : public SessionRunHook {
 public:
  RestoreCheckHook(std::string dir, Output global_step)
      : dir_(std::move(dir)), global_step_(global_step) {}
  void AfterCreateSession(SessionInterface& session, Coordinator*) override {
    const std::optional<std::string> newest = LatestCheckpoint(dir_);
    const int64_t on_disk = newest ? VerifyCheckpoint(*newest) : 0;
    const int64_t restored = GlobalStepValue(session, global_step_);
    ++checked;
    mismatches += restored < on_disk;
    past_checkpoint += restored > on_disk;
  }
  int64_t checked = 0;
  int64_t mismatches = 0;
  int64_t past_checkpoint = 0;

 private:
  std::string dir_;
  Output global_step_;
};

// The distributed run's parameter server, /job:ps/task:0: a Server in this process on a port
// of 127.0.0.1 that stays the same across restarts, as a restarted ps task keeps its address
// in the cluster spec. Killed and started again as its schedule says; each restart loses all
// the variables the ps held. Also tallies the errors the sessions got from it.
class RestartingPs {
 public:
  explicit RestartingPs(std::shared_ptr<FaultSchedule> schedule) : schedule_(std::move(schedule)) {
    Start();
  }

  // The master of the chief's sessions: a RemoteSession whose only ps task is this server.
  std::string target() const { return "grpc://" + address_; }

  // [mts:fault-campaign-ps-restart]
  // Before a raw run: kills the ps if the schedule says so. Aborted: a new ps starts at once
  // and the run meets its new incarnation. Unavailable: it stays down, so the run finds no
  // server, and so does the next session creation (BeforeCreation).
  void BeforeRawRun() {
    const std::optional<ErrorCode> restart = schedule_->Next();
    if (!restart) return;
    ++restarts_;
    server_.reset();  // Its VariableStore, every variable the job had, is gone.
    if (*restart == ErrorCode::kAborted) Start();
  }

  // Before a session creation: a ps that is down lets one creation find it down (the
  // RemoteSession's UnavailableError, which RecoverableSession retries), then comes back.
  void BeforeCreation() {
    if (server_ != nullptr) return;
    if (!refused_a_creation_) {
      refused_a_creation_ = true;
      return;
    }
    Start();
  }
  // [mts:fault-campaign-ps-restart-end]

  // Counts an error a RemoteSession raised, by code.
  void Saw(const OpError& error) { ++errors_[error.code()]; }

  int64_t restarts() const { return restarts_; }
  int64_t incarnations() const { return incarnations_; }
  const std::map<ErrorCode, int64_t>& errors() const { return errors_; }

 private:
  // [mts:fault-campaign-ps-start]
  void Start() {
    server_ = std::make_unique<Server>(ClusterSpec({{"ps", {address_}}}), "ps", 0);
    address_ = "127.0.0.1:" + std::to_string(server_->port());  // Port 0 the first time only.
    ++incarnations_;
    refused_a_creation_ = false;
  }
  // [mts:fault-campaign-ps-start-end]

  std::shared_ptr<FaultSchedule> schedule_;
  std::string address_ = "127.0.0.1:0";
  std::unique_ptr<Server> server_;
  bool refused_a_creation_ = false;
  int64_t restarts_ = 0;
  int64_t incarnations_ = 0;
  std::map<ErrorCode, int64_t> errors_;
};

// The bottom of the distributed run's stack: gives the ps its chance to die before each raw
// run, and tallies the errors the RemoteSession below raises.
class PsRestartingSession : public WrappedSession {
 public:
  PsRestartingSession(std::unique_ptr<SessionInterface> inner, RestartingPs* ps)
      : WrappedSession(std::move(inner)), ps_(ps) {}

  using WrappedSession::Run;
  std::vector<Tensor> Run(const std::vector<Output>& fetches, const FeedDict& feeds,
                          const std::vector<Operation*>& targets, const RunOptions& options,
                          RunMetadata* run_metadata) override {
    ps_->BeforeRawRun();
    try {
      return WrappedSession::Run(fetches, feeds, targets, options, run_metadata);
    } catch (const OpError& error) {
      ps_->Saw(error);
      throw;
    }
  }

 private:
  RestartingPs* ps_;
};

// The schedules of the eight phases, bottom of the stack first.
struct Schedules {
  std::shared_ptr<FaultSchedule> creation, raw_before, raw_after, after_create_session, before_run,
      after_run, thread, ps_restart;

  std::vector<std::pair<std::string, FaultSchedule*>> Named() const {
    return {{"creation", creation.get()},
            {"raw run, before the update", raw_before.get()},
            {"raw run, after the update", raw_after.get()},
            {"after_create_session", after_create_session.get()},
            {"before_run", before_run.get()},
            {"after_run", after_run.get()},
            {"input thread (coordinator)", thread.get()},
            {"ps restart, before a raw run", ps_restart.get()}};
  }
};

Schedules MakeSchedules(double rate, double ps_restart_rate, uint64_t seed) {
  const std::vector<ErrorCode> preemptions = {ErrorCode::kAborted, ErrorCode::kUnavailable};
  auto random = [&](uint64_t i, double r) {
    return FaultSchedule::Random(r, preemptions, seed + i);
  };
  return {random(0, rate), random(1, rate), random(2, rate), random(3, rate),
          random(4, rate), random(5, rate), random(6, rate), random(7, ps_restart_rate)};
}

// What one run of the campaign's training did.
struct RunResult {
  int64_t final_step = 0;
  int64_t steps_completed = 0;
  int64_t train_ops_run = 0;
  int64_t sessions_created = 0;
  int64_t restores_checked = 0;
  int64_t restore_mismatches = 0;
  int64_t sessions_past_checkpoint = 0;
  std::string final_checkpoint;
  double seconds = 0;
};

// Trains the spirals to `options.steps` in `dir` through MonitoredSession, with the faults
// `schedules` inject (a rate of 0 injects none), on the parameter server `ps` if not null
// (else in an in-process Session).
// [mts:fault-campaign-06-stack]
RunResult Train(const FaultCampaignOptions& options, const std::string& dir,
                const Schedules& faults, RestartingPs* ps) {
  const auto start = std::chrono::steady_clock::now();
  Graph graph;
  DefaultGraphScope as_default(graph);
  SpiralsModel model;
  {
    // On a ps, every global variable lives there: the weights, Adam's slots, the step.
    std::optional<ReplicaDeviceSetter> on_ps;
    if (ps != nullptr) on_ps.emplace(/*ps_tasks=*/1);
    model = BuildSpiralsModel(kCampaignLearningRate);
  }
  SpiralsBatches batches(SpiralsTrainingData(), kCampaignBatchSize, kCampaignBatchSeed);
  RunResult result;

  // The hooks MonitoredTrainingSession would make, with the faulty ones among `hooks`.
  MonitoredTrainingSessionOptions training;
  training.checkpoint_dir = dir;
  training.save_checkpoint_steps = options.save_every;
  training.save_summaries_steps = 0;
  training.log_step_count_steps = 0;
  training.stop_on_signals = false;
  auto restore_check = std::make_shared<RestoreCheckHook>(dir, model.global_step.value());
  training.chief_only_hooks = {restore_check};
  training.hooks = {StopAtStepHook::AtLastStep(options.steps),
                    std::make_shared<FaultyHook>(FaultyHook::Phase::kAfterCreateSession,
                                                 faults.after_create_session),
                    std::make_shared<FaultyHook>(FaultyHook::Phase::kBeforeRun, faults.before_run),
                    std::make_shared<FaultyHook>(FaultyHook::Phase::kAfterRun, faults.after_run),
                    std::make_shared<FaultyThreadHook>(faults.thread)};
  auto scaffold = std::make_shared<Scaffold>();
  MonitoredSession::Hooks hooks = MonitoredTrainingSessionHooks(training, scaffold);

  // The creator MonitoredTrainingSession would use (its master the ps, if any), wrapped in
  // the faulty layers.
  ChiefSessionCreatorOptions chief_options;
  chief_options.master = ps ? ps->target() : "";
  chief_options.checkpoint_dir = dir;
  auto chief = std::make_shared<ChiefSessionCreator>(scaffold, chief_options);
  auto counted = std::make_shared<FunctionSessionCreator>([&] {
    std::unique_ptr<SessionInterface> raw;
    if (ps == nullptr) {
      raw = chief->CreateSession();
    } else {
      ps->BeforeCreation();
      try {
        raw = std::make_unique<PsRestartingSession>(chief->CreateSession(), ps);
      } catch (const OpError& error) {  // The ps was down: a real UnavailableError.
        ps->Saw(error);
        throw;
      }
    }
    ++result.sessions_created;
    return std::make_unique<TrainOpCounter>(std::move(raw), model.train_op, &result.train_ops_run);
  });
  auto before = std::make_shared<FaultySessionCreator>(counted, faults.creation, faults.raw_before,
                                                       FaultTiming::kBeforeRun);
  auto after = std::make_shared<FaultySessionCreator>(before, nullptr, faults.raw_after,
                                                      FaultTiming::kAfterRun);

  MonitoredSession session(after, hooks);
  result.steps_completed = TrainSpirals(session, model, batches);
  for (const auto& [phase, schedule] : faults.Named()) schedule->set_enabled(false);
  session.Close();  // Hooks' End: the final checkpoint.
  // [mts:fault-campaign-06-stack-end]
  SummaryWriterCache::Clear();

  result.restores_checked = restore_check->checked;
  result.restore_mismatches = restore_check->mismatches;
  result.sessions_past_checkpoint = restore_check->past_checkpoint;
  result.final_checkpoint = LatestCheckpoint(dir).value_or("");
  result.final_step =
      result.final_checkpoint.empty() ? 0 : VerifyCheckpoint(result.final_checkpoint);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

// "ABORTED 3, UNAVAILABLE 2", or "" for none.
std::string CodeCounts(const std::map<ErrorCode, int64_t>& counts) {
  std::string text;
  for (const auto& [code, count] : counts) {
    text +=
        std::string(text.empty() ? "" : ", ") + ErrorCodeName(code) + " " + std::to_string(count);
  }
  return text;
}

}  // namespace

FaultCampaignReport RunFaultCampaign(const FaultCampaignOptions& options) {
  const RunResult fault_free =
      Train(options, FreshDirectory(JoinPath(options.work_dir, "fault_free")),
            MakeSchedules(0.0, 0.0, options.seed), /*ps=*/nullptr);
  const Schedules faults =
      MakeSchedules(options.rate, options.ps_restart_rate.value_or(options.rate), options.seed);
  RestartingPs ps(faults.ps_restart);
  const RunResult faulty =
      Train(options, FreshDirectory(JoinPath(options.work_dir, "faulty")), faults, &ps);

  FaultCampaignReport report;
  for (const auto& [phase, schedule] : faults.Named()) {
    report.phases.push_back({phase, schedule->calls(), schedule->faults_by_code()});
    report.faults += schedule->faults();
  }
  report.final_step = faulty.final_step;
  report.steps_completed = faulty.steps_completed;
  report.train_ops_run = faulty.train_ops_run;
  report.fault_free_train_ops_run = fault_free.train_ops_run;
  report.sessions_created = faulty.sessions_created;
  report.ps_restarts = ps.restarts();
  report.ps_incarnations = ps.incarnations();
  report.ps_errors = ps.errors();
  report.restores_checked = faulty.restores_checked;
  report.restore_mismatches = faulty.restore_mismatches + fault_free.restore_mismatches;
  report.sessions_past_checkpoint = faulty.sessions_past_checkpoint;
  if (faulty.final_checkpoint.empty() || fault_free.final_checkpoint.empty()) {
    report.model_differences = {"(no final checkpoint)"};
  } else {
    report.model_differences =
        CheckpointDifferences(faulty.final_checkpoint, fault_free.final_checkpoint);
  }
  report.fault_free_seconds = fault_free.seconds;
  report.seconds = faulty.seconds;
  return report;
}

void PrintFaultCampaignReport(const FaultCampaignOptions& options, const FaultCampaignReport& r,
                              std::ostream& out) {
  out << std::fixed << std::setprecision(2) << "fault campaign: " << options.steps
      << " steps of the spirals through MonitoredSession, variables on a parameter server over "
         "gRPC, checkpoint every "
      << options.save_every << " steps; every phase fails " << options.rate * 100
      << "% of its calls, the ps is killed before "
      << options.ps_restart_rate.value_or(options.rate) * 100 << "% of the raw runs (seed "
      << options.seed << ")\n"
      << "faults injected and survived, by phase:\n";
  for (const PhaseFaults& phase : r.phases) {
    int64_t total = 0;
    for (const auto& [code, count] : phase.faults) total += count;
    const std::string codes = CodeCounts(phase.faults);
    out << "  " << std::left << std::setw(30) << phase.phase << std::right << std::setw(6) << total
        << " of " << std::setw(6) << phase.calls << " calls"
        << (codes.empty() ? "" : " (" + codes + ")") << "\n";
  }
  const int64_t redone = r.train_ops_run - r.fault_free_train_ops_run;
  const std::string ps_errors = CodeCounts(r.ps_errors);
  out << "  total                         " << std::setw(6) << r.faults << "\n"
      << "parameter server restarts survived: " << r.ps_restarts << " (the ps started "
      << r.ps_incarnations << " times, empty each time); errors the sessions got from the ps: "
      << (ps_errors.empty() ? "none" : ps_errors) << "\n"
      << "raw sessions created: " << r.sessions_created
      << " (re-created: " << std::max<int64_t>(0, r.sessions_created - 1) << ")\n"
      << "final step: " << r.final_step << " of " << options.steps << "\n"
      << "train steps executed: " << r.train_ops_run
      << " (fault-free: " << r.fault_free_train_ops_run << "), steps redone: " << redone << " ("
      << 100.0 * redone / std::max<int64_t>(1, r.fault_free_train_ops_run) << "% more work)\n"
      << "sessions that started from the newest checkpoint on disk or past it: "
      << r.restores_checked - r.restore_mismatches << " of " << r.restores_checked
      << " (past it, the live model the ps kept: " << r.sessions_past_checkpoint
      << "); data lost: " << r.restore_mismatches << "\n"
      << "final model equal to the fault-free run's, bit for bit: "
      << (r.model_differences.empty() ? "yes" : "NO") << "\n";
  for (const std::string& name : r.model_differences) out << "  differs: " << name << "\n";
}

}  // namespace mts
