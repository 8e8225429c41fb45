// Reference solution for the RecoveryCounterHook exercise.
#include "chapters/05_recoverable/exercises/recovery_counter_hook/recovery_counter_hook.h"

#include "src/01_session/learning/summary.pb.h"
#include "src/01_session/training_util.h"

namespace mts {

RecoveryCounterHook::RecoveryCounterHook(std::shared_ptr<FileWriter> writer)
    : writer_(std::move(writer)) {}

void RecoveryCounterHook::AfterCreateSession(SessionInterface& session, Coordinator* coord) {
  if (!started_) {
    started_ = true;  // The first stack: training starts, nothing was recovered.
    return;
  }
  ++recoveries_;
  if (writer_ == nullptr) return;
  // The step the new session starts from: the restored checkpoint's, or 0.
  std::optional<Variable> step = GetGlobalStep(session.graph());
  const int64_t at = step ? GlobalStepValue(session, step->value()) : 0;
  tensorflow::Summary summary;
  tensorflow::Summary::Value* value = summary.add_value();
  value->set_tag("recoveries");
  value->set_simple_value(static_cast<float>(recoveries_));
  writer_->AddSummary(summary, at);
}

}  // namespace mts
