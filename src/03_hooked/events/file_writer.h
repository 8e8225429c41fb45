// file_writer.h: FileWriter, which writes summaries and session logs into TensorBoard event
// files from a background thread.
//
//   HookedSession       SummarySaverHook, StepCounterHook, CheckpointSaverHook, ProfilerHook
//     FileWriter        <-- this file: queues Events; its flush thread writes them
//       RecordWriter    frames each serialized Event as a TFRecord (record_writer.h)
//
// An add only serializes the event onto a queue, and never blocks. The flush thread writes
// and syncs the queue every `flush_secs` (on the Clock), when `max_queue` events wait, at
// Flush() (which waits for it) and at Close(). The file,
// <logdir>/events.out.tfevents.<seconds>.<hostname><suffix>, is made at the first add (or
// at construction with a suffix), never over an existing one (the name then gets
// ".<pid>.<n>"), and starts with the file_version event "brain.Event:2". A failed write is
// logged when it happens and raised by the next Flush or Close; the next write starts a
// new file.
//
// Thread safety: every method may be called from any thread.
//
// Example:
//   FileWriter writer("/tmp/run");
//   writer.AddSummary(summary_bytes, /*global_step=*/100);
//   writer.Close();  // everything is on disk
//
// TensorFlow: tf.compat.v1.summary.FileWriter (tensorflow/python/summary/writer/writer.py),
// its EventFileWriter (event_file_writer.py) and the C++ EventsWriter
// (tensorflow/core/util/events_writer.h).
#ifndef MTS_SRC_03_HOOKED_EVENTS_FILE_WRITER_H_
#define MTS_SRC_03_HOOKED_EVENTS_FILE_WRITER_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "src/01_session/graph.h"
#include "src/01_session/session_interface.h"
#include "src/01_session/summary.pb.h"
#include "src/03_hooked/events/event.pb.h"
#include "src/03_hooked/events/record_writer.h"
#include "src/platform/clock.h"
#include "src/platform/file_system.h"

namespace mts {

/// How a FileWriter queues and flushes: TensorFlow's keyword arguments after `logdir`, with
/// its defaults, and the seams.
struct FileWriterOptions {
  /// This many events waiting wake the flush thread; <= 0: only time and Flush do.
  int max_queue = 10;
  /// The flush thread writes at most this many seconds (of `clock`) after its last flush.
  double flush_secs = 120;
  /// Appended to the event file's name; when not empty, the file is created at
  /// construction instead of at the first add.
  std::string filename_suffix;
  /// Times the flushes and stamps the events; null: RealClock(). Must outlive the writer.
  Clock* clock = nullptr;
  /// Where the directory and the files are made; null: DefaultFileSystem(). Must outlive
  /// the writer.
  FileSystem* fs = nullptr;
};

/// Writes Events (summaries, session logs) to an event file in `logdir`, asynchronously.
///
/// Lifecycle:
///   1. Construct: creates `logdir` and starts the flush thread.
///   2. AddSummary / AddSessionLog / AddEvent any number of times, from any thread; they
///      queue and return.
///   3. Flush() when the events must be on disk now.
///   4. Close(): writes what is queued, closes the file, stops the thread. Adds after that
///      are dropped with a warning, until Reopen() starts a thread again (and, at the next
///      write, a new file). The destructor closes.
///
/// Thread safety: fully thread-safe; state is guarded by a mutex shared with the flush thread.
///
/// TensorFlow: `tf.compat.v1.summary.FileWriter` / `EventFileWriter`.
class FileWriter {
 public:
  /// The version string of the first record of every event file.
  static constexpr char kFileVersion[] = "brain.Event:2";

  /// TensorFlow's `FileWriter(logdir, max_queue=10, flush_secs=120, filename_suffix=None)`:
  /// creates `logdir` if needed and starts the flush thread, which writes as `options` say
  /// (the keyword arguments are its fields). With a `filename_suffix` the event file is
  /// created now, otherwise at the first add.
  /// \throws OpError if the directory (or, with a suffix, the file) cannot be created.
  explicit FileWriter(const std::string& logdir, const FileWriterOptions& options = {});
  /// Closes; never throws (a failure to write the last events is logged).
  ~FileWriter();

  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  /// The directory given at construction.
  const std::string& logdir() const { return logdir_; }

  /// The path of the newest event file (named as soon as it is created, before its first
  /// record is synced), or "" before the first one.
  std::string filename() const;

  /// Queues `event` exactly as given (the caller sets wall_time and step).
  /// After Close() the event is dropped and a warning logged.
  void AddEvent(const tensorflow::Event& event);

  /// Queues an Event holding `summary` at `global_step`, stamped with the clock's wall
  /// time. A value's `metadata` is kept only the first time its tag is seen by this writer.
  void AddSummary(const tensorflow::Summary& summary, int64_t global_step = 0);

