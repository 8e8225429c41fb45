#include "src/03_hooked/events/file_writer.h"

#include <algorithm>
#include <utility>

#include "src/01_session/graph_def.h"
#include "src/01_session/run_metadata_proto.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {
namespace {

// Runs `action`, returning what it throws instead of throwing it: the flush thread decides
// what a failure means (keep the events, back off), not the thread that happened to flush.
template <typename Action>
std::exception_ptr Try(Action action) {
  try {
    action();
    return nullptr;
  } catch (...) {
    return std::current_exception();
  }
}

std::string WhatOf(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown error";
  }
}

// While writes fail: the first wait before trying again, and the longest.
constexpr int64_t kFirstRetryMicros = 1000000;
constexpr int64_t kMaxRetryMicros = 60 * 1000000;
// While writes fail, the most bytes of events kept for later; beyond, new events are
// dropped (and counted), so a disk full for a day does not fill the memory too.
constexpr size_t kMaxHeldBytes = size_t{16} << 20;

}  // namespace

FileWriter::FileWriter(const std::string& logdir, const FileWriterOptions& options)
    : logdir_(logdir),
      max_queue_(options.max_queue > 0 ? static_cast<size_t>(options.max_queue) : 0),
      flush_micros_(static_cast<int64_t>(options.flush_secs * 1e6)),
      clock_(options.clock != nullptr ? options.clock : RealClock()),
      fs_(options.fs != nullptr ? options.fs : DefaultFileSystem()),
      file_(logdir_, options.filename_suffix, fs_, [this](const std::string& path) {
        std::lock_guard<std::mutex> lock(mu_);
        filename_ = path;
      }) {
  fs_->CreateDirectories(logdir_);
  // TensorFlow's InitWithSuffix: a writer given a suffix makes its file straight away.
  if (!options.filename_suffix.empty()) {
    file_.Create(clock_->WallTimeMicros() / 1000000);
    file_open_ = true;
  }
  StartThread();
}

FileWriter::~FileWriter() { Close(); }  // Close never throws.

std::string FileWriter::filename() const {
  std::lock_guard<std::mutex> lock(mu_);
  return filename_;
}

bool FileWriter::closed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

double FileWriter::WallTimeSeconds() const {
  return static_cast<double>(clock_->WallTimeMicros()) / 1e6;
}

void FileWriter::AddEvent(const tensorflow::Event& event) { Enqueue(event); }

void FileWriter::AddSummary(const tensorflow::Summary& summary, int64_t global_step) {
  tensorflow::Event event;
  event.set_wall_time(WallTimeSeconds());
  event.set_step(global_step);
  *event.mutable_summary() = summary;
  {
    // TensorBoard needs a tag's metadata (which plugin shows it) once; repeating it with
    // every value would only grow the file.
    std::lock_guard<std::mutex> lock(mu_);
    for (tensorflow::Summary::Value& value : *event.mutable_summary()->mutable_value()) {
      if (!value.has_metadata()) continue;
      if (!seen_summary_tags_.insert(value.tag()).second) value.clear_metadata();
    }
  }
  Enqueue(event);
}

void FileWriter::AddSummary(const std::string& serialized_summary, int64_t global_step) {
  tensorflow::Summary summary;
  if (!summary.ParseFromString(serialized_summary)) {
    throw InvalidArgumentError("FileWriter::AddSummary: the bytes are not a tensorflow.Summary");
  }
  AddSummary(summary, global_step);
}

void FileWriter::AddSessionLog(const tensorflow::SessionLog& session_log, int64_t global_step) {
  tensorflow::Event event;
  event.set_wall_time(WallTimeSeconds());
  event.set_step(global_step);
  *event.mutable_session_log() = session_log;
  Enqueue(event);
}

// [mts:file-writer-add-graph]
void FileWriter::AddGraph(const Graph& graph, int64_t global_step) {
  tensorflow::Event event;
  event.set_wall_time(WallTimeSeconds());
  event.set_step(global_step);
  event.set_graph_def(SerializeGraphDef(AsGraphDef(graph)));
  Enqueue(event);
}
// [mts:file-writer-add-graph-end]

void FileWriter::AddRunMetadata(const RunMetadata& run_metadata, const std::string& tag,
                                int64_t global_step) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!run_metadata_tags_.insert(tag).second) {
      throw ValueError("The provided tag was already used for this event type");
    }
  }
  tensorflow::Event event;
  event.set_wall_time(WallTimeSeconds());
  event.set_step(global_step);
  tensorflow::TaggedRunMetadata* tagged = event.mutable_tagged_run_metadata();
  tagged->set_tag(tag);
  // Kept serialized inside the event, as TensorFlow does, so a reader parses it only when
  // it needs the timings.
  tagged->set_run_metadata(RunMetadataToProto(run_metadata).SerializeAsString());
  Enqueue(event);
}

void FileWriter::Enqueue(const tensorflow::Event& event) {
  std::string record = event.SerializeAsString();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!closed_) {
      if (failed_attempts_ > 0 && queued_bytes_ + record.size() > kMaxHeldBytes) {
        ++dropped_;  // Said with the next failure or the recovery.
        return;
      }
      if (!file_open_) {
        // TensorFlow makes the file at the first write, so its name records when events
        // began: ask the thread for the file now, named for this second.
        file_open_ = true;
        open_requested_ = true;
        open_seconds_ = clock_->WallTimeMicros() / 1000000;
      }
      queued_bytes_ += record.size();
      queue_.push_back(std::move(record));
      ++enqueued_;
      if (open_requested_ || QueueFull()) wake_cv_.notify_all();
      return;
    }
  }
  MTS_LOG(WARNING) << "Attempting to use a closed FileWriter (" << logdir_
                   << "). The event is dropped; call Reopen() to write again.";
}

