// summary_writer_cache.h: one FileWriter per log directory, shared by every hook that writes
// there.
//
//   HookedSession         SummarySaverHook, StepCounterHook, CheckpointSaverHook: each asks
//                         the cache for the writer of its output_dir
//     SummaryWriterCache  <-- this file: hands them all the same FileWriter
//       FileWriter        writes the event file (file_writer.h)
//
// Two writers on one directory would each start a file, and two files opened in the same
// second get the same name. So MonitoredTrainingSession's hooks never make writers
// themselves: they call SummaryWriterCache::Get(dir), which makes the directory's writer the
// first time and returns that same writer ever after, until Clear().
//
// The writers the cache makes run on RealClock() and DefaultFileSystem(), never on a clock
// or file system of the caller's: a cached writer outlives whoever asked for it first (a
// hook built with a test's clock), and its flush thread would go on using what that caller
// destroyed. A test that needs a writer over a failing disk builds it and hands it to
// Insert, which keeps the borrowing in plain sight.
//
// Example:
//   std::shared_ptr<FileWriter> writer = SummaryWriterCache::Get("/tmp/run");
//   writer->AddSummary(summary, step);       // the same writer every hook in /tmp/run uses
//   SummaryWriterCache::Clear();             // closes it; a later Get makes a new one
//
// Thread safety: Get and Clear may be called from any thread.
//
// TensorFlow: tf.compat.v1.summary.FileWriterCache, alias tf.train.SummaryWriterCache
// (tensorflow/python/summary/writer/writer_cache.py). As TensorFlow's cache, which gives the
// new writer the default graph, a new writer's first event is the graph event of the
// caller's default graph (FileWriter::AddGraph), what TensorBoard's Graphs tab draws.
#ifndef MTS_SRC_03_HOOKED_EVENTS_SUMMARY_WRITER_CACHE_H_
#define MTS_SRC_03_HOOKED_EVENTS_SUMMARY_WRITER_CACHE_H_

#include <memory>
#include <string>

#include "src/01_session/graph.h"
#include "src/03_hooked/events/file_writer.h"

namespace mts {

/// A process-wide map from log directory to its shared FileWriter.
///
/// Lifecycle: Get creates a directory's writer on first use (with FileWriter's defaults) and
/// queues the default graph on it;
/// every later Get of the same string returns it; Clear closes every writer and forgets them.
///
/// Thread safety: Get and Clear lock one process-wide mutex.
///
/// TensorFlow: `FileWriterCache` / `SummaryWriterCache`.
class SummaryWriterCache {
 public:
  SummaryWriterCache() = delete;

  /// The writer for `logdir`, created now if the cache has none; a new writer gets a graph
  /// event of this thread's default graph (GetDefaultGraph()) at step 0. Directories are
  /// matched as strings: "/tmp/run" and "/tmp/run/" get different writers, as in TensorFlow.
  /// A new writer has FileWriter's defaults, RealClock() and DefaultFileSystem() among them.
  /// \throws OpError if a new writer cannot create its directory; the cache is unchanged.
  static std::shared_ptr<FileWriter> Get(const std::string& logdir);

  /// Makes `writer` the writer Get returns for `writer->logdir()` (a test's writer over a
  /// failing disk); its clock and file system must outlive it, so Clear before they go.
  /// \throws AlreadyExistsError naming the directory if the cache has a writer for it.
  static void Insert(std::shared_ptr<FileWriter> writer);

  /// Closes every cached writer and empties the cache. Whoever still holds one keeps a
  /// closed writer (its adds are dropped with a warning until Reopen). Never throws: a
  /// writer that fails to close is logged.
  static void Clear();
};

}  // namespace mts

#endif  // MTS_SRC_03_HOOKED_EVENTS_SUMMARY_WRITER_CACHE_H_
