// training_stack.h: the full training stack the benchmarks measure, built in one place.
//
//   RecoverableSession        <-- MakeTrainingStack returns this, with the default hooks
//     CoordinatedSession
//       HookedSession         StepCounterHook, SummarySaverHook, CheckpointSaverHook
//         ChiefSessionCreator
//           Session
//
// It is what MonitoredTrainingSession(is_chief=true, checkpoint_dir=dir) assembles, built
// by hand from stages 02 to 05 until stage 06 lands: every benchmark that compares "the
// monitored stack" against something gets it from here, so moving them to
// MonitoredTrainingSession is a change to this file only.
#ifndef MTS_TESTS_BENCHMARKS_TRAINING_STACK_H_
#define MTS_TESTS_BENCHMARKS_TRAINING_STACK_H_

#include <memory>
#include <string>

#include "src/01_session/session_interface.h"

namespace mts {
namespace bench {

/// A chief's training stack on the default graph with MonitoredTrainingSession's default
/// hooks (step counter and summaries every 100 steps, a checkpoint every 600 seconds),
/// writing into `checkpoint_dir`. Variables are initialised by the chief's scaffold.
std::unique_ptr<SessionInterface> MakeTrainingStack(const std::string& checkpoint_dir);

/// A fresh directory under $TEST_TMPDIR (or /tmp) for one benchmark's files.
std::string MakeTempDir(const std::string& name);

/// Removes `dir` and forgets the summary writers open on it.
void RemoveTempDir(const std::string& dir);

}  // namespace bench
}  // namespace mts

#endif  // MTS_TESTS_BENCHMARKS_TRAINING_STACK_H_
