// Tests of the CSV reader exercise: a reader thread fills a small queue from a file while
// the test, as the consumer, dequeues. A watchdog closes the session if the consumer is
// still blocked after a generous deadline, so a reader that never enqueues or never closes
// the queue fails the test instead of hanging it.
#include "chapters/04_coordinated/exercises/csv_runner/csv_runner.h"

#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/platform/errors.h"
#include "src/01_session/session.h"
#include "src/04_coordinated/coordinated_thread.h"
#include "src/04_coordinated/queue/fifo_queue.h"
#include "tests/testing/expect_error.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Throws;

// Closes `session` unless dismissed (by destruction) within the deadline: a blocked Dequeue
// then fails with CancelledError. Only a failing test ever waits for the deadline.
class Watchdog {
 public:
  explicit Watchdog(Session& session)
      : thread_([this, &session] {
          std::unique_lock<std::mutex> lock(mu_);
          if (!cv_.wait_for(lock, std::chrono::seconds(5), [this] { return dismissed_; })) {
            session.Close();
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      dismissed_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool dismissed_ = false;  // Guarded by mu_.
  std::thread thread_;      // Declared last: it starts once the members above exist.
};

class CsvReaderTest : public ::testing::Test {
 protected:
  CsvReaderTest() {
    const char* tmp = std::getenv("TEST_TMPDIR");
    path_ = JoinPath(tmp != nullptr ? tmp : "/tmp", "data.csv");
    ops_.columns = {Placeholder(DataType::kInt32, TensorShape{}, "id"),
                    Placeholder(DataType::kFloat, TensorShape{}, "x"),
                    Placeholder(DataType::kString, TensorShape{}, "label")};
    ops_.enqueue = queue_.Enqueue(ops_.columns);
    ops_.close = queue_.Close();
  }

  // Writes `contents` to the file and starts a reader thread on it.
  void StartReader(const std::string& contents) {
    DefaultFileSystem()->WriteFileAtomically(path_, contents);
    reader_ = std::make_shared<CoordinatedThread>(
        "csv_reader", MakeCsvReader(path_, ops_, &session_, &coord_));
    reader_->Start();
  }

  // The next row's id, after checking that the row is (id, id + 0.5, label).
  int32_t NextId(const std::string& label) {
    std::vector<Tensor> row = session_.Run(next_);
    const int32_t id = row[0].scalar<int32_t>();
    EXPECT_EQ(row[1].scalar<float>(), id + 0.5f);
    EXPECT_EQ(row[2].scalar<std::string>(), label);
    return id;
  }

  Graph graph_;
  DefaultGraphScope scope_{graph_};
  Queue queue_ = FIFOQueue(/*capacity=*/1, {DataType::kInt32, DataType::kFloat, DataType::kString},
                           {TensorShape{}, TensorShape{}, TensorShape{}}, "rows");
  std::vector<Output> next_ = queue_.Dequeue();
  CsvEnqueueOps ops_;
  std::string path_;
  Session session_{&graph_};
  Coordinator coord_;
  std::shared_ptr<CoordinatedThread> reader_;
};

// The rows arrive in file order (blank lines skipped); at the end of the file the reader
// closes the queue, the consumer gets OutOfRange, and no error, no stop, was recorded.
TEST_F(CsvReaderTest, RowsArriveInOrderThenTheQueueCloses) {
  StartReader("1,1.5,cat\n2,2.5,dog\n\n3,3.5,emu\n");
  {
    Watchdog watchdog(session_);
    EXPECT_EQ(NextId("cat"), 1);
    EXPECT_EQ(NextId("dog"), 2);
    EXPECT_EQ(NextId("emu"), 3);
    EXPECT_THROW(session_.Run(next_), OutOfRangeError);
  }
  EXPECT_FALSE(coord_.ShouldStop());
  coord_.RequestStop();
  EXPECT_NO_THROW(coord_.Join({reader_}));
}

// A bad row stops the coordinator with an error naming the file and line; the rows before
// it were enqueued, and the queue was closed so that the consumer did not wait forever.
TEST_F(CsvReaderTest, ABadRowIsReportedWithItsLineNumber) {
  const std::tuple<std::string, std::string> cases[] = {
      {"x,2.5,dog", "not an integer"},
      {"2,2.5x,dog", "not a float"},
      {"2,2.5", "2 fields, expected 3"},
      {"2,2.5,dog,extra", "4 fields, expected 3"},
      {"99999999999,2.5,dog", "not an int32"},
  };
  for (const auto& [bad_row, complaint] : cases) {
    SCOPED_TRACE(bad_row);
    Session session(&graph_);
    Coordinator coord;
    DefaultFileSystem()->WriteFileAtomically(path_, "1,1.5,cat\n" + bad_row + "\n3,3.5,emu\n");
    auto reader = std::make_shared<CoordinatedThread>(
        "csv_reader", MakeCsvReader(path_, ops_, &session, &coord));
    reader->Start();
    {
      Watchdog watchdog(session);
      std::vector<Tensor> row = session.Run(next_);
      EXPECT_EQ(row[0].scalar<int32_t>(), 1);
      EXPECT_THROW(session.Run(next_), OutOfRangeError);
    }
    EXPECT_TRUE(coord.ShouldStop()) << "the error must be recorded before the queue closes";
    EXPECT_THAT([&] { coord.Join({reader}); },
                Throws<InvalidArgumentError>(
                    HasMessage(AllOf(HasSubstr(path_ + ":2: "), HasSubstr(complaint)))));
  }
}

// A file that cannot be read is the reader's error; the queue is closed all the same.
TEST_F(CsvReaderTest, AMissingFileIsReportedToTheCoordinator) {
  reader_ = std::make_shared<CoordinatedThread>(
      "csv_reader", MakeCsvReader(path_ + ".missing", ops_, &session_, &coord_));
  reader_->Start();
  {
    Watchdog watchdog(session_);
    EXPECT_THROW(session_.Run(next_), OutOfRangeError);
  }
  EXPECT_THROW(coord_.Join({reader_}), NotFoundError);
}

// A stop requested before the reader starts: it reads nothing, and closes the queue.
TEST_F(CsvReaderTest, AStopBeforeTheStartReadsNothing) {
  coord_.RequestStop();
  StartReader("1,1.5,cat\n");
  {
    Watchdog watchdog(session_);
    EXPECT_THROW(session_.Run(next_), OutOfRangeError);
  }
  EXPECT_NO_THROW(coord_.Join({reader_}));
}

// A stop ends the reading at the next row: the row being enqueued still goes in, then the
// queue closes, and the stop carries no error. The queue holds one row, so at the stop the
// reader is at most one row ahead of the queue.
TEST_F(CsvReaderTest, AStopEndsTheReadingAtTheNextRow) {
  std::string many;
  for (int i = 1; i <= 100; ++i) many += std::to_string(i) + "," + std::to_string(i) + ".5,row\n";
  StartReader(many);
  int32_t last = 0;
  {
    Watchdog watchdog(session_);
    EXPECT_EQ(last = NextId("row"), 1);
    coord_.RequestStop();
    try {
      while (true) {
        const int32_t id = NextId("row");
        EXPECT_EQ(id, last + 1);
        last = id;
      }
    } catch (const OutOfRangeError&) {
      // The reader closed the queue.
    }
  }
  EXPECT_LE(last, 3) << "the reader went on after the stop";
  EXPECT_NO_THROW(coord_.Join({reader_}));
}

}  // namespace
}  // namespace mts
