// Reference solution for the RecoveryCounterHook exercise.
#include "chapters/05_recoverable/exercises/recovery_counter_hook/recovery_counter_hook.h"
#include "src/01_session/summary.pb.h"
#include "src/01_session/training_util.h"

namespace mts {

RecoveryCounterHook::RecoveryCounterHook(std::shared_ptr<FileWriter> writer)
    : writer_(std::move(writer)) {}

void RecoveryCounterHook::Begin() { step_read_ = GetOrCreateGlobalStepRead(); }

void RecoveryCounterHook::AfterCreateSession(SessionInterface&, Coordinator*) {
  // Nothing is counted and nothing is run here. A run here could be preempted, and any
  // hook after this one may still fail the creation: the recoverable layer then builds
  // another stack and calls this again, for the same recovery. Only a stack that is
  // handed a run was really created.
  new_stack_ = true;
}

SessionRunArgs RecoveryCounterHook::BeforeRun(SessionRunContext&) {
  SessionRunArgs args;
  if (!new_stack_) return args;
  new_stack_ = false;
  if (!served_before_) {
    served_before_ = true;  // The first stack in use: training starts, nothing recovered.
    return args;
  }
  ++recoveries_;
  if (writer_ == nullptr) return args;
  // The step the new stack starts from (restored, or 0), read within this run at no
  // extra cost; written in AfterRun, once the value is there.
  write_due_ = true;
  if (step_read_) args.fetches = {*step_read_};
  return args;
}

void RecoveryCounterHook::AfterRun(SessionRunContext&, const SessionRunValues& run_values) {
  if (!write_due_) return;
  write_due_ = false;
  const int64_t at = run_values.results.empty() ? 0 : run_values.results[0].scalar<int64_t>();
  tensorflow::Summary summary;
  tensorflow::Summary::Value* value = summary.add_value();
  value->set_tag("recoveries");
  value->set_simple_value(static_cast<float>(recoveries_));
  writer_->AddSummary(summary, at);
}

}  // namespace mts
