#include "src/03_hooked/events/event_file.h"

#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <exception>
#include <utility>

#include "src/03_hooked/events/event.pb.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {
namespace {

std::string Hostname() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

}  // namespace

EventFile::EventFile(std::string logdir, std::string suffix, FileSystem* fs,
                     std::function<void(const std::string&)> on_new_path)
    : logdir_(std::move(logdir)),
      suffix_(std::move(suffix)),
      fs_(fs),
      on_new_path_(std::move(on_new_path)) {}

EventFile::~EventFile() {
  try {
    Close();
  } catch (const std::exception& e) {
    // A destructor must not throw; whoever needed the events on disk called Close.
    MTS_LOG(ERROR) << "closing the event file " << path_ << " failed: " << e.what();
  }
}

void EventFile::Create(int64_t seconds) {
  if (file_ == nullptr) Prepare(seconds);
}

// [mts:event-file-append]
void EventFile::Append(const std::deque<std::string>& records, int64_t seconds) {
  if (file_ == nullptr) Prepare(seconds);
  Write(records);
  // A sync into a file someone deleted succeeds, and the data goes nowhere: look the name
  // up after the sync, as TensorFlow does, and write the batch again where it will last.
  if (fs_->Exists(path_)) return;
  MTS_LOG(ERROR) << "The events file " << path_ << " has disappeared (deleted, or its "
                 << "directory removed). Writing the " << records.size()
                 << " event(s) of this flush and the later ones to a new file.";
  CloseQuietly();
  CreateNew(seconds);
  Write(records);
}
// [mts:event-file-append-end]

void EventFile::Close() {
  if (torn_ && fs_->Exists(path_)) {
    try {
      fs_->TruncateFile(path_, synced_bytes_);  // Leave no torn record behind.
    } catch (const OpError& e) {
      MTS_LOG(ERROR) << "could not cut the torn end off " << path_ << ": " << e.what();
    }
  }
  torn_ = false;  // The next write starts a new file.
  if (file_ == nullptr) return;
  std::unique_ptr<RecordWriter> file = std::move(file_);
  file->Close();
}

void EventFile::Prepare(int64_t seconds) {
  if (!torn_) {
    CreateNew(seconds);
    return;
  }
  // Shorter than what was synced: someone else cut or replaced it; it is not ours to cut.
  if (fs_->Exists(path_) && fs_->FileSize(path_) >= synced_bytes_) {
    Repair();
    return;
  }
  MTS_LOG(ERROR) << "The events file " << path_ << " has disappeared (deleted, or its "
                 << "directory removed) or was cut short. The next events go to a new file.";
  CreateNew(seconds);
}

void EventFile::Repair() {
  fs_->TruncateFile(path_, synced_bytes_);
  file_ = std::make_unique<RecordWriter>(fs_->NewAppendableFile(path_));
  torn_ = false;
  if (synced_bytes_ == 0) WriteFirstRecord();  // Creating it failed after the name was taken.
}

void EventFile::Write(const std::deque<std::string>& records) {
  uint64_t bytes = 0;
  try {
    for (const std::string& record : records) {
      file_->WriteRecord(record);
      bytes += record.size() + RecordWriter::kHeaderSize + RecordWriter::kFooterSize;
    }
    file_->Sync();
  } catch (...) {
    torn_ = true;
    CloseQuietly();
    // Cut the torn record off now (cutting needs no room on the disk), so that the file
    // ends whole even if no write ever comes again: a reader stops at a torn record.
    try {
      fs_->TruncateFile(path_, synced_bytes_);
    } catch (...) {
      // The next attempt (Repair) or Close cuts again; the write's error is what counts.
    }
    throw;
  }
  synced_bytes_ += bytes;
}

void EventFile::CloseQuietly() {
  if (file_ == nullptr) return;
  try {
    file_->Close();
  } catch (...) {
    // The write already failed (and is reported); closing the same file adds nothing.
  }
  file_.reset();
}

// [mts:first-event]
void EventFile::CreateNew(int64_t seconds) {
  // The name and the first record carry the same whole second.
  char stamp[32];
  std::snprintf(stamp, sizeof(stamp), "%010" PRId64, seconds);
  const std::string base =
      JoinPath(logdir_, std::string("events.out.tfevents.") + stamp + "." + Hostname());
  fs_->CreateDirectories(logdir_);  // Again: someone may have removed it since.
  // Never truncate: if the name is taken (another writer, this second), add pid and count.
  std::string path = base + suffix_;
  std::unique_ptr<WritableFile> out;
  for (int n = 0; out == nullptr; ++n) {
    try {
      out = fs_->NewExclusiveFile(path);
    } catch (const AlreadyExistsError&) {
      if (n >= 1000) throw;
      path = base + "." + std::to_string(::getpid()) + "." + std::to_string(n) + suffix_;
    }
  }
  if (path != base + suffix_) {
    MTS_LOG(INFO) << "FileWriter: " << base + suffix_
                  << " is taken (another writer opened it this second); writing " << path
                  << " instead.";
  }
  path_ = path;
  seconds_ = seconds;
  synced_bytes_ = 0;
  torn_ = false;
  file_ = std::make_unique<RecordWriter>(std::move(out));
  if (on_new_path_) on_new_path_(path_);
  WriteFirstRecord();  // A reader can tell at once that this is an event file.
}

void EventFile::WriteFirstRecord() {
  tensorflow::Event first;
  first.set_wall_time(static_cast<double>(seconds_));
  first.set_file_version(kFileVersion);
  Write({first.SerializeAsString()});
}
// [mts:first-event-end]

}  // namespace mts
