// file_writer.h: FileWriter, which writes summaries and session logs into TensorBoard event
// files from a background thread.
//
//   HookedSession       SummarySaverHook, StepCounterHook, CheckpointSaverHook, ProfilerHook
//     FileWriter        <-- this file: queues Events; its flush thread writes them
//       EventFile       the file on disk: its name, first record, repair (event_file.h)
//         RecordWriter  frames each serialized Event as a TFRecord (record_writer.h)
//           WritableFile  the platform seam (src/platform/file_system.h)
//
// An add only serializes the event onto a queue, and never blocks. The flush thread writes
// and syncs the queue every `flush_secs` (on the Clock), when `max_queue` events wait, at
// Flush() (which waits for it) and at Close(). The file,
// <logdir>/events.out.tfevents.<seconds>.<hostname><suffix>, is made at the first add (or
// at construction with a suffix), never over an existing one (the name then gets
// ".<pid>.<n>"), and starts with the file_version event "brain.Event:2" (EventFile). A
// failed write never stops training and costs no events while they fit in 16 MiB: it is
// logged, the batch is written again into the same file after 1, 2, 4 ... 60 s, and Flush
// and Close do not raise it (Close logs what it could not write). A file someone deletes is
// made again at the next flush, with that flush's events. Chapter 03, "Event files", says
// why, and the names page how this differs from TensorFlow's writer.
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
#include "src/03_hooked/events/event_file.h"
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
  /// TensorFlow's `FileWriter(logdir, max_queue=10, flush_secs=120, filename_suffix=None)`:
  /// creates `logdir` if needed and starts the flush thread, which writes as `options` say
  /// (the keyword arguments are its fields). With a `filename_suffix` the event file is
  /// created now, otherwise at the first add.
  /// \throws OpError if the directory (or, with a suffix, the file) cannot be created.
  explicit FileWriter(const std::string& logdir, const FileWriterOptions& options = {});
  /// Closes; never throws (events that cannot be written are logged as lost).
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

  /// Blocks until every event queued before the call is written and synced, or the write
  /// failed (logged; the events stay queued for the next attempt). Does nothing after
  /// Close(). Never raises a write failure: as in TensorFlow, training carries on.
  void Flush();

  /// Writes and syncs what is queued, closes the file and stops the thread. A second Close
  /// does nothing. Never throws: events that cannot be written are logged as lost.
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
  // Whether the queue alone is a reason to write: max_queue reached, unless backing off.
  // Called with mu_ held.
  bool QueueFull() const;
  // On the flush thread, with mu_ held, after a write of `batch` failed with `error`: puts
  // the batch back, logs (the first failure, and each failed `timed` retry), and returns
  // when to try again.
  int64_t AfterFailure(const std::exception_ptr& error, std::deque<std::string> batch, bool timed);
  // On the flush thread, with mu_ held, after a write that ended a failure: logs it.
  void SayRecovered();

  const std::string logdir_;
  const size_t max_queue_;  // 0: no limit.
  const int64_t flush_micros_;
  Clock* const clock_;
  FileSystem* const fs_;

  std::mutex lifecycle_mu_;  // Held by Close and Reopen, so they never interleave.
  std::thread thread_;       // Guarded by lifecycle_mu_ (after construction).

  // Owned by the flush thread while it runs; by the constructor, Close and Reopen otherwise.
  EventFile file_;

  mutable std::mutex mu_;
  std::condition_variable wake_cv_;          // The flush thread waits here, through clock_.
  std::condition_variable flushed_cv_;       // Flush() waits here for flushed_through_.
  std::deque<std::string> queue_;            // Guarded by mu_. Serialized Events to write.
  size_t queued_bytes_ = 0;                  // Guarded by mu_. Their total size.
  uint64_t enqueued_ = 0;                    // Guarded by mu_. Events ever queued.
  uint64_t flushed_through_ = 0;             // Guarded by mu_. Of those, how many were tried.
  bool closed_ = false;                      // Guarded by mu_.
  bool stop_requested_ = false;              // Guarded by mu_. Close asks the thread to finish.
  bool flush_requested_ = false;             // Guarded by mu_. Flush asks the thread to write.
  std::set<std::string> seen_summary_tags_;  // Guarded by mu_. Tags whose metadata went out.
  std::set<std::string> run_metadata_tags_;  // Guarded by mu_. Tags AddRunMetadata used.
  std::string filename_;                     // Guarded by mu_.
  // Guarded by mu_. Whether the current file exists or is asked for; false after Close.
  bool file_open_ = false;
  bool open_requested_ = false;  // Guarded by mu_. An add asks the thread to make the file,
  int64_t open_seconds_ = 0;     // Guarded by mu_. named for this second.
  // Guarded by mu_. While writes fail: the attempts so far, the wait before the next, the
  // events dropped for want of room, and the last error's text.
  int failed_attempts_ = 0;
  int64_t retry_micros_ = 0;
  uint64_t dropped_ = 0;
  std::string last_error_;
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_EVENTS_FILE_WRITER_H_
