// Tests of file_writer.h and summary_writer_cache.h: the event file's name and first record;
// events round-trip through our reader; when the flush thread writes (time on a FakeClock,
// queue size, Flush, Close); Close, Reopen and the destructor; write failures; the cache.
// No test sleeps: time moves by FakeClock::Advance, and a test that waits for the flush
// thread waits on the file system seam, which reports every Sync.
#include "src/03_hooked/events/file_writer.h"

#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "src/03_hooked/events/event_file_reader.h"
#include "src/03_hooked/events/record_writer.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "src/platform/logging.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/forwarding_file_system.h"

namespace mts {
namespace {

constexpr int64_t kSecond = 1000000;
// FakeClock's wall time at NowMicros() == 0.
constexpr double kStartSeconds = FakeClock::kDefaultWallStartMicros / 1e6;

// A fresh directory under the test's temporary directory.
std::string NewLogDir(const std::string& name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return JoinPath(JoinPath(tmp != nullptr ? tmp : "/tmp", "file_writer_test"), name);
}

std::string ThisHost() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return name;
}

// The POSIX file system, watched: it counts Syncs (so a test can wait for the flush thread
// to finish writing) and can be told to fail Appends, as a full disk does: at once, or
// after writing half of the data (a torn record).
class WatchedFileSystem : public ForwardingFileSystem {
 public:
  enum class Appends { kWork, kFail, kTear };

  // Blocks until at least `n` Syncs have completed in total.
  void WaitForSyncs(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return syncs_ >= n; });
  }
  int syncs() const {
    std::lock_guard<std::mutex> lock(mu_);
    return syncs_;
  }
  // Blocks until at least `n` Appends have failed in total.
  void WaitForFailures(int n) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return failures_ >= n; });
  }
  int failures() const {
    std::lock_guard<std::mutex> lock(mu_);
    return failures_;
  }
  void set_appends(Appends appends) {
    std::lock_guard<std::mutex> lock(mu_);
    appends_ = appends;
  }
  void set_fail_appends(bool fail) { set_appends(fail ? Appends::kFail : Appends::kWork); }

  std::unique_ptr<WritableFile> NewWritableFile(const std::string& path) override {
    return std::make_unique<File>(this, DefaultFileSystem()->NewWritableFile(path));
  }
  std::unique_ptr<WritableFile> NewExclusiveFile(const std::string& path) override {
    return std::make_unique<File>(this, DefaultFileSystem()->NewExclusiveFile(path));
  }
  std::unique_ptr<WritableFile> NewAppendableFile(const std::string& path) override {
    return std::make_unique<File>(this, DefaultFileSystem()->NewAppendableFile(path));
  }

 private:
  class File : public WritableFile {
   public:
    File(WatchedFileSystem* fs, std::unique_ptr<WritableFile> file)
        : fs_(fs), file_(std::move(file)) {}
    void Append(std::string_view data) override {
      Appends appends;
      {
        std::lock_guard<std::mutex> lock(fs_->mu_);
        appends = fs_->appends_;
      }
      if (appends == Appends::kTear) {
        file_->Append(data.substr(0, data.size() / 2));
        file_->Flush();  // The half record reaches the file, as a disk filling up leaves it.
      }
      if (appends != Appends::kWork) {
        std::lock_guard<std::mutex> lock(fs_->mu_);
        ++fs_->failures_;
        fs_->cv_.notify_all();
        ThrowFileSystemError("the event file", ENOSPC);
      }
      file_->Append(data);
    }
    void Flush() override { file_->Flush(); }
    void Sync() override {
      file_->Sync();
      std::lock_guard<std::mutex> lock(fs_->mu_);
      ++fs_->syncs_;
      fs_->cv_.notify_all();
    }
    void Close() override { file_->Close(); }

   private:
    WatchedFileSystem* fs_;
    std::unique_ptr<WritableFile> file_;
  };

  mutable std::mutex mu_;
  std::condition_variable cv_;
  int syncs_ = 0;                     // Guarded by mu_.
  int failures_ = 0;                  // Guarded by mu_.
  Appends appends_ = Appends::kWork;  // Guarded by mu_.
};

