// inspect_events.h: what a log directory's event files hold, tag by tag, for
// `bazel run //tools:inspect_events -- DIR`.
//
//   tools/                 <-- inspect_checkpoint, inspect_events, plot_scalars: read what
//                              a training run left behind, without running anything
//   event_file_reader.h    EventFileReader: Events out of TFRecords, every CRC checked
//   record_reader.h        the TFRecord framing
//
// TensorBoard shows nothing until it is running and pointed at the right directory, and then
// it shows curves, not counts. `tensorboard --inspect` answers the first questions about a
// log directory in text: which tags are there, of what kind, how many values, over which
// steps (with each image tag's size and each text tag's text); how many sessions started,
// stopped and checkpointed; how big the graph is that the
// Graphs tab would draw (the last graph_def event's nodes). This is its counterpart. A file
// that is damaged, or cut short (its writer may still be writing), is reported with the
// offset of the record at fault; the events before that record still count, and the other
// files are read as usual.
//
// Example:
//   PrintEventStatistics(CollectEventStatistics("/tmp/mts_spirals"), std::cout);
//
// Thread safety: may be called from any number of threads.
//
// TensorFlow: tensorboard/backend/event_processing/event_file_inspector.py
// (`tensorboard --inspect --logdir DIR`).
#ifndef MTS_TOOLS_INSPECT_EVENTS_H_
#define MTS_TOOLS_INSPECT_EVENTS_H_

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "src/platform/file_system.h"

namespace mts {

/// One event file, as far as it could be read.
struct EventFileStatistics {
  std::string path;     ///< The file.
  int64_t events = 0;   ///< Whole events read before the end or the damage.
  std::string problem;  ///< Empty if read to its clean end; else what stopped the reader.
};

/// The values of one tag across all files.
struct TagStatistics {
  /// "scalar", "histogram", "image", "audio", "text" (a tensor for the text plugin),
  /// "tensor" ("a+b" if mixed).
  std::string kind;
  int64_t count = 0;       ///< How many values.
  int64_t first_step = 0;  ///< The step of the first value, in file order.
  int64_t last_step = 0;   ///< The step of the last value.
  /// The plugin the tag's metadata names (it comes with the first value only), or empty.
  std::string plugin;
  /// What the table shows of the last value: an image's "WIDTHxHEIGHT", a text's number of
  /// strings; empty for the other kinds.
  std::string last_value;
  /// A text tag's last value, its strings in order (line breaks kept); empty otherwise.
  std::vector<std::string> last_text;
};

/// What the event files of a log directory hold.
struct EventStatistics {
  std::string path;                           ///< The directory (or single file) read.
  std::vector<EventFileStatistics> files;     ///< In ListEventFiles order.
  std::map<std::string, TagStatistics> tags;  ///< By tag.
  /// SessionLog events by status name ("START", "STOP", "CHECKPOINT").
  std::map<std::string, int64_t> session_logs;
  /// The other events by kind ("file_version", "graph_def", "meta_graph_def", ...).
  std::map<std::string, int64_t> other_events;
  /// The number of nodes of the last graph_def event (the graph TensorBoard draws), decoded
  /// as a tensorflow.GraphDef; -1 if there is none, or it does not parse.
  int64_t graph_nodes = -1;
};

/// Reads every event file of directory `path` (or the one event file `path`), with `fs`
/// (DefaultFileSystem() when null). A damaged or truncated file ends in `problem`, not in
/// an exception.
/// \throws NotFoundError naming `path` if it does not exist or holds no event file.
EventStatistics CollectEventStatistics(const std::string& path, FileSystem* fs = nullptr);

/// Prints `statistics` as a few lines of text: the files, a table of tags, the last text of
/// each text tag (a string a line), the session logs, the other events and the graph's node
/// count.
void PrintEventStatistics(const EventStatistics& statistics, std::ostream& out);

}  // namespace mts

#endif  // MTS_TOOLS_INSPECT_EVENTS_H_
