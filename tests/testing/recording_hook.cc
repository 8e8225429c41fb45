#include "tests/testing/recording_hook.h"

#include <utility>

#include "src/01_session/graph.h"
#include "src/01_session/training_util.h"

namespace mts {

RecordingHook::RecordingHook(std::string name, std::shared_ptr<std::vector<std::string>> log)
    : name_(std::move(name)), log_(std::move(log)) {}

void RecordingHook::Begin() {
  graph_finalized_at_begin = GetDefaultGraph().finalized();
  Record("Begin");
}

void RecordingHook::AfterCreateSession(SessionInterface& session, Coordinator* coord) {
  graph_finalized_at_create = session.graph()->finalized();
  sessions.push_back(&session);
  this->coord = coord;
  Record("AfterCreateSession");
  if (fail_in_after_create_session) {
    ThrowOpError(*fail_in_after_create_session, name_ + " failed in AfterCreateSession");
  }
}

SessionRunArgs RecordingHook::BeforeRun(SessionRunContext& run_context) {
  Record("BeforeRun");
  if (stop_in_before_run) run_context.RequestStop();
  return request;
}

void RecordingHook::AfterRun(SessionRunContext& run_context, const SessionRunValues& run_values) {
  Record("AfterRun");
  results = run_values.results;
  trace_level_seen = run_values.options.trace_level;
  metadata_seen = &run_values.run_metadata;
  if (stop_in_after_run) run_context.RequestStop();
  if (fail_in_after_run) ThrowOpError(*fail_in_after_run, name_ + " failed in AfterRun");
}

void RecordingHook::End(SessionInterface& session) {
  Record("End");
  if (fail_in_end) ThrowOpError(*fail_in_end, name_ + " failed in End");
  // A hook built for a graph without a step (a HookedSession test's) must not add one.
  if (std::optional<Variable> step = GetGlobalStep(session.graph())) {
    step_at_end = GlobalStepValue(session, *step);
  }
}

int RecordingHook::Count(const std::string& method) const {
  int n = 0;
  for (const std::string& entry : *log_) n += entry == name_ + "." + method;
  return n;
}

void RecordingHook::Record(const std::string& method) { log_->push_back(name_ + "." + method); }

}  // namespace mts