// How many captured log lines contain `text`.
int CountLines(const ScopedLogCapture& log, const std::string& text) {
  int count = 0;
  for (const std::string& line : log.lines()) count += line.find(text) != std::string::npos;
  return count;
}

// A writer's options: TensorFlow's defaults, time from `clock`, files through `fs` (the real
// disk if null).
FileWriterOptions Options(Clock* clock, FileSystem* fs = nullptr) {
  FileWriterOptions options;
  options.clock = clock;
  options.fs = fs;
  return options;
}

tensorflow::Summary Scalar(const std::string& tag, float value) {
  tensorflow::Summary summary;
  tensorflow::Summary::Value* v = summary.add_value();
  v->set_tag(tag);
  v->set_simple_value(value);
  return summary;
}

tensorflow::SessionLog Log(tensorflow::SessionLog::SessionStatus status,
                           const std::string& checkpoint_path = "") {
  tensorflow::SessionLog log;
  log.set_status(status);
  log.set_checkpoint_path(checkpoint_path);
  return log;
}

// The event file is <logdir>/events.out.tfevents.<10-digit seconds>.<hostname>, made at the
// first write, not before.
TEST(FileWriterTest, FileNameHasSecondsAndHostname) {
  FakeClock clock;
  const std::string dir = NewLogDir("name");
  FileWriter writer(dir, Options(&clock));
  EXPECT_TRUE(DefaultFileSystem()->ListDirectory(dir).empty());
  EXPECT_EQ(writer.filename(), "");

  writer.AddSessionLog(Log(tensorflow::SessionLog::START));
  writer.Flush();
  const std::string expected = "events.out.tfevents.1600000000." + ThisHost();
  EXPECT_EQ(DefaultFileSystem()->ListDirectory(dir), std::vector<std::string>{expected});
  EXPECT_EQ(writer.filename(), JoinPath(dir, expected));
}

// The first add makes the file at once, named for the second of that add, with only the
// first record in it; the event waits in the queue.
TEST(FileWriterTest, FirstAddMakesTheFileAtOnce) {
  FakeClock clock;
  WatchedFileSystem fs;
  const std::string dir = NewLogDir("first_add");
  FileWriter writer(dir, Options(&clock, &fs));
  clock.Advance(3 * kSecond + kSecond / 2);
  writer.AddSessionLog(Log(tensorflow::SessionLog::START), 5);
  fs.WaitForSyncs(1);
  EXPECT_EQ(writer.filename(), JoinPath(dir, "events.out.tfevents.1600000003." + ThisHost()));
  const std::vector<tensorflow::Event> events = ReadEventFile(writer.filename());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].wall_time(), kStartSeconds + 3);
}

// The seconds are zero-padded to ten digits, and a suffix makes the file at construction.
TEST(FileWriterTest, SuffixAndZeroPaddedSecondsFileMadeAtOnce) {
  FakeClock clock(FakeClock::Mode::kBlocking, 0, /*wall_start_micros=*/123 * kSecond);
  const std::string dir = NewLogDir("suffix");
  FileWriterOptions options = Options(&clock);
  options.filename_suffix = ".v1";
  FileWriter writer(dir, options);
  const std::string expected = "events.out.tfevents.0000000123." + ThisHost() + ".v1";
  EXPECT_EQ(DefaultFileSystem()->ListDirectory(dir), std::vector<std::string>{expected});
  EXPECT_EQ(ReadEventFile(writer.filename()).size(), 1u);
}

