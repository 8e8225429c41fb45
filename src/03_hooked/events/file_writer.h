// file_writer.h: FileWriter, which writes summaries and session logs into TensorBoard event
// files from a background thread.
//
//   HookedSession       SummarySaverHook, StepCounterHook, CheckpointSaverHook, ProfilerHook
//                       call Add*
//     FileWriter        <-- this file: queues Events; its flush thread writes them
//       EventFile       the file on disk: its name, first record, repair (event_file.h)
//         RecordWriter  frames each serialized Event as a TFRecord (record_writer.h)
//           WritableFile  the platform seam (src/platform/file_system.h)
//
// A training loop must not wait for the disk every time a hook records a loss, so adding an
// event only serializes it onto an in-memory queue. A thread of the writer's own takes the
// queue and appends it to the file, then syncs the file, when one of these happens:
//   - `flush_secs` have passed since its last flush (timed on the injected Clock);
//   - the queue has reached `max_queue` events;
//   - someone calls Flush() (which waits for it) or Close().
// An idle writer touches nothing.
//
// The file is <logdir>/events.out.tfevents.<10-digit unix seconds>.<hostname><suffix>
// (EventFile). As in TensorFlow it is made when the first event is added (the add wakes the
// thread, which makes it at once, named for the second of that add), or at construction
// when a suffix is given. Its first record is the file_version event, synced at once; the
// added event itself waits in the queue like any other. SummaryWriterCache
// (summary_writer_cache.h) is how a process keeps to one writer per directory.
//
// A failed write (a full disk, a file-size limit) costs no events and no extra files, and
// never stops training, as in TensorFlow, which logs and carries on:
//   - it is logged at ERROR when it happens, naming the file and the error;
//   - the batch goes back to the head of the queue and is written again later, after 1 s,
//     then 2, 4, ... up to 60 s between attempts (a Flush or Close tries at once); while
//     the disk fails, the max_queue trigger sleeps, and at most 16 MiB of events are kept
//     (later ones are dropped, and counted);
//   - each failed timed attempt is logged again, so the log says it once per interval;
//   - the file is kept: EventFile cuts off the record the failure tore and continues it,
//     so a disk that fills and is freed leaves one whole file, not one per attempt;
//   - Flush and Close do not raise it; Close logs the events it could not write.
// A file someone deletes is made again at the next flush, with that flush's events (see
// event_file.h).
//
// Differences from TensorFlow 1.x's Python writer, all deliberate:
//   - TF hands each event to the file's buffer at once and bounds its queue (an add blocks
//     when it is full); mts keeps events in its queue until a flush and never blocks an add.
//     On disk the two look the same: nothing is promised before a flush.
//   - TF flushes only after a write and when flush_secs have passed; mts also writes and
//     flushes when the queue reaches max_queue, as TF 2's C++ summary writer does.
//   - No meta graph events: mts has no MetaGraphDef (graph events it writes: AddGraph).
//   - No `graph` argument: SummaryWriterCache, which makes the writers hooks share, adds the
//     default graph with AddGraph, as TensorFlow's cache passes it to the constructor.
//   - A failed write: TF logs it at each flush, loses the events and appends after the torn
//     record; mts keeps the events for the next attempt, backs off, and continues the file
//     from its last whole record.
//   - A deleted file: TF's EventsWriter logs it and loses the flush's events; mts writes
//     them again into a new file.
//
// Example:
//   FileWriter writer("/tmp/run");
//   writer.AddSummary(summary_bytes, /*global_step=*/100);
//   tensorflow::SessionLog start;
//   start.set_status(tensorflow::SessionLog::START);
//   writer.AddSessionLog(start, 100);
//   writer.Close();  // everything is on disk
//
// Thread safety: every method may be called from any thread. The writer's state is guarded
// by one mutex shared with its flush thread; the file itself belongs to the flush thread
// while it runs, and to Close and Reopen while it does not.
//
// TensorFlow: tf.compat.v1.summary.FileWriter (tensorflow/python/summary/writer/writer.py),
// EventFileWriter and its _EventLoggerThread (event_file_writer.py), and the C++
// EventsWriter (tensorflow/core/util/events_writer.h) that names the file and writes the
// first record.
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
