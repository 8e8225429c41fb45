// summary_writer_cache.h: one FileWriter per log directory, shared by every hook that writes
// there.
//
// Stage 03: SummarySaverHook, StepCounterHook, CheckpointSaverHook and ProfilerHook each
// ask it for their directory's writer. Get(dir) makes it the first time (its first event is
// the graph event of the caller's default graph) and returns that same writer ever after,
// until Clear() closes them all. Get and Clear may be called from any thread.
//
// The writers it makes run on RealClock() and DefaultFileSystem(), never on a caller's: a
// cached writer outlives whoever asked for it first. A test that needs a writer over a
// failing disk builds one and hands it to Insert.
//
// Example: SummaryWriterCache::Get("/tmp/run")->AddSummary(summary, step);
//
// TensorFlow: tf.compat.v1.summary.FileWriterCache, alias tf.train.SummaryWriterCache
// (tensorflow/python/summary/writer/writer_cache.py).
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