// The first record is Event{wall_time: the whole second of the name, file_version:
// "brain.Event:2"}, 24 bytes framed exactly as TensorFlow 1.x frames it.
TEST(FileWriterTest, FirstRecordIsFileVersion) {
  FakeClock clock(FakeClock::Mode::kBlocking, 0, 1600000000 * kSecond + 750000);
  const std::string dir = NewLogDir("first");
  FileWriterOptions options = Options(&clock);
  options.filename_suffix = "-x";
  FileWriter writer(dir, options);
  const std::vector<tensorflow::Event> events = ReadEventFile(writer.filename());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].file_version(), "brain.Event:2");
  EXPECT_EQ(events[0].wall_time(), 1600000000.0);  // Whole seconds, like the name.
  EXPECT_EQ(events[0].step(), 0);

  const std::string bytes = DefaultFileSystem()->ReadFile(writer.filename());
  EXPECT_EQ(bytes.size(), 24u + 16u);
  EXPECT_EQ(bytes.substr(0, 12), std::string("\x18\0\0\0\0\0\0\0\xa3\x7f\x4b\x22", 12));
}

// Summaries (as protos and as bytes), session logs and raw events come back from our reader
// in order, with the fake clock's wall time and the steps given.
TEST(FileWriterTest, EventsRoundTripThroughTheReader) {
  FakeClock clock;
  const std::string dir = NewLogDir("round_trip");
  FileWriterOptions options = Options(&clock);
  options.max_queue = 100;
  FileWriter writer(dir, options);
  writer.AddSessionLog(Log(tensorflow::SessionLog::START), 2);
  clock.Advance(kSecond / 4);
  writer.AddSummary(Scalar("cost/cost", 155089.265625f), 2);
  clock.Advance(kSecond / 4);
  writer.AddSummary(Scalar("global_step/sec", 8.188338279724121f).SerializeAsString(), 103);
  writer.AddSessionLog(Log(tensorflow::SessionLog::CHECKPOINT, "logs/model.ckpt"), 103);
  tensorflow::Event raw;
  raw.set_wall_time(42.5);
  raw.set_step(7);
  raw.mutable_log_message()->set_message("hello");
  writer.AddEvent(raw);
  writer.Flush();

  const std::vector<tensorflow::Event> events = ReadEventFile(writer.filename());
  ASSERT_EQ(events.size(), 6u);
  EXPECT_EQ(events[1].session_log().status(), tensorflow::SessionLog::START);
  EXPECT_EQ(events[1].step(), 2);
  EXPECT_EQ(events[1].wall_time(), kStartSeconds);
  EXPECT_EQ(events[2].wall_time(), kStartSeconds + 0.25);
  EXPECT_EQ(events[3].wall_time(), kStartSeconds + 0.5);
  EXPECT_EQ(events[4].session_log().checkpoint_path(), "logs/model.ckpt");
  EXPECT_EQ(events[5].log_message().message(), "hello");
  EXPECT_EQ(events[5].wall_time(), 42.5);
  EXPECT_EQ(events[5].step(), 7);

  const std::vector<ScalarValue> scalars = ScalarSummaries(events);
  ASSERT_EQ(scalars.size(), 2u);
  EXPECT_EQ(scalars[0].tag, "cost/cost");
  EXPECT_EQ(scalars[0].step, 2);
  EXPECT_EQ(scalars[0].simple_value, 155089.265625f);
  EXPECT_EQ(scalars[1].tag, "global_step/sec");
  EXPECT_EQ(scalars[1].step, 103);
  EXPECT_EQ(scalars[1].simple_value, 8.188338279724121f);
}

