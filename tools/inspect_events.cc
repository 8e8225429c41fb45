// inspect_events.cc: the library behind //tools:inspect_events (see the header).
#include "tools/inspect_events.h"

#include <algorithm>
#include <iomanip>
#include <set>

#include "src/01_session/graph_def.pb.h"
#include "src/03_hooked/events/event.pb.h"
#include "src/03_hooked/events/event_file_reader.h"
#include "src/platform/errors.h"

namespace mts {
namespace {

// The kind of a Summary value, in TensorBoard's words; a tensor is "text" when the tag's
// metadata named the text plugin.
std::string KindOf(const tensorflow::Summary::Value& value, const std::string& plugin) {
  switch (value.value_case()) {
    case tensorflow::Summary::Value::kSimpleValue:
      return "scalar";
    case tensorflow::Summary::Value::kHisto:
      return "histogram";
    case tensorflow::Summary::Value::kObsoleteOldStyleHistogram:
      return "histogram";
    case tensorflow::Summary::Value::kImage:
      return "image";
    case tensorflow::Summary::Value::kAudio:
      return "audio";
    case tensorflow::Summary::Value::kTensor:
      return plugin == "text" ? "text" : "tensor";
    case tensorflow::Summary::Value::VALUE_NOT_SET:
      break;
  }
  return "empty";
}

// The name of an event's content that is neither a summary nor a session log.
std::string OtherKindOf(const tensorflow::Event& event) {
  switch (event.what_case()) {
    case tensorflow::Event::kFileVersion:
      return "file_version";
    case tensorflow::Event::kGraphDef:
      return "graph_def";
    case tensorflow::Event::kLogMessage:
      return "log_message";
    case tensorflow::Event::kTaggedRunMetadata:
      return "tagged_run_metadata";
    case tensorflow::Event::kMetaGraphDef:
      return "meta_graph_def";
    default:
      return "empty";
  }
}

// What the table shows of a value: an image's size, a text's number of strings.
std::string ShownValue(const tensorflow::Summary::Value& value, const std::string& kind) {
  if (kind == "image") {
    return std::to_string(value.image().width()) + "x" + std::to_string(value.image().height());
  }
  if (kind != "text") return "";
  const int n = value.tensor().string_val_size();
  return std::to_string(n) + (n == 1 ? " string" : " strings") + ", below";
}

void AddValue(const tensorflow::Event& event, const tensorflow::Summary::Value& value,
              EventStatistics* statistics) {
  TagStatistics& tag = statistics->tags[value.tag()];
  if (value.has_metadata()) tag.plugin = value.metadata().plugin_data().plugin_name();
  const std::string kind = KindOf(value, tag.plugin);
  tag.last_value = ShownValue(value, kind);
  tag.last_text.assign(value.tensor().string_val().begin(), value.tensor().string_val().end());
  if (tag.count == 0) {
    tag.kind = kind;
    tag.first_step = event.step();
  } else if (("+" + tag.kind + "+").find("+" + kind + "+") == std::string::npos) {
    tag.kind += "+" + kind;  // One tag written as two kinds: TensorBoard would show both.
  }
  tag.last_step = event.step();
  ++tag.count;
}

void AddEvent(const tensorflow::Event& event, EventStatistics* statistics) {
  if (event.has_summary()) {
    for (const tensorflow::Summary::Value& value : event.summary().value()) {
      AddValue(event, value, statistics);
    }
  } else if (event.has_session_log()) {
    ++statistics
          ->session_logs[tensorflow::SessionLog::SessionStatus_Name(event.session_log().status())];
  } else {
    ++statistics->other_events[OtherKindOf(event)];
    if (event.what_case() == tensorflow::Event::kGraphDef) {
      // TensorBoard draws the last graph of a run; so does this count.
      tensorflow::GraphDef graph;
      statistics->graph_nodes = graph.ParseFromString(event.graph_def()) ? graph.node_size() : -1;
    }
  }
}

// Reads one file into `statistics`, as far as it goes.
EventFileStatistics ReadOneFile(const std::string& path, FileSystem* fs,
                                EventStatistics* statistics) {
  EventFileStatistics file;
  file.path = path;
  try {
    EventFileReader reader(path, fs);
    tensorflow::Event event;
    while (reader.Next(&event)) {
      AddEvent(event, statistics);
      ++file.events;
    }
  } catch (const OpError& e) {
    // DataLossError (damage), OutOfRangeError (cut short), or a file that cannot be read:
    // reported with the file, and the other files are still read.
    file.problem = e.what();
  }
  return file;
}

// Joins "START 2", "STOP 1", ... in the order given, leaving out what is not there.
std::string Counts(const std::map<std::string, int64_t>& counts,
                   const std::vector<std::string>& order) {
  std::string text;
  std::set<std::string> done;
  auto add = [&](const std::string& name, int64_t n) {
    text += (text.empty() ? "" : ", ") + name + " " + std::to_string(n);
    done.insert(name);
  };
  for (const std::string& name : order) {
    if (auto it = counts.find(name); it != counts.end()) add(name, it->second);
  }
  for (const auto& [name, n] : counts) {
    if (done.count(name) == 0) add(name, n);
  }
  return text.empty() ? "none" : text;
}

// The last value of each text tag, a string a line, each line of a string indented.
void PrintTexts(const EventStatistics& statistics, std::ostream& out) {
  for (const auto& [tag, s] : statistics.tags) {
    if (s.kind != "text") continue;
    out << "\nText " << tag << " at step " << s.last_step << ":\n";
    for (const std::string& text : s.last_text) {
      size_t start = 0;
      for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
        out << "  " << text.substr(start, end - start) << "\n";
      }
      out << "  " << text.substr(start) << "\n";
    }
  }
}

}  // namespace

