// layer_stack.h: the exercise of chapter 00 (Introduction). Which layers does a
// MonitoredSession put between your training loop and the raw Session?
//
//   RecoverableSession   <- only when the session is recoverable
//     CoordinatedSession
//       HookedSession
//         Chief / Worker <- the raw session, made by the chief's or a worker's creator
//
// Nothing here depends on the rest of mts: the exercise is about the shape of the stack
// the later chapters build, one layer per chapter.
#ifndef MTS_CHAPTERS_00_INTRODUCTION_EXERCISES_LAYER_STACK_LAYER_STACK_H_
#define MTS_CHAPTERS_00_INTRODUCTION_EXERCISES_LAYER_STACK_LAYER_STACK_H_

#include <string_view>
#include <vector>

namespace mts {

// [mts:layer-stack-api]
/// One layer of the session stack. Each is the subject of one chapter.
enum class Layer {
  kRecoverable,  ///< RecoverableSession (05_recoverable): re-creates the session on failure.
  kCoordinated,  ///< CoordinatedSession (04_coordinated): runs and stops queue-runner threads.
  kHooked,       ///< HookedSession (03_hooked): calls hooks around every run().
  kChief,        ///< The raw session as the chief makes it (02_chief_worker).
  kWorker,       ///< The raw session as a worker makes it (02_chief_worker).
};

/// The choices that change the shape of the stack.
struct StackOptions {
  /// True for the chief, which initialises or restores the variables; false for a
  /// worker, which waits until the chief has done so. A SingularMonitoredSession is always
  /// a chief, as in TensorFlow.
  bool is_chief = true;
  /// True for a MonitoredSession, which recovers from a lost worker or parameter
  /// server; false for a SingularMonitoredSession, which does not.
  bool recoverable = true;
};

/// Returns the layers a run() call passes through, outermost first, ending with the raw
/// session. A hooked layer is always present, even when there are no hooks.
std::vector<Layer> LayerStack(const StackOptions& options);

/// Why a run() raised, as far as the shape of the stack is concerned.
enum class RunFailure {
  kPreemption,  ///< AbortedError or UnavailableError: a machine of the cluster was lost.
  kOutOfRange,  ///< OutOfRangeError: the input is exhausted, training is over.
  kOther,       ///< Any other error: a bug in the model or bad data.
};

/// Returns the layers that are built anew, outermost first, when the raw session's run()
/// raised `failure`, before the next run() can go through; empty when the error goes up to
/// the caller instead.
std::vector<Layer> LayersRebuiltAfter(const StackOptions& options, RunFailure failure);

/// Returns the layer's name as the book and the README spell it ("HookedSession").
std::string_view LayerName(Layer layer);
// [mts:layer-stack-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_00_INTRODUCTION_EXERCISES_LAYER_STACK_LAYER_STACK_H_