// The flush thread writes by itself once flush_secs of (fake) time have passed, not before.
TEST(FileWriterTest, FlushThreadWritesAfterFlushSecs) {
  FakeClock clock;
  WatchedFileSystem fs;
  const std::string dir = NewLogDir("by_time");
  FileWriterOptions options = Options(&clock, &fs);
  options.max_queue = 100;
  FileWriter writer(dir, options);
  clock.BlockUntilThreadsAsleep(1);  // The flush thread waits, its deadline 120 s away.
  writer.AddSummary(Scalar("loss", 1.0f), 1);
  fs.WaitForSyncs(1);  // The first add made the file; the summary is still queued.
  EXPECT_EQ(ReadEventDirectory(dir).size(), 1u);

  clock.Advance(119 * kSecond);  // Not yet due: the thread is not woken.
  EXPECT_EQ(ReadEventDirectory(dir).size(), 1u);
  EXPECT_EQ(fs.syncs(), 1);

  clock.Advance(1 * kSecond);  // Due: the thread writes the first record, then the summary.
  fs.WaitForSyncs(2);
  const std::vector<tensorflow::Event> events = ReadEventDirectory(dir);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].summary().value(0).tag(), "loss");
}

// Reaching max_queue wakes the thread at once, with no time passing.
TEST(FileWriterTest, FlushThreadWritesWhenQueueReachesMaxQueue) {
  FakeClock clock;
  WatchedFileSystem fs;
  const std::string dir = NewLogDir("by_size");
  FileWriterOptions options = Options(&clock, &fs);
  options.max_queue = 3;
  FileWriter writer(dir, options);
  writer.AddSummary(Scalar("a", 1), 1);
  writer.AddSummary(Scalar("b", 2), 2);
  fs.WaitForSyncs(1);  // The file and its first record; the two summaries wait.
  EXPECT_EQ(ReadEventDirectory(dir).size(), 1u);

  writer.AddSummary(Scalar("c", 3), 3);
  fs.WaitForSyncs(2);
  const std::vector<ScalarValue> scalars = ScalarSummaries(ReadEventDirectory(dir));
  ASSERT_EQ(scalars.size(), 3u);
  EXPECT_EQ(scalars[2].tag, "c");
  EXPECT_EQ(clock.NowMicros(), 0);
}

// Flush returns only when everything queued before it is in the file.
TEST(FileWriterTest, FlushWaitsUntilEverythingIsWritten) {
  FakeClock clock;
  FileWriterOptions options = Options(&clock);
  options.max_queue = 1000;
  FileWriter writer(NewLogDir("flush"), options);
  for (int step = 1; step <= 50; ++step) writer.AddSummary(Scalar("loss", step * 0.5f), step);
  writer.Flush();
  const std::vector<ScalarValue> scalars = ScalarSummaries(ReadEventFile(writer.filename()));
  ASSERT_EQ(scalars.size(), 50u);
  EXPECT_EQ(scalars[49].step, 50);
  EXPECT_EQ(scalars[49].simple_value, 25.0f);
  writer.Flush();  // Nothing new: returns at once.
}

// Close writes what is queued; a second Close does nothing; adds afterwards are dropped
// with TensorFlow's warning.
TEST(FileWriterTest, CloseIsIdempotentAndLaterAddsAreDropped) {
  FakeClock clock;
  FileWriter writer(NewLogDir("close"), Options(&clock));
  writer.AddSessionLog(Log(tensorflow::SessionLog::STOP), 9);
  writer.Close();
  EXPECT_TRUE(writer.closed());
  writer.Close();
  ASSERT_EQ(ReadEventFile(writer.filename()).size(), 2u);

  ScopedLogCapture capture;
  writer.AddSummary(Scalar("late", 1), 10);
  writer.Flush();  // Does nothing when closed.
  EXPECT_TRUE(capture.Contains("Attempting to use a closed FileWriter"));
  EXPECT_EQ(ReadEventFile(writer.filename()).size(), 2u);
}

