// runs_hooks.h: the mark of a session whose Run also runs hooks, which a Saver refuses to
// save through.
//
//   MonitoredSession   carries the mark (stage 06)
//   Saver::Save        <-- asks for it (saver.h), in this stage
//   RunsHooks          <-- this file
//
// A TF1 user who holds a MonitoredSession passes it to saver.save and gets TypeError
// "'sess' must be a Session": the save would run through the hooks (firing them, consuming
// their fetches' input, refused once a hook has asked to stop). mts refuses it the same way.
// The mark lives here, beside the Saver, because the Saver cannot name the classes above it.
//
// TensorFlow: the isinstance check on session.SessionInterface in Saver.save
// (tensorflow/python/training/saver.py).
#ifndef MTS_SRC_02_CHIEF_WORKER_RUNS_HOOKS_H_
#define MTS_SRC_02_CHIEF_WORKER_RUNS_HOOKS_H_

namespace mts {

/// Marks a session whose Run also runs hooks, so it is not a session a Saver saves through.
class RunsHooks {
 public:
  virtual ~RunsHooks() = default;
};

}  // namespace mts

#endif  // MTS_SRC_02_CHIEF_WORKER_RUNS_HOOKS_H_