bool FileWriter::QueueFull() const {
  return failed_attempts_ == 0 && max_queue_ > 0 && queue_.size() >= max_queue_;
}

void FileWriter::Flush() {
  std::unique_lock<std::mutex> lock(mu_);
  if (closed_ || flushed_through_ >= enqueued_) return;
  const uint64_t target = enqueued_;
  flush_requested_ = true;
  wake_cv_.notify_all();
  flushed_cv_.wait(lock, [&] { return flushed_through_ >= target; });
}

void FileWriter::Close() {
  std::lock_guard<std::mutex> lifecycle(lifecycle_mu_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return;
    // From here adds are dropped; the thread writes what is already queued, then returns.
    closed_ = true;
    stop_requested_ = true;
    wake_cv_.notify_all();
  }
  thread_.join();
  size_t unwritten = 0;
  std::string why;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_requested_ = false;
    file_open_ = false;  // The next write, after Reopen, starts a new file.
    unwritten = queue_.size() + dropped_;
    why = last_error_;
    queue_.clear();
    queued_bytes_ = 0;
    failed_attempts_ = 0;
    dropped_ = 0;
  }
  if (unwritten > 0) {
    MTS_LOG(ERROR) << "FileWriter for " << logdir_ << ": closing with " << unwritten
                   << " event(s) that could not be written (" << why << "); they are lost.";
  }
  try {
    file_.Close();
  } catch (const std::exception& e) {
    MTS_LOG(ERROR) << "FileWriter for " << logdir_
                   << ": closing the event file failed: " << e.what();
  }
}

void FileWriter::Reopen() {
  std::lock_guard<std::mutex> lifecycle(lifecycle_mu_);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!closed_) return;
    closed_ = false;
  }
  StartThread();
}

void FileWriter::StartThread() {
  thread_ = std::thread([this] { Run(); });
}

// [mts:flush-thread]
void FileWriter::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  int64_t next_write = clock_->NowMicros() + flush_micros_;
  for (;;) {
    clock_->WaitFor(lock, wake_cv_, next_write - clock_->NowMicros(), [&] {
      return open_requested_ || stop_requested_ || flush_requested_ || QueueFull();
    });
    const bool open = std::exchange(open_requested_, false);
    const bool timed = clock_->NowMicros() >= next_write;
    const bool write = stop_requested_ || flush_requested_ || QueueFull() || timed;
    if (!open && !write) continue;  // Woken early, for nothing.

    // Take the whole queue and write it without the lock, so adds never wait for the disk.
    const bool stopping = stop_requested_;
    const bool failing = failed_attempts_ > 0;
    const int64_t seconds = open ? open_seconds_ : clock_->WallTimeMicros() / 1000000;
    std::deque<std::string> batch;
    uint64_t through = flushed_through_;
    if (write) {
      flush_requested_ = false;
      batch.swap(queue_);
      queued_bytes_ = 0;
      through = enqueued_;
    }
    lock.unlock();
    const std::exception_ptr error = Try([&] {
      if (!batch.empty()) {
        file_.Append(batch, seconds);
      } else if (open || failing) {
        file_.Create(seconds);  // The file of the first add, or one a failure kept back.
      }
    });
    lock.lock();

    if (error) {
      next_write = AfterFailure(error, std::move(batch), timed);
    } else {
      if (failed_attempts_ > 0) SayRecovered();
      if (write) next_write = clock_->NowMicros() + flush_micros_;
    }
    if (write) {
      flushed_through_ = through;
      flushed_cv_.notify_all();
    }
    if (stopping) return;
  }
}
// [mts:flush-thread-end]

// [mts:write-failed]
int64_t FileWriter::AfterFailure(const std::exception_ptr& error, std::deque<std::string> batch,
                                 bool timed) {
  // The batch is older than what was added meanwhile: back to the head of the queue.
  for (auto it = batch.rbegin(); it != batch.rend(); ++it) {
    queued_bytes_ += it->size();
    queue_.push_front(std::move(*it));
  }
  while (queued_bytes_ > kMaxHeldBytes && !queue_.empty()) {
    queued_bytes_ -= queue_.back().size();
    queue_.pop_back();
    ++dropped_;
  }
  const bool first = failed_attempts_++ == 0;
  retry_micros_ = first ? kFirstRetryMicros : std::min(retry_micros_ * 2, kMaxRetryMicros);
  last_error_ = WhatOf(error);
  const std::string name = filename_.empty() ? logdir_ : filename_;
  const double retry_secs = static_cast<double>(retry_micros_) / 1e6;
  // Said when it starts, and at each timed attempt after: once per interval.
  if (first) {
    MTS_LOG(ERROR) << "FileWriter: writing to " << name << " failed: " << last_error_ << ". "
                   << queue_.size() << " event(s) are kept and written again in " << retry_secs
                   << " s; the file is kept, whole, and continued.";
  } else if (timed) {
    MTS_LOG(ERROR) << "FileWriter: " << name << " still cannot be written: " << last_error_ << ". "
                   << queue_.size() << " event(s) wait, " << dropped_ << " dropped (more than "
                   << (kMaxHeldBytes >> 20) << " MiB waited); next try in " << retry_secs << " s.";
  }
  return clock_->NowMicros() + retry_micros_;
}
// [mts:write-failed-end]

void FileWriter::SayRecovered() {
  MTS_LOG(WARNING) << "FileWriter: writing to " << filename_ << " again after " << failed_attempts_
                   << " failed attempt(s); " << dropped_
                   << " event(s) were dropped while it failed.";
  failed_attempts_ = 0;
  dropped_ = 0;
}

}  // namespace mts