// Reopen after Close starts a new file (in a later second) at the next write.
TEST(FileWriterTest, ReopenStartsANewFileAtTheNextWrite) {
  FakeClock clock;
  const std::string dir = NewLogDir("reopen");
  FileWriter writer(dir, Options(&clock));
  writer.AddSummary(Scalar("loss", 1), 1);
  writer.Close();
  const std::string first = writer.filename();

  clock.Advance(5 * kSecond);
  writer.Reopen();
  EXPECT_FALSE(writer.closed());
  writer.Reopen();  // Already open: nothing happens.
  writer.AddSummary(Scalar("loss", 2), 2);
  writer.Flush();
  EXPECT_NE(writer.filename(), first);
  EXPECT_EQ(ListEventFiles(dir),
            (std::vector<std::string>{
                first, JoinPath(dir, "events.out.tfevents.1600000005." + ThisHost())}));
  const std::vector<tensorflow::Event> events = ReadEventDirectory(dir);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[2].file_version(), "brain.Event:2");
  EXPECT_EQ(events[2].wall_time(), kStartSeconds + 5);
}

// Destroying an open writer writes what is queued.
TEST(FileWriterTest, DestructorCloses) {
  FakeClock clock;
  const std::string dir = NewLogDir("destructor");
  {
    FileWriter writer(dir, Options(&clock));
    writer.AddSummary(Scalar("loss", 3), 3);
  }
  EXPECT_EQ(ScalarSummaries(ReadEventDirectory(dir)).size(), 1u);
}

// A tag's metadata goes out with its first value only, as TensorFlow's writer does.
TEST(FileWriterTest, SummaryMetadataIsKeptOnlyTheFirstTimeATagIsSeen) {
  FakeClock clock;
  FileWriter writer(NewLogDir("metadata"), Options(&clock));
  tensorflow::Summary summary = Scalar("loss", 1);
  summary.mutable_value(0)->mutable_metadata()->set_display_name("Loss");
  writer.AddSummary(summary, 1);
  writer.AddSummary(summary, 2);
  writer.Flush();
  const std::vector<tensorflow::Event> events = ReadEventFile(writer.filename());
  ASSERT_EQ(events.size(), 3u);
  EXPECT_TRUE(events[1].summary().value(0).has_metadata());
  EXPECT_EQ(events[1].summary().value(0).metadata().display_name(), "Loss");
  EXPECT_FALSE(events[2].summary().value(0).has_metadata());
}

// Bytes that are not a Summary are refused before anything is queued.
TEST(FileWriterTest, AddSummaryRejectsBytesThatAreNotASummary) {
  FakeClock clock;
  FileWriter writer(NewLogDir("bad_summary"), Options(&clock));
  EXPECT_THROW(writer.AddSummary(std::string("\xff\xff\xff", 3), 1), InvalidArgumentError);
  writer.Flush();
  EXPECT_EQ(writer.filename(), "");  // Nothing was written, so no file was made.
}

