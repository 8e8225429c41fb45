#include "src/03_hooked/hooks/timeline.h"

#include <cstdio>
#include <map>
#include <sstream>

#include "src/01_session/operation.h"

namespace mts {
namespace {

// `text` as a JSON string literal, quotes included. Op names are plain ASCII in practice,
// but a name is user text, so quotes, backslashes and control characters are escaped.
std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

constexpr int kPid = 0;  // The one process lane: every op runs on the session's thread.
constexpr int kTid = 0;

}  // namespace

Timeline::Timeline(const RunMetadata& run_metadata, const Graph* graph) {
  std::map<std::string, size_t> index_of;  // Op name -> its slice, for the data edges.
  for (const NodeExecStats& stats : run_metadata.step_stats) {
    OpSlice slice;
    slice.name = stats.node_name;
    slice.start = stats.all_start_micros;
    slice.duration = stats.all_end_rel_micros;
    const Operation* op = graph != nullptr ? graph->FindOperation(stats.node_name) : nullptr;
    if (op != nullptr) {
      slice.type = op->type();
      // An input whose producer ran earlier in this run is an arrow; one from a feed (its
      // producer did not run) is not.
      for (const Output& input : op->inputs()) {
        auto producer = index_of.find(input.op()->name());
        if (producer != index_of.end()) slice.producers.push_back(producer->second);
      }
    }
    index_of[slice.name] = slices_.size();
    slices_.push_back(std::move(slice));
  }
}

// [mts:chrome-trace]
std::string Timeline::GenerateChromeTraceFormat(bool show_dataflow, bool show_memory) const {
  std::vector<std::string> events;
  events.push_back(R"({"name": "process_name", "ph": "M", "pid": 0, "args": {"name": )" +
                   JsonString("/device:CPU:0 Compute") + "}}");
  for (const OpSlice& slice : slices_) {
    std::ostringstream event;
    event << R"({"ph": "X", "cat": "Op", "name": )" << JsonString(slice.name)
          << R"(, "pid": )" << kPid << R"(, "tid": )" << kTid << R"(, "ts": )" << slice.start
          << R"(, "dur": )" << slice.duration << R"(, "args": {"name": )"
          << JsonString(slice.name);
    if (!slice.type.empty()) event << R"(, "op": )" << JsonString(slice.type);
    event << "}}";
    events.push_back(event.str());
  }
  if (show_dataflow) {
    // A flow start binds to the slice enclosing its timestamp, so it sits at the producer's
    // start; the end ("bp": "e": the enclosing slice too) at the consumer's start.
    int flow_id = 0;
    for (const OpSlice& consumer : slices_) {
      for (const size_t p : consumer.producers) {
        const OpSlice& producer = slices_[p];
        std::ostringstream start, end;
        start << R"({"ph": "s", "cat": "DataFlow", "name": "dataflow", "pid": )" << kPid
              << R"(, "tid": )" << kTid << R"(, "ts": )" << producer.start
              << R"(, "id": )" << flow_id << "}";
        end << R"({"ph": "t", "bp": "e", "cat": "DataFlow", "name": "dataflow", "pid": )"
            << kPid << R"(, "tid": )" << kTid << R"(, "ts": )" << consumer.start
            << R"(, "id": )" << flow_id << "}";
        events.push_back(start.str());
        events.push_back(end.str());
        ++flow_id;
      }
    }
  }
  std::string json = "{\"traceEvents\": [\n";
  for (size_t i = 0; i < events.size(); ++i) {
    json += "  " + events[i] + (i + 1 < events.size() ? ",\n" : "\n");
  }
  return json + "]}\n";
}
// [mts:chrome-trace-end]

}  // namespace mts
