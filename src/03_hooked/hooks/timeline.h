// timeline.h: turns the op timings of one traced run into a Chrome trace (JSON), the file
// chrome://tracing and Perfetto (ui.perfetto.dev) open.
//
// Stage 03, for ProfilerHook. The trace holds a process_name event for the one lane,
// "/device:CPU:0 Compute"; a complete event ("ph": "X") per executed op, named after the op,
// with its start and duration in microseconds and {"name", "op"} in its args; and, with
// show_dataflow, a flow start and end per tensor passed between two ops. show_memory adds
// nothing. A Timeline is immutable after construction.
//
// Example: std::string json = Timeline(metadata, graph).GenerateChromeTraceFormat();
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