// A failed write on the flush thread (a full disk) is logged when it happens, naming the
// file; Flush does not raise it (TensorFlow logs and carries on). The events are kept and
// written with the next flush once the disk works, into the same file: nothing is lost.
TEST(FileWriterTest, AFailedWriteIsLoggedAndItsEventsWrittenLaterInTheSameFile) {
  FakeClock clock;
  WatchedFileSystem fs;
  ScopedLogCapture log;
  const std::string dir = NewLogDir("failure");
  FileWriter writer(dir, Options(&clock, &fs));
  writer.AddSummary(Scalar("ok", 1), 1);
  writer.Flush();
  const std::string file = writer.filename();

  fs.set_fail_appends(true);
  writer.AddSummary(Scalar("kept", 2), 2);
  EXPECT_NO_THROW(writer.Flush());
  EXPECT_TRUE(log.Contains("FileWriter: writing to " + file + " failed: "));
  EXPECT_TRUE(log.Contains("1 event(s) are kept"));

  fs.set_fail_appends(false);
  writer.AddSummary(Scalar("ok", 3), 3);
  writer.Flush();
  EXPECT_TRUE(log.Contains("again after 1 failed attempt(s); 0 event(s) were dropped"));
  EXPECT_EQ(writer.filename(), file);
  EXPECT_EQ(ListEventFiles(dir), std::vector<std::string>{file});
  const std::vector<ScalarValue> scalars = ScalarSummaries(ReadEventFile(file));
  ASSERT_EQ(scalars.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(scalars[i].step, i + 1);
}

// Issue 32, item 11. On a full disk the writer backs off: the max_queue trigger sleeps,
// attempts come 1, 2, 4 ... s apart and each is said once; every attempt reuses the one file,
// first cutting off the record the last failure tore. Once the disk works, every event is
// in that file, in order, and the file reads to its end.
TEST(FileWriterTest, AFullDiskIsRetriedWithBackoffInOneFileAndLosesNothing) {
  FakeClock clock;
  WatchedFileSystem fs;
  ScopedLogCapture log;
  const std::string dir = NewLogDir("full_disk");
  FileWriterOptions options = Options(&clock, &fs);
  options.max_queue = 2;
  FileWriter writer(dir, options);
  writer.AddSummary(Scalar("loss", 1), 1);
  writer.Flush();
  const std::string file = writer.filename();

  fs.set_appends(WatchedFileSystem::Appends::kTear);
  writer.AddSummary(Scalar("loss", 2), 2);
  writer.Flush();  // Fails, tearing half a record into the file...
  EXPECT_EQ(ScalarSummaries(ReadEventFile(file)).size(), 1u);  // ...which is cut off at once.
  for (int step = 3; step <= 8; ++step) writer.AddSummary(Scalar("loss", step), step);
  clock.BlockUntilThreadsAsleep(1);
  clock.Advance(kSecond);  // The first retry is due: one attempt, despite max_queue.
  fs.WaitForFailures(2);
  clock.BlockUntilThreadsAsleep(1);  // Back in its wait: the attempt is logged.
  EXPECT_EQ(fs.failures(), 2);
  EXPECT_EQ(CountLines(log, "still cannot be written"), 1);
  clock.Advance(kSecond);  // The next is 2 s after the last: not yet.
  clock.Advance(kSecond);
  fs.WaitForFailures(3);
  clock.BlockUntilThreadsAsleep(1);
  EXPECT_EQ(fs.failures(), 3);
  EXPECT_EQ(CountLines(log, "still cannot be written"), 2);
  EXPECT_TRUE(log.Contains("7 event(s) wait, 0 dropped"));

  fs.set_appends(WatchedFileSystem::Appends::kWork);  // The disk is freed.
  const int syncs = fs.syncs();
  clock.Advance(4 * kSecond);
  fs.WaitForSyncs(syncs + 1);
  writer.Close();
  EXPECT_TRUE(log.Contains("again after 3 failed attempt(s)"));
  EXPECT_EQ(ListEventFiles(dir), std::vector<std::string>{file});
  const std::vector<ScalarValue> scalars = ScalarSummaries(ReadEventFile(file));
  ASSERT_EQ(scalars.size(), 8u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(scalars[i].step, i + 1);
}

// A file whose first record could not be written (the disk full as it was made) is the
// file the next attempt uses: one file, whole, however many attempts it takes.
TEST(FileWriterTest, AFileWhoseFirstRecordFailedIsReusedNotMultiplied) {
  FakeClock clock;
  WatchedFileSystem fs;
  ScopedLogCapture log;
  const std::string dir = NewLogDir("first_record_fails");
  FileWriter writer(dir, Options(&clock, &fs));
  fs.set_appends(WatchedFileSystem::Appends::kTear);
  writer.AddSummary(Scalar("loss", 1), 1);
  for (int attempt = 2; attempt <= 4; ++attempt) {
    writer.AddSummary(Scalar("loss", attempt), attempt);
    writer.Flush();
  }
  EXPECT_EQ(ListEventFiles(dir).size(), 1u);
  fs.set_appends(WatchedFileSystem::Appends::kWork);
  writer.AddSummary(Scalar("loss", 5), 5);
  writer.Flush();
  ASSERT_EQ(ListEventFiles(dir).size(), 1u);
  const std::vector<tensorflow::Event> events = ReadEventFile(ListEventFiles(dir)[0]);
  EXPECT_EQ(events[0].file_version(), "brain.Event:2");
  EXPECT_EQ(ScalarSummaries(events).size(), 5u);
}

// Close on a disk that still fails does not throw: it logs the events it could not write,
// and leaves the file ending at its last whole record.
TEST(FileWriterTest, CloseOnAFailingDiskLogsTheLostEventsAndLeavesTheFileWhole) {
  FakeClock clock;
  WatchedFileSystem fs;
  ScopedLogCapture log;
  FileWriter writer(NewLogDir("close_failing"), Options(&clock, &fs));
  writer.AddSummary(Scalar("loss", 1), 1);
  writer.Flush();
  fs.set_appends(WatchedFileSystem::Appends::kTear);
  writer.AddSummary(Scalar("loss", 2), 2);
  writer.AddSummary(Scalar("loss", 3), 3);
  EXPECT_NO_THROW(writer.Close());
  EXPECT_TRUE(log.Contains("closing with 2 event(s) that could not be written"));
  EXPECT_EQ(ScalarSummaries(ReadEventFile(writer.filename())).size(), 1u);  // No torn tail.
}

// Issue 32, item 4. The event file deleted mid-run: the next flush notices, says so, and
// writes that flush's events and every later one into a new file; none is lost.
TEST(FileWriterTest, ADeletedEventFileIsMadeAgainWithTheEventsOfThatFlush) {
  FakeClock clock;
  ScopedLogCapture log;
  const std::string dir = NewLogDir("deleted");
  FileWriter writer(dir, Options(&clock));
  writer.AddSummary(Scalar("loss", 1), 1);
  writer.Flush();
  const std::string first = writer.filename();
  DefaultFileSystem()->DeleteFile(first);

  clock.Advance(3 * kSecond);
  writer.AddSummary(Scalar("loss", 2), 2);
  writer.Flush();
  writer.AddSummary(Scalar("loss", 3), 3);
  writer.Close();
  EXPECT_TRUE(log.Contains("The events file " + first + " has disappeared"));
  const std::vector<std::string> files = ListEventFiles(dir);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0], writer.filename());
  const std::vector<tensorflow::Event> events = ReadEventFile(files[0]);
  EXPECT_EQ(events[0].file_version(), "brain.Event:2");
  const std::vector<ScalarValue> scalars = ScalarSummaries(events);
  ASSERT_EQ(scalars.size(), 2u);
  EXPECT_EQ(scalars[0].step, 2);
  EXPECT_EQ(scalars[1].step, 3);
}