EventStatistics CollectEventStatistics(const std::string& path, FileSystem* fs_or_null) {
  FileSystem* fs = fs_or_null != nullptr ? fs_or_null : DefaultFileSystem();
  if (!fs->Exists(path)) throw NotFoundError("no such log directory or event file: " + path);
  EventStatistics statistics;
  statistics.path = path;
  std::vector<std::string> paths;
  try {
    paths = ListEventFiles(path, fs);
  } catch (const FailedPreconditionError&) {
    paths = {path};  // Not a directory: the one event file asked about.
  }
  if (paths.empty()) {
    throw NotFoundError("no event file in " + path +
                        " (TensorBoard reads the files whose names contain \"tfevents\")");
  }
  for (const std::string& file : paths) {
    statistics.files.push_back(ReadOneFile(file, fs, &statistics));
  }
  return statistics;
}

void PrintEventStatistics(const EventStatistics& statistics, std::ostream& out) {
  if (statistics.files.size() == 1 && statistics.files[0].path == statistics.path) {
    out << "Event file " << statistics.path << "\n";
  } else {
    out << "Event files in " << statistics.path << ": " << statistics.files.size() << "\n";
  }
  size_t name_width = 0;
  for (const EventFileStatistics& file : statistics.files) {
    name_width = std::max(name_width, Basename(file.path).size());
  }
  for (const EventFileStatistics& file : statistics.files) {
    out << "  " << std::left << std::setw(static_cast<int>(name_width)) << Basename(file.path)
        << std::right << std::setw(8) << file.events << " events";
    if (file.problem.empty()) {
      out << "\n";
    } else {
      out << ", then stopped (the events before count):\n    " << file.problem << "\n";
    }
  }

  out << "\n";
  if (statistics.tags.empty()) {
    out << "No tagged values (no summaries).\n";
  } else {
    size_t tag_width = 3;
    size_t kind_width = 4;
    for (const auto& [tag, s] : statistics.tags) {
      tag_width = std::max(tag_width, tag.size());
      kind_width = std::max(kind_width, s.kind.size());
    }
    const int tw = static_cast<int>(tag_width);
    const int kw = static_cast<int>(kind_width);
    out << std::left << std::setw(tw) << "tag"
        << "  " << std::setw(kw) << "kind" << std::right << "  " << std::setw(6) << "values"
        << "  " << std::setw(10) << "first step"
        << "  " << std::setw(9) << "last step"
        << "\n";
    for (const auto& [tag, s] : statistics.tags) {
      out << std::left << std::setw(tw) << tag << "  " << std::setw(kw) << s.kind << std::right
          << "  " << std::setw(6) << s.count << "  " << std::setw(10) << s.first_step << "  "
          << std::setw(9) << s.last_step << (s.last_value.empty() ? "" : "  " + s.last_value)
          << "\n";
    }
  }
  PrintTexts(statistics, out);
  out << "\nSession logs: " << Counts(statistics.session_logs, {"START", "STOP", "CHECKPOINT"})
      << "\n";
  out << "Other events: "
      << Counts(statistics.other_events, {"file_version", "graph_def", "meta_graph_def"}) << "\n";
  if (statistics.other_events.count("graph_def") > 0) {
    out << "Graph: ";
    if (statistics.graph_nodes >= 0) {
      out << statistics.graph_nodes << " nodes (the last graph_def, which TensorBoard draws)\n";
    } else {
      out << "the last graph_def does not parse as a tensorflow.GraphDef\n";
    }
  }
}

}  // namespace mts
