#include "src/03_hooked/events/summary_writer_cache.h"

#include <exception>
#include <map>
#include <mutex>
#include <utility>

#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {
namespace {

struct Cache {
  std::mutex mu;
  std::map<std::string, std::shared_ptr<FileWriter>> writers;  // Guarded by mu.
};

// Never destroyed: hooks may still reach the cache while static destructors run.
Cache& TheCache() {
  static Cache* cache = new Cache;
  return *cache;
}

}  // namespace

std::shared_ptr<FileWriter> SummaryWriterCache::Get(const std::string& logdir) {
  Cache& cache = TheCache();
  std::lock_guard<std::mutex> lock(cache.mu);
  std::shared_ptr<FileWriter>& writer = cache.writers[logdir];
  if (writer == nullptr) {
    try {
      writer = std::make_shared<FileWriter>(logdir);
    } catch (...) {
      cache.writers.erase(logdir);
      throw;
    }
    // TensorFlow's cache makes FileWriter(logdir, graph=get_default_graph()), which writes
    // the graph event first: the graph TensorBoard shows for this directory.
    writer->AddGraph(GetDefaultGraph());
  }
  return writer;
}

void SummaryWriterCache::Insert(std::shared_ptr<FileWriter> writer) {
  Cache& cache = TheCache();
  std::lock_guard<std::mutex> lock(cache.mu);
  const std::string logdir = writer->logdir();
  if (!cache.writers.emplace(logdir, std::move(writer)).second) {
    throw AlreadyExistsError("SummaryWriterCache::Insert: the cache has a writer for " + logdir +
                             " already; Clear it first.");
  }
}

void SummaryWriterCache::Clear() {
  std::map<std::string, std::shared_ptr<FileWriter>> writers;
  {
    Cache& cache = TheCache();
    std::lock_guard<std::mutex> lock(cache.mu);
    writers.swap(cache.writers);
  }
  // Closing writes to disk: do it outside the lock so Get never waits on it.
  for (auto& [logdir, writer] : writers) {
    try {
      writer->Close();
    } catch (const std::exception& e) {
      MTS_LOG(ERROR) << "SummaryWriterCache::Clear: closing the writer for " << logdir
                     << " failed: " << e.what();
    }
  }
}

}  // namespace mts