// The directory removed (and made again, or not) mid-run: the writer makes the directory
// and a new file in it, and the events after the removal all arrive.
TEST(FileWriterTest, ARemovedLogDirectoryIsMadeAgainWithANewFile) {
  for (const bool recreate : {true, false}) {
    FakeClock clock;
    const std::string dir = NewLogDir(recreate ? "removed_recreated" : "removed");
    FileWriter writer(dir, Options(&clock));
    writer.AddSummary(Scalar("loss", 1), 1);
    writer.Flush();
    std::filesystem::remove_all(dir);
    if (recreate) std::filesystem::create_directories(dir);
    writer.AddSummary(Scalar("loss", 2), 2);
    writer.Flush();
    writer.AddSummary(Scalar("loss", 3), 3);
    writer.Close();
    const std::vector<ScalarValue> scalars = ScalarSummaries(ReadEventDirectory(dir));
    ASSERT_EQ(scalars.size(), 2u) << "recreate " << recreate;
    EXPECT_EQ(scalars[0].step, 2);
    EXPECT_EQ(scalars[1].step, 3);
  }
}

// Two writers that open their files in the same second (two runs started together) never
// truncate each other: the second gets a name of its own, and both files keep their events.
TEST(FileWriterTest, TwoWritersInTheSameSecondKeepSeparateFiles) {
  FakeClock clock;
  const std::string dir = NewLogDir("same_second");
  FileWriter first(dir, Options(&clock));
  FileWriter second(dir, Options(&clock));
  first.AddSummary(Scalar("first", 1), 1);
  first.Flush();
  second.AddSummary(Scalar("second", 2), 2);
  second.Flush();
  first.AddSummary(Scalar("first", 3), 3);
  first.Flush();
  ASSERT_NE(first.filename(), second.filename());
  EXPECT_NE(second.filename().find("tfevents"), std::string::npos);
  EXPECT_EQ(ScalarSummaries(ReadEventFile(first.filename())).size(), 2u);
  EXPECT_EQ(ScalarSummaries(ReadEventFile(second.filename())).size(), 1u);
}

