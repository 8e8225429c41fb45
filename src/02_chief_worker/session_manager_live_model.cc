// SessionManager and a model that outlives its sessions (beyond TensorFlow): on a remote
// master the variables live on parameter servers, which keep them across the chief's
// sessions, and the chief must tell three cases apart before it writes the model:
//
//   the servers are those it wrote the model on, unchanged   a slow ps that missed an RPC
//                                                            deadline, not a restarted one:
//                                                            keep the model as it is
//   the servers hold variables someone else wrote            another job naming the same ps,
//                                                            or this job before its chief
//                                                            restarted: never initialise
//                                                            over it (a restore is
//                                                            TensorFlow's, and warned of)
//   the servers are new (a restarted ps) or hold nothing     restore or initialise, as
//                                                            TensorFlow does
//
// "The servers it wrote the model on" are named by Session::variables_incarnation(): the
// ps tasks with their incarnations, drawn anew by each ps process. It is noted just before
// a restore or an init runs, so a write cut short by an error is still this manager's own
// and may be redone.
#include <algorithm>
#include <string>
#include <vector>

#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/session_manager.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {

// [mts:keeps-model-it-wrote]
bool SessionManager::KeepsModelItWrote(const std::string& master, Session& session) const {
  const std::string servers = session.variables_incarnation();
  if (servers.empty()) return false;  // In process: every session starts empty.
  {
    std::lock_guard<std::mutex> lock(written_mu_);
    auto it = written_.find(master);
    if (it == written_.end() || it->second != servers) return false;
  }
  // The same processes: they kept what this manager wrote and the workers trained since.
  // Unless that write was cut short (the model is not ready), restoring would only roll
  // the model back to the last checkpoint.
  const std::optional<LiveModel> live = LiveModelOn(master, session);
  if (!live) return false;
  MTS_LOG(INFO) << "The parameter servers of " << master << " (" << servers
                << ") are the ones this chief wrote the model on, unchanged: it is kept as it "
                   "is"
                << (live->step ? " at global step " + std::to_string(*live->step) : "")
                << ", not restored; a slow parameter server costs time, not training.";
  return true;
}
// [mts:keeps-model-it-wrote-end]

void SessionManager::NoteModelWritten(const std::string& master, const Session& session) const {
  std::lock_guard<std::mutex> lock(written_mu_);
  written_[master] = session.variables_incarnation();
}

// [mts:nothing-live-to-initialise]
void SessionManager::CheckNothingLiveToInitialise(const std::string& master, Session& session,
                                                  bool reinitialize) const {
  const std::string servers = session.variables_incarnation();
  bool ours = servers.empty();  // In process: the variables are this session's own.
  {
    std::lock_guard<std::mutex> lock(written_mu_);
    auto it = written_.find(master);
    ours = ours || (it != written_.end() && it->second == servers);
  }
  // Which global variables the servers already hold: those the ready op does not name.
  const std::optional<Output>& global_ready =
      ready_for_local_init_op_ ? ready_for_local_init_op_ : ready_op_;
  const Readiness ready = ours || !global_ready ? Readiness{} : Ready(global_ready, session);
  std::vector<std::string> set;
  if (!ours && global_ready && (ready.ready || !ready.missing.empty())) {
    for (const Variable& v : GlobalVariables(graph_)) {
      if (std::find(ready.missing.begin(), ready.missing.end(), v.name()) == ready.missing.end()) {
        set.push_back(v.name());
      }
    }
  }
  if (!set.empty()) {
    std::string held = std::to_string(set.size()) + " of its " +
                       std::to_string(GlobalVariables(graph_).size()) + " global variables";
    const std::optional<Variable> step = GetGlobalStep(graph_);
    if (step && std::find(set.begin(), set.end(), step->name()) != set.end()) {
      held += ", at global step " + std::to_string(GlobalStepValue(session, *step));
    }
    if (!reinitialize) {
      throw FailedPreconditionError(
          "The parameter servers of " + master + " (" + servers +
          ") already hold a model this chief did not write: " + held +
          ". Running the init op would overwrite it: another job whose cluster names the same "
          "ps, or this job's chief restarted without its checkpoint directory. Give this chief "
          "the checkpoint_dir its job saves to (it then restores from there), give the job "
          "parameter servers of its own, or set reinitialize_live_model to start the model "
          "over on purpose.");
    }
    MTS_LOG(WARNING) << "Initialising the model on " << master << " (" << servers
                     << ") over the one it holds (" << held
                     << "), as reinitialize_live_model asks: what was trained on it is lost.";
  }
  NoteModelWritten(master, session);
}
// [mts:nothing-live-to-initialise-end]

}  // namespace mts