  /// As above, for a serialized Summary (what a summary op returns).
  /// \throws InvalidArgumentError if the bytes are not a Summary; nothing is queued.
  void AddSummary(const std::string& serialized_summary, int64_t global_step = 0);

  /// Queues an Event holding `session_log` (START, STOP, CHECKPOINT) at `global_step`,
  /// stamped with the clock's wall time.
  void AddSessionLog(const tensorflow::SessionLog& session_log, int64_t global_step = 0);

  /// Queues an Event holding `graph` as a serialized GraphDef (AsGraphDef, graph_def.h) at
  /// `global_step`: what TensorBoard's Graphs tab draws. TensorFlow's
  /// `add_graph(graph, global_step)`; its FileWriter does this when constructed with a
  /// graph, which in mts is SummaryWriterCache's job.
  void AddGraph(const Graph& graph, int64_t global_step = 0);

  /// Queues an Event holding `run_metadata` (RunMetadataToProto, run_metadata_proto.h)
  /// under `tag`, at `global_step`: the per-op timings TensorBoard's Graphs tab shows for
  /// the run chosen by tag. TensorFlow's `add_run_metadata(run_metadata, tag, global_step)`.
  /// \throws ValueError "The provided tag was already used for this event type" if this
  ///   writer has queued a RunMetadata under `tag` before; nothing is queued.
  void AddRunMetadata(const RunMetadata& run_metadata, const std::string& tag,
                      int64_t global_step = 0);

  /// Blocks until every event queued before the call is written and synced. Does nothing
  /// after Close().
  /// \throws OpError if writing failed since the last Flush or Close (it is reported once;
  ///         the events of the failed write are lost, the writer carries on).
  void Flush();

  /// Writes and syncs what is queued, closes the file and stops the thread. A second Close
  /// does nothing.
  /// \throws OpError if the last writes or the close failed; the writer is closed anyway.
  void Close();

  /// After Close(): starts the flush thread again; the next write creates a new event file.
  /// Does nothing if the writer is open.
  void Reopen();

  /// Whether Close() has been called since construction or the last Reopen().
  bool closed() const;

 private:
  // Serializes `event` onto the queue (or drops it, with a warning, when closed).
  void Enqueue(const tensorflow::Event& event);
  // The clock's wall time in seconds: an Event's wall_time.
  double WallTimeSeconds() const;
  // Starts the flush thread running Run().
  void StartThread();
  // The flush thread: waits for a reason to write, writes the queue, until Close.
  void Run();
  // On the flush thread: appends `batch` to the file and syncs it.
  void WriteBatch(const std::deque<std::string>& batch);
  // Creates the event file named for `seconds` since the epoch (a free name: never an
  // existing file), writes and syncs its first record, and makes it the file written to.
  void OpenFile(int64_t seconds);
  // On the flush thread, after a failed open or write that lost `events` events: logs it,
  // and drops the file so that the next write starts a new one.
  void AbandonFile(const std::exception_ptr& error, size_t events);

  const std::string logdir_;
  const size_t max_queue_;  // 0: no limit.
  const int64_t flush_micros_;
  const std::string filename_suffix_;
  Clock* const clock_;
  FileSystem* const fs_;

  std::mutex lifecycle_mu_;  // Held by Close and Reopen, so they never interleave.
  std::thread thread_;       // Guarded by lifecycle_mu_ (after construction).

  // Owned by the flush thread while it runs; by the constructor, Close and Reopen otherwise.
  std::unique_ptr<RecordWriter> file_;

  mutable std::mutex mu_;
  std::condition_variable wake_cv_;          // The flush thread waits here, through clock_.
  std::condition_variable flushed_cv_;       // Flush() waits here for flushed_through_.
  std::deque<std::string> queue_;            // Guarded by mu_. Serialized Events to write.
  uint64_t enqueued_ = 0;                    // Guarded by mu_. Events ever queued.
  uint64_t flushed_through_ = 0;             // Guarded by mu_. Of those, how many are synced.
  bool closed_ = false;                      // Guarded by mu_.
  bool stop_requested_ = false;              // Guarded by mu_. Close asks the thread to finish.
  bool flush_requested_ = false;             // Guarded by mu_. Flush asks the thread to write.
  std::exception_ptr error_;                 // Guarded by mu_. The first unreported failure.
  std::set<std::string> seen_summary_tags_;  // Guarded by mu_. Tags whose metadata went out.
  std::set<std::string> run_metadata_tags_;  // Guarded by mu_. Tags AddRunMetadata used.
  std::string filename_;                     // Guarded by mu_.
  // Guarded by mu_. Whether the current file exists or is asked for; false after Close.
  bool file_open_ = false;
  bool open_requested_ = false;  // Guarded by mu_. An add asks the thread to make the file,
  int64_t open_seconds_ = 0;     // Guarded by mu_. named for this second.
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_EVENTS_FILE_WRITER_H_
