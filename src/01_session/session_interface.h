// session_interface.h: what every session in the stack is: something that runs a graph.
//
//   RecoverableSession ... HookedSession   each wraps the one below and is itself one
//     Session                              <-- the raw session, the first SessionInterface
//
// The convenience overloads (`Run(output)`, `Run(op)`) are non-virtual and call the virtual
// Run that returns its results; a class that overrides Run adds `using
// SessionInterface::Run;` to keep them. A second virtual Run writes the results into a
// vector the caller keeps (TensorFlow's C++ form); by default it calls the first.
//
// TensorFlow: the interface shared by tf.Session and _WrappedSession (run, graph, close).
#ifndef MTS_SRC_01_SESSION_SESSION_INTERFACE_H_
#define MTS_SRC_01_SESSION_SESSION_INTERFACE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "src/01_session/graph.h"
#include "src/01_session/tensor.h"

namespace mts {

/// Tensors to substitute for graph tensors during one run (TensorFlow's feed_dict).
using FeedDict = std::map<Output, Tensor>;

/// Per-run options (TensorFlow's RunOptions).
struct RunOptions {
  /// With kFullTrace the run records every executed op in RunMetadata::step_stats.
  enum class TraceLevel { kNoTrace = 0, kFullTrace = 3 };
  TraceLevel trace_level = TraceLevel::kNoTrace;  ///< What to record.
  /// When positive, a run still going after this many milliseconds of the session's clock
  /// raises DeadlineExceededError("Timed out waiting for notification"). The deadline is
  /// checked before each op and ends the waits of blocking queue ops (Enqueue, Dequeue);
  /// an op already computing is not interrupted. Zero or negative: no deadline.
  int64_t timeout_in_ms = 0;
};

/// What one executed op cost, recorded under RunOptions::TraceLevel::kFullTrace.
struct NodeExecStats {
  std::string node_name;  ///< The op's name.
  /// Start time, microseconds since the epoch (the session clock's WallTimeMicros()).
  int64_t all_start_micros = 0;
  /// Duration in microseconds, measured on the session clock's monotonic NowMicros().
  int64_t all_end_rel_micros = 0;
};

/// Information a run returns besides its fetches (TensorFlow's RunMetadata).
struct RunMetadata {
  std::vector<NodeExecStats> step_stats;  ///< One entry per executed op, in order.
};

/// Something that runs fetches of a graph: the raw Session or any wrapper around one.
class SessionInterface {
 public:
  virtual ~SessionInterface() = default;

  /// Runs what `fetches` and `targets` need, with `feeds` replacing tensors; returns the
  /// fetched values in order. See Session::Run for the raw contract; wrappers add theirs.
  virtual std::vector<Tensor> Run(const std::vector<Output>& fetches, const FeedDict& feeds = {},
                                  const std::vector<Operation*>& targets = {},
                                  const RunOptions& options = {},
                                  RunMetadata* run_metadata = nullptr) = 0;

  /// Runs like the Run above, but writes the fetched values into `*outputs` (cleared
  /// first, then one per fetch, in order) instead of returning a new vector: the form of
  /// TensorFlow's C++ Session::Run. A caller that runs step after step with the same vector
  /// reuses its storage, so the results cost no heap allocation once it has grown; the
  /// hooked layer runs the session below it this way. The default calls the Run above and
  /// moves its result in (so a layer that overrides only that one keeps its behaviour); the
  /// raw Session overrides it to write in place. After a throw, what `*outputs` holds is
  /// unspecified.
  virtual void Run(const std::vector<Output>& fetches, const FeedDict& feeds,
                   const std::vector<Operation*>& targets, const RunOptions& options,
                   RunMetadata* run_metadata, std::vector<Tensor>* outputs) {
    *outputs = Run(fetches, feeds, targets, options, run_metadata);
  }

  /// The graph this session runs.
  virtual Graph* graph() const = 0;

  /// Closes the session. Idempotent; Run afterwards raises.
  virtual void Close() = 0;

  /// Runs and returns one tensor.
  Tensor Run(const Output& fetch, const FeedDict& feeds = {}) {
    return Run(std::vector<Output>{fetch}, feeds).front();
  }
  /// Runs one op for its effect (a train op, an initializer).
  void Run(Operation* target, const FeedDict& feeds = {}) {
    Run(std::vector<Output>{}, feeds, std::vector<Operation*>{target});
  }
};

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_SESSION_INTERFACE_H_
