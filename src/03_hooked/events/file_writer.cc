#include "src/03_hooked/events/file_writer.h"

#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <utility>

#include "src/01_session/graph_def.h"
#include "src/01_session/run_metadata_proto.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {
namespace {

// Runs `action`, returning what it throws instead of throwing it: the flush thread hands
// failures to the next Flush or Close, on the caller's thread.
template <typename Action>
std::exception_ptr Try(Action action) {
  try {
    action();
    return nullptr;
  } catch (...) {
    return std::current_exception();
  }
}

std::string Hostname() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

}  // namespace

FileWriter::FileWriter(const std::string& logdir, const FileWriterOptions& options)
    : logdir_(logdir),
      max_queue_(options.max_queue > 0 ? static_cast<size_t>(options.max_queue) : 0),
      flush_micros_(static_cast<int64_t>(options.flush_secs * 1e6)),
      filename_suffix_(options.filename_suffix),
      clock_(options.clock != nullptr ? options.clock : RealClock()),
      fs_(options.fs != nullptr ? options.fs : DefaultFileSystem()) {
  fs_->CreateDirectories(logdir_);
  // TensorFlow's InitWithSuffix: a writer given a suffix makes its file straight away.
  if (!filename_suffix_.empty()) {
    OpenFile(clock_->WallTimeMicros() / 1000000);
    file_open_ = true;
  }
  StartThread();
}

FileWriter::~FileWriter() {
  try {
    Close();
  } catch (const std::exception& e) {
    // A destructor must not throw; a caller who needed to know called Close itself.
    MTS_LOG(ERROR) << "FileWriter for " << logdir_ << ": closing failed: " << e.what();
  }
}

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
      if (!file_open_) {
        // TensorFlow makes the file at the first write, so its name records when events
        // began: ask the thread for the file now, named for this second.
        file_open_ = true;
        open_requested_ = true;
        open_seconds_ = clock_->WallTimeMicros() / 1000000;
      }
      queue_.push_back(std::move(record));
      ++enqueued_;
      if (open_requested_ || (max_queue_ > 0 && queue_.size() >= max_queue_)) {
        wake_cv_.notify_all();
      }
      return;
    }
  }
  MTS_LOG(WARNING) << "Attempting to use a closed FileWriter (" << logdir_
                   << "). The event is dropped; call Reopen() to write again.";
}

void FileWriter::Flush() {
  std::unique_lock<std::mutex> lock(mu_);
  if (!closed_ && flushed_through_ < enqueued_) {
    const uint64_t target = enqueued_;
    flush_requested_ = true;
    wake_cv_.notify_all();
    flushed_cv_.wait(lock, [&] { return flushed_through_ >= target; });
  }
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
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
  std::exception_ptr error;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_requested_ = false;
    file_open_ = false;  // The next write, after Reopen, starts a new file.
    error = std::exchange(error_, nullptr);
  }
  try {
    if (file_ != nullptr) file_->Close();
  } catch (...) {
    if (!error) error = std::current_exception();
  }
  file_.reset();
  if (error) std::rethrow_exception(error);
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
  int64_t next_flush = clock_->NowMicros() + flush_micros_;
  for (;;) {
    clock_->WaitFor(lock, wake_cv_, next_flush - clock_->NowMicros(), [&] {
      return open_requested_ || stop_requested_ || flush_requested_ ||
             (max_queue_ > 0 && queue_.size() >= max_queue_);
    });
    const bool open = std::exchange(open_requested_, false);
    const bool write = stop_requested_ || flush_requested_ ||
                       (max_queue_ > 0 && queue_.size() >= max_queue_) ||
                       clock_->NowMicros() >= next_flush;
    if (!open && !write) continue;  // Woken early, for nothing.

    // Take the whole queue and write it without the lock, so adds never wait for the disk.
    const bool stopping = stop_requested_;
    const int64_t open_seconds = open_seconds_;
    std::deque<std::string> batch;
    uint64_t through = flushed_through_;
    if (write) {
      flush_requested_ = false;
      batch.swap(queue_);
      through = enqueued_;
    }
    lock.unlock();
    std::exception_ptr error;
    if (open) error = Try([&] { OpenFile(open_seconds); });
    if (!error && !batch.empty()) error = Try([&] { WriteBatch(batch); });
    if (error) AbandonFile(error, batch.size());
    lock.lock();

    if (error && !error_) error_ = error;
    if (write) {
      flushed_through_ = through;
      flushed_cv_.notify_all();
      next_flush = clock_->NowMicros() + flush_micros_;
    }
    if (stopping) return;
  }
}
// [mts:flush-thread-end]

void FileWriter::WriteBatch(const std::deque<std::string>& batch) {
  // Only if opening failed earlier (the failure went to error_): try again, named for now.
  if (file_ == nullptr) OpenFile(clock_->WallTimeMicros() / 1000000);
  for (const std::string& record : batch) file_->WriteRecord(record);
  file_->Sync();
}

void FileWriter::AbandonFile(const std::exception_ptr& error, size_t events) {
  // Said now, on the flush thread, not only at the next Flush: a job may run for days
  // before anyone flushes, and a full disk wants attention while there is time.
  std::string name;
  {
    std::lock_guard<std::mutex> lock(mu_);
    name = filename_.empty() ? logdir_ : filename_;
  }
  std::string what = "unknown error";
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
  }
  MTS_LOG(ERROR) << "FileWriter: writing to " << name << " failed, " << events
                 << " event(s) lost: " << what
                 << ". The next events go to a new file; earlier ones are intact.";
  if (file_ == nullptr) return;
  try {
    file_->Close();
  } catch (...) {
    // The write already failed and was reported; the close of a torn file adds nothing.
  }
  file_.reset();
}

// [mts:first-event]
void FileWriter::OpenFile(int64_t seconds) {
  // The name and the first record carry the same whole second.
  char stamp[32];
  std::snprintf(stamp, sizeof(stamp), "%010" PRId64, seconds);
  const std::string base =
      JoinPath(logdir_, std::string("events.out.tfevents.") + stamp + "." + Hostname());
  // Never truncate: if the name is taken (another writer, this second), add pid and count.
  std::string path = base + filename_suffix_;
  std::unique_ptr<WritableFile> out;
  for (int n = 0; out == nullptr; ++n) {
    try {
      out = fs_->NewExclusiveFile(path);
    } catch (const AlreadyExistsError&) {
      if (n >= 1000) throw;
      path = base + "." + std::to_string(::getpid()) + "." + std::to_string(n) + filename_suffix_;
    }
  }
  if (path != base + filename_suffix_) {
    MTS_LOG(INFO) << "FileWriter: " << base + filename_suffix_
                  << " is taken (another writer opened it this second); writing " << path
                  << " instead.";
  }
  auto file = std::make_unique<RecordWriter>(std::move(out));
  {
    std::lock_guard<std::mutex> lock(mu_);
    filename_ = path;
  }

  tensorflow::Event first;
  first.set_wall_time(static_cast<double>(seconds));
  first.set_file_version(kFileVersion);
  file->WriteRecord(first.SerializeAsString());
  file->Sync();  // A reader can tell at once that this is an event file.

  file_ = std::move(file);
}
// [mts:first-event-end]

}  // namespace mts
