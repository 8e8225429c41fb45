// timeline.h: turns the op timings of one traced run into a Chrome trace (JSON), the file
// chrome://tracing and Perfetto (ui.perfetto.dev) open.
//
//   HookedSession      ProfilerHook asks for a full trace every N steps or seconds
//     Timeline         <-- this file: RunMetadata.step_stats -> Chrome trace JSON
//       Session        with RunOptions::TraceLevel::kFullTrace it times every op it runs
//
// A run traced with kFullTrace fills RunMetadata::step_stats with one NodeExecStats per op
// executed: its name, its start (microseconds since the epoch) and its duration. Timeline
// writes them in the Trace Event Format: an object whose "traceEvents" array holds
//   - one metadata event ("ph": "M", "name": "process_name") naming the process lane,
//     "/device:CPU:0 Compute" (mts runs every op on one CPU thread, so there is one lane);
//   - one complete event per executed op ("ph": "X"): "name" is the op's name, "cat" "Op",
//     "ts" its start and "dur" its duration in microseconds, "pid" 0, "tid" 0, and "args"
//     holding {"name": op name, "op": op type} (the type when the graph is known);
//   - with show_dataflow, one flow arrow per tensor passed between two executed ops: a
//     flow start ("ph": "s") inside the producer's slice and a flow end ("ph": "t") inside
//     the consumer's, sharing an "id".
//
// Differences from TensorFlow's Timeline: TensorFlow names a slice after the op's *type*
// and puts the node name in args; mts names it after the op (in a small graph the names
// say more). show_memory is accepted and adds nothing: mts records no allocations.
//
// Example:
//   RunOptions options;
//   options.trace_level = RunOptions::TraceLevel::kFullTrace;
//   RunMetadata metadata;
//   session.Run({loss}, {}, {train_op}, options, &metadata);
//   std::string json = Timeline(metadata, session.graph()).GenerateChromeTraceFormat();
//
// Thread safety: a Timeline is immutable after construction.
//
// TensorFlow: tensorflow.python.client.timeline.Timeline (generate_chrome_trace_format).
#ifndef MTS_SRC_03_HOOKED_HOOKS_TIMELINE_H_
#define MTS_SRC_03_HOOKED_HOOKS_TIMELINE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "src/01_session/graph.h"
#include "src/01_session/session_interface.h"

namespace mts {

/// The op timings of one traced run, as a Chrome trace.
///
/// Lifecycle: construct from a run's RunMetadata; call GenerateChromeTraceFormat.
///
/// TensorFlow: `tensorflow.python.client.timeline.Timeline`.
class Timeline {
 public:
  /// A timeline of `run_metadata.step_stats`. `graph` (may be null) supplies op types and
  /// the edges drawn with show_dataflow; ops not found in it get neither. Both are read
  /// here and not kept.
  explicit Timeline(const RunMetadata& run_metadata, const Graph* graph = nullptr);

  /// The trace as a JSON document: {"traceEvents": [...]} as the file comment describes,
  /// events in step_stats order. With `show_dataflow`, adds the flow arrows (needs the
  /// graph). `show_memory` is accepted for TensorFlow's signature and adds nothing.
  std::string GenerateChromeTraceFormat(bool show_dataflow = false,
                                        bool show_memory = false) const;

 private:
  struct OpSlice {
    std::string name;
    std::string type;     // "" when the graph is unknown.
    int64_t start = 0;    // Microseconds.
    int64_t duration = 0;
    std::vector<size_t> producers;  // Indices of the earlier slices whose outputs it read.
  };
  std::vector<OpSlice> slices_;
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_HOOKS_TIMELINE_H_