// Several threads add at once (the training thread and, say, a logging thread); every event
// arrives. Run under --config=tsan this also checks the locking.
TEST(FileWriterTest, ConcurrentAddsAllArrive) {
  FakeClock clock;
  FileWriterOptions options = Options(&clock);
  options.max_queue = 7;
  FileWriter writer(NewLogDir("concurrent"), options);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&writer, t] {
      for (int i = 0; i < 100; ++i) {
        writer.AddSummary(Scalar("thread" + std::to_string(t), static_cast<float>(i)), i);
        if (i % 25 == 0) writer.Flush();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  writer.Close();
  EXPECT_EQ(ScalarSummaries(ReadEventFile(writer.filename())).size(), 400u);
}

// The cache hands every caller the same writer for one directory and different writers for
// different directories; Clear closes them and forgets them.
TEST(SummaryWriterCacheTest, OneWriterPerDirectoryUntilClear) {
  const std::string a = NewLogDir("cache_a");
  const std::string b = NewLogDir("cache_b");
  std::shared_ptr<FileWriter> first = SummaryWriterCache::Get(a);
  EXPECT_EQ(SummaryWriterCache::Get(a), first);
  EXPECT_NE(SummaryWriterCache::Get(b), first);
  EXPECT_EQ(first->logdir(), a);

  SummaryWriterCache::Clear();
  EXPECT_TRUE(first->closed());
  std::shared_ptr<FileWriter> second = SummaryWriterCache::Get(a);
  EXPECT_NE(second, first);
  SummaryWriterCache::Clear();
}

// Many threads asking at once for the same directory all get one writer.
TEST(SummaryWriterCacheTest, ConcurrentGetsShareOneWriter) {
  const std::string dir = NewLogDir("cache_concurrent");
  std::vector<std::shared_ptr<FileWriter>> got(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < got.size(); ++i) {
    threads.emplace_back([&, i] { got[i] = SummaryWriterCache::Get(dir); });
  }
  for (std::thread& thread : threads) thread.join();
  for (const std::shared_ptr<FileWriter>& writer : got) EXPECT_EQ(writer, got[0]);
  SummaryWriterCache::Clear();
}

// A writer of the caller's (over a test's disk) can be put in the cache, once per directory;
// Get then returns it.
TEST(SummaryWriterCacheTest, InsertMakesAWriterTheDirectorysUntilClear) {
  FakeClock clock;
  const std::string dir = NewLogDir("cache_insert");
  auto writer = std::make_shared<FileWriter>(dir, Options(&clock));
  SummaryWriterCache::Insert(writer);
  EXPECT_EQ(SummaryWriterCache::Get(dir), writer);
  EXPECT_THROW(SummaryWriterCache::Insert(std::make_shared<FileWriter>(dir, Options(&clock))),
               AlreadyExistsError);
  SummaryWriterCache::Clear();  // Before `clock` goes: the writer borrows it.
  EXPECT_TRUE(writer->closed());
}

}  // namespace
}  // namespace mts
