// Tests of event_file_reader.h against real event files TensorFlow 1.x wrote
// (tests/testdata/tfevents/). Every record of every file is checked against the table in
// that directory's SOURCES.md: wall time, step, kind, and every tag and value, exactly.
#include "src/03_hooked/events/event_file_reader.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/03_hooked/events/record_writer.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"

namespace mts {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

const char kTestData[] = "tests/testdata/tfevents";

std::string TestFile(const std::string& name) { return JoinPath(kTestData, name); }

// One Summary.Value as SOURCES.md shows it: a scalar, or a histogram's statistics.
struct Value {
  std::string tag;
  bool histogram = false;
  double simple_value = 0;  // For scalars: the float32, widened exactly.
  double num = 0, min = 0, max = 0, sum = 0, sum_squares = 0;
  int buckets = 0;
};

Value S(const std::string& tag, double simple_value) { return {tag, false, simple_value}; }

Value H(const std::string& tag, double num, double min, double max, double sum, double sum_squares,
        int buckets) {
  return {tag, true, 0, num, min, max, sum, sum_squares, buckets};
}

// One record: its wall time and step, what it holds (in words), and its summary values.
struct Row {
  double wall_time;
  int64_t step;
  std::string what;
  std::vector<Value> values;
};

// The record described in the words the tables use: "session_log CHECKPOINT <path>",
// "graph_def <bytes>", "summary", ...
std::string What(const tensorflow::Event& event) {
  switch (event.what_case()) {
    case tensorflow::Event::kFileVersion:
      return "file_version " + event.file_version();
    case tensorflow::Event::kGraphDef:
      return "graph_def " + std::to_string(event.graph_def().size());
    case tensorflow::Event::kMetaGraphDef:
      return "meta_graph_def " + std::to_string(event.meta_graph_def().size());
    case tensorflow::Event::kSessionLog: {
      const tensorflow::SessionLog& log = event.session_log();
      std::string what = "session_log " + tensorflow::SessionLog::SessionStatus_Name(log.status());
      if (!log.checkpoint_path().empty()) what += " " + log.checkpoint_path();
      return what;
    }
    case tensorflow::Event::kSummary:
      return "summary";
    default:
      return "other";
  }
}

// Checks `events` against `rows`, record by record, value by value, with exact equality:
// the tables print each float32 or double in full, so nothing is approximate.
void ExpectEventsMatch(const std::vector<tensorflow::Event>& events, const std::vector<Row>& rows) {
  ASSERT_EQ(events.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE("record " + std::to_string(i));
    const tensorflow::Event& event = events[i];
    const Row& row = rows[i];
    EXPECT_EQ(event.wall_time(), row.wall_time);
    EXPECT_EQ(event.step(), row.step);
    EXPECT_EQ(What(event), row.what);
    ASSERT_EQ(event.summary().value_size(), static_cast<int>(row.values.size()));
    for (size_t v = 0; v < row.values.size(); ++v) {
      const tensorflow::Summary::Value& got = event.summary().value(static_cast<int>(v));
      const Value& want = row.values[v];
      EXPECT_EQ(got.tag(), want.tag);
      if (!want.histogram) {
        ASSERT_EQ(got.value_case(), tensorflow::Summary::Value::kSimpleValue) << want.tag;
        EXPECT_EQ(static_cast<double>(got.simple_value()), want.simple_value) << want.tag;
        continue;
      }
      ASSERT_EQ(got.value_case(), tensorflow::Summary::Value::kHisto) << want.tag;
      const tensorflow::HistogramProto& histo = got.histo();
      EXPECT_EQ(histo.num(), want.num) << want.tag;
      EXPECT_EQ(histo.min(), want.min) << want.tag;
      EXPECT_EQ(histo.max(), want.max) << want.tag;
      EXPECT_EQ(histo.sum(), want.sum) << want.tag;
      EXPECT_EQ(histo.sum_squares(), want.sum_squares) << want.tag;
      EXPECT_EQ(histo.bucket_size(), want.buckets) << want.tag;
      EXPECT_EQ(histo.bucket_limit_size(), want.buckets) << want.tag;
    }
  }
}

// Every record of tfdist-tf1.8-monitoredtrainingsession-mnist.tfevents, as SOURCES.md lists it.
const std::vector<Row>& TfDistRows() {
  static const auto* rows = new std::vector<Row>{
      {1530671451.0, 0, "file_version brain.Event:2", {}},
      {1530671451.7972715, 0, "graph_def 74165", {}},
      {1530671451.8225162, 0, "meta_graph_def 82933", {}},
      {1530671452.4627748, 0, "graph_def 111980", {}},
      {1530671452.472448, 0, "meta_graph_def 123315", {}},
      {1530671452.8050456, 2, "session_log START", {}},
      {1530671452.8051326,
       2,
       "summary",
       {S("cost/cost", 155089.265625), S("accuracy/accuracy", 0.1328125)}},
      {1530671453.1293151, 2, "session_log CHECKPOINT logs/model.ckpt", {}},
      {1530671465.1393056, 103, "summary", {S("global_step/sec", 8.188338279724121)}},
      {1530671465.1403425,
       103,
       "summary",
       {S("cost/cost", 914.0042724609375), S("accuracy/accuracy", 0.90234375)}},
      {1530671476.9570296, 204, "summary", {S("global_step/sec", 8.54658031463623)}},
      {1530671476.958191,
       204,
       "summary",
       {S("cost/cost", 33386.765625), S("accuracy/accuracy", 0.62109375)}},
      {1530671487.3008983, 305, "summary", {S("global_step/sec", 9.764185905456543)}},
      {1530671487.559388,
       308,
       "summary",
       {S("cost/cost", 804.6302490234375), S("accuracy/accuracy", 0.90234375)}},
      {1530671496.2387698, 405, "summary", {S("global_step/sec", 11.188179969787598)}},
      {1530671496.8757684,
       412,
       "summary",
       {S("cost/cost", 177.1956329345703), S("accuracy/accuracy", 0.95703125)}},
      {1530671505.561777, 507, "summary", {S("global_step/sec", 10.94067096710205)}},
      {1530671506.205744,
       515,
       "summary",
       {S("cost/cost", 127.85061645507812), S("accuracy/accuracy", 0.97265625)}},
      {1530671513.3974833, 591, "session_log CHECKPOINT logs/model.ckpt", {}},
      {1530671514.8251574, 609, "summary", {S("global_step/sec", 11.01115608215332)}},
      {1530671515.5071595,
       617,
       "summary",
       {S("cost/cost", 145.4541015625), S("accuracy/accuracy", 0.97265625)}},
      {1530671523.944707, 710, "summary", {S("global_step/sec", 11.075221061706543)}},
      {1530671524.688986,
       718,
       "summary",
       {S("cost/cost", 83.66429138183594), S("accuracy/accuracy", 0.96875)}},
      {1530671533.041188, 810, "summary", {S("global_step/sec", 10.993106842041016)}},
      {1530671534.0149672,
       822,
       "summary",
       {S("cost/cost", 129.58216857910156), S("accuracy/accuracy", 0.9609375)}},
      {1530671542.0477915, 911, "summary", {S("global_step/sec", 11.213987350463867)}},
      {1530671543.3428264,
       927,
       "summary",
       {S("cost/cost", 128.9566650390625), S("accuracy/accuracy", 0.97265625)}},
      {1530671551.1644568, 1014, "summary", {S("global_step/sec", 11.298112869262695)}},
      {1530671552.6549084,
       1030,
       "summary",
       {S("cost/cost", 98.61798095703125), S("accuracy/accuracy", 0.98046875)}},
      {1530671560.272865, 1116, "summary", {S("global_step/sec", 11.198322296142578)}},
      {1530671561.967407,
       1135,
       "summary",
       {S("cost/cost", 13.669496536254883), S("accuracy/accuracy", 0.9921875)}},
      {1530671569.362592, 1218, "summary", {S("global_step/sec", 11.221656799316406)}},
      {1530671571.1788042,
       1239,
       "summary",
       {S("cost/cost", 31.045320510864258), S("accuracy/accuracy", 0.98046875)}},
      {1530671573.663566, 1263, "session_log CHECKPOINT logs/model.ckpt", {}},
  };
  return *rows;
}

// Every record of tfiris-tf1.8-estimator-dnn-histograms.tfevents, as SOURCES.md lists it.
const std::vector<Row>& TfIrisRows() {
  static const auto* rows = new std::vector<Row>{
      {1530598689.0, 0, "file_version brain.Event:2", {}},
      {1530598689.918724, 0, "graph_def 82886", {}},
      {1530598689.9336305, 0, "meta_graph_def 94800", {}},
      {1530598690.2004478, 0, "graph_def 115513", {}},
      {1530598690.2075522, 0, "meta_graph_def 128704", {}},
      {1530598690.2951264,
       1,
       "session_log CHECKPOINT /home/alessandro/bessimaestro/tf-iris/logs/model.ckpt",
       {}},
      {1530598690.2956412, 1, "session_log START", {}},
      {1530598690.2957406,
       1,
       "summary",
       {S("dnn/dnn/hiddenlayer_0/fraction_of_zero_values", 0.66796875),
        H("dnn/dnn/hiddenlayer_0/activation", 512.0, 0.0, 5.401406764984131, 456.40961606800556,
          1609.932028539499, 36),
        S("dnn/dnn/hiddenlayer_1/fraction_of_zero_values", 0.73046875),
        H("dnn/dnn/hiddenlayer_1/activation", 512.0, 0.0, 2.3620176315307617, 154.46105578541756,
          238.69366320760594, 34),
        S("dnn/dnn/hiddenlayer_2/fraction_of_zero_values", 0.30859375),
        H("dnn/dnn/hiddenlayer_2/activation", 256.0, 0.0, 1.5792431831359863, 130.61515928432345,
          117.7698580936986, 36),
        S("dnn/dnn/logits/fraction_of_zero_values", 0.0),
        H("dnn/dnn/logits/activation", 96.0, 0.1374034881591797, 0.9646726846694946,
          46.23192135989666, 26.79242014525311, 23),
        S("loss", 38.62394714355469), S("average_loss", 1.206998348236084)}},
      {1530598690.4509828, 101, "summary", {S("global_step/sec", 643.4146118164062)}},
      {1530598690.4513614,
       101,
       "summary",
       {S("dnn/dnn/hiddenlayer_0/fraction_of_zero_values", 0.677734375),
        H("dnn/dnn/hiddenlayer_0/activation", 512.0, 0.0, 7.898646831512451, 488.17826893925667,
          2444.1840397185074, 63),
        S("dnn/dnn/hiddenlayer_1/fraction_of_zero_values", 0.74609375),
        H("dnn/dnn/hiddenlayer_1/activation", 512.0, 0.0, 10.336767196655273, 406.9341370537877,
          2066.207804656051, 60),
        S("dnn/dnn/hiddenlayer_2/fraction_of_zero_values", 0.515625),
        H("dnn/dnn/hiddenlayer_2/activation", 256.0, 0.0, 10.350984573364258, 453.4296034872532,
          2553.4498228087004, 42),
        S("dnn/dnn/logits/fraction_of_zero_values", 0.0),
        H("dnn/dnn/logits/activation", 96.0, -8.370635032653809, 18.261871337890625,
          386.06095430254936, 5535.066912007107, 54),
        S("loss", 3.327956438064575), S("average_loss", 0.10399863868951797)}},
      {1530598690.5032537,
       120,
       "session_log CHECKPOINT /home/alessandro/bessimaestro/tf-iris/logs/model.ckpt",
       {}},
  };
  return *rows;
}

// Every record of disttftrain-tf1.1-monitoredtrainingsession-restart.tfevents, as SOURCES.md lists
// it.
const std::vector<Row>& DistTfTrainRows() {
  static const auto* rows = new std::vector<Row>{
      {1499161180.0, 0, "file_version brain.Event:2", {}},
      {1499161180.541917, 0, "graph_def 68251", {}},
      {1499161180.75813, 0, "meta_graph_def 73334", {}},
      {1499161180.763956, 29, "session_log START", {}},
      {1499161180.772149, 29, "summary", {S("global_step/sec", 0.0)}},
      {1499161181.436053,
       30,
       "session_log CHECKPOINT /Users/deben/Documents/workspace/dist_tf_train/logs/model.ckpt",
       {}},
      {1499161301.3772, 273, "summary", {S("global_step/sec", 2.0231339931488037)}},
      {1499161444.088566, 502, "summary", {S("global_step/sec", 1.6046643257141113)}},
  };
  return *rows;
}

// MonitoredTrainingSession in TF 1.8, MNIST: 34 records, every one as SOURCES.md lists it.
TEST(EventFileReaderTest, ReadsTfDistMnistFile) {
  ExpectEventsMatch(ReadEventFile(TestFile("tfdist-tf1.8-monitoredtrainingsession-mnist.tfevents")),
                    TfDistRows());
}

// A TF 1.8 Estimator: histograms beside scalars, CHECKPOINT before START.
TEST(EventFileReaderTest, ReadsTfIrisEstimatorFile) {
  ExpectEventsMatch(ReadEventFile(TestFile("tfiris-tf1.8-estimator-dnn-histograms.tfevents")),
                    TfIrisRows());
}

// TF 1.1, a restarted run: START at the restored step 29, absolute checkpoint path.
TEST(EventFileReaderTest, ReadsDistTfTrainRestartFile) {
  ExpectEventsMatch(
      ReadEventFile(TestFile("disttftrain-tf1.1-monitoredtrainingsession-restart.tfevents")),
      DistTfTrainRows());
}

// The (bucket_limit, bucket) pairs of one histogram, bit for bit: the logits at step 1 in
// the iris file, ending in the collapsed empty tail at DBL_MAX.
TEST(EventFileReaderTest, HistogramBucketsAreExact) {
  const std::vector<tensorflow::Event> events =
      ReadEventFile(TestFile("tfiris-tf1.8-estimator-dnn-histograms.tfevents"));
  ASSERT_EQ(events.size(), 11u);
  const tensorflow::Summary::Value& logits = events[7].summary().value(7);
  ASSERT_EQ(logits.tag(), "dnn/dnn/logits/activation");
  const std::vector<double> limits = {
      0.13634283105891729, 0.14997711416480902, 0.16497482558128992,    0.18147230813941892,
      0.19961953895336082, 0.2195814928486969,  0.24153964213356663,    0.2656936063469233,
      0.29226296698161564, 0.3214892636797772,  0.35363819004775493,    0.38900200905253046,
      0.42790220995778355, 0.47069243095356195, 0.5177616740489182,     0.56953784145381,
      0.6264916255991911,  0.6891407881591103,  0.7580548669750213,     0.8338603536725235,
      0.917246389039776,   1.0089710279437536,  1.7976931348623157e+308};
  const std::vector<double> counts = {0, 4, 1, 4, 3, 2, 1, 3, 4, 1, 5, 9,
                                      6, 7, 7, 8, 6, 5, 7, 7, 4, 2, 0};
  EXPECT_EQ(std::vector<double>(logits.histo().bucket_limit().begin(),
                                logits.histo().bucket_limit().end()),
            limits);
  EXPECT_EQ(std::vector<double>(logits.histo().bucket().begin(), logits.histo().bucket().end()),
            counts);
}

// ScalarSummaries gives the (step, tag, value) triples TensorBoard plots: for the MNIST file,
// 13 cost and 13 accuracy values from SummarySaverHook and 12 steps/sec from StepCounterHook.
TEST(EventFileReaderTest, ScalarSummariesOfTfDistFile) {
  const std::vector<ScalarValue> scalars = ScalarSummaries(
      ReadEventFile(TestFile("tfdist-tf1.8-monitoredtrainingsession-mnist.tfevents")));
  ASSERT_EQ(scalars.size(), 13u + 13u + 12u);
  EXPECT_EQ(scalars[0].step, 2);
  EXPECT_EQ(scalars[0].tag, "cost/cost");
  EXPECT_EQ(scalars[0].simple_value, 155089.265625f);
  EXPECT_EQ(scalars[0].wall_time, 1530671452.8051326);
  EXPECT_EQ(scalars[1].tag, "accuracy/accuracy");
  EXPECT_EQ(scalars[1].simple_value, 0.1328125f);
  EXPECT_EQ(scalars[2].step, 103);
  EXPECT_EQ(scalars[2].tag, "global_step/sec");
  EXPECT_EQ(static_cast<double>(scalars[2].simple_value), 8.188338279724121);
  EXPECT_EQ(scalars.back().step, 1239);
  EXPECT_EQ(scalars.back().tag, "accuracy/accuracy");
  EXPECT_EQ(scalars.back().simple_value, 0.98046875f);

  std::vector<int64_t> steps_per_sec_steps;
  for (const ScalarValue& s : scalars) {
    if (s.tag == "global_step/sec") steps_per_sec_steps.push_back(s.step);
  }
  EXPECT_EQ(steps_per_sec_steps,
            (std::vector<int64_t>{103, 204, 305, 405, 507, 609, 710, 810, 911, 1014, 1116, 1218}));
}

// Histograms are not scalars: the iris file yields only its scalar values (5 + 6).
TEST(EventFileReaderTest, ScalarSummariesSkipHistograms) {
  const std::vector<ScalarValue> scalars =
      ScalarSummaries(ReadEventFile(TestFile("tfiris-tf1.8-estimator-dnn-histograms.tfevents")));
  ASSERT_EQ(scalars.size(), 6u + 1u + 6u);
  for (const ScalarValue& s : scalars) {
    EXPECT_EQ(s.tag.find("/activation"), std::string::npos) << s.tag;
  }
}

// A directory is read file by file in name order; every file here is an event file.
TEST(EventFileReaderTest, ReadsEveryFileOfADirectoryInNameOrder) {
  const std::vector<std::string> files = ListEventFiles(kTestData);
  ASSERT_EQ(files, (std::vector<std::string>{
                       TestFile("disttftrain-tf1.1-monitoredtrainingsession-restart.tfevents"),
                       TestFile("tfdist-tf1.8-monitoredtrainingsession-mnist.tfevents"),
                       TestFile("tfiris-tf1.8-estimator-dnn-histograms.tfevents")}));
  const std::vector<tensorflow::Event> events = ReadEventDirectory(kTestData);
  ASSERT_EQ(events.size(), 8u + 34u + 11u);
  EXPECT_EQ(events[0].wall_time(), 1499161180.0);
  EXPECT_EQ(events[8].wall_time(), 1530671451.0);
  EXPECT_EQ(events[8 + 34].wall_time(), 1530598689.0);
}

// Only names containing "tfevents" count, as in TensorBoard.
TEST(EventFileReaderTest, EventFileNames) {
  EXPECT_TRUE(IsEventFileName("/logs/events.out.tfevents.1530671451.c002-n008"));
  EXPECT_TRUE(IsEventFileName("run.tfevents"));
  EXPECT_FALSE(IsEventFileName("/logs/checkpoint"));
  EXPECT_FALSE(IsEventFileName("/tfevents/model.ckpt-2.index"));
}

// A record whose CRCs are right but whose bytes are not an Event is data loss, with where.
TEST(EventFileReaderTest, RecordThatIsNotAnEventIsDataLoss) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = JoinPath(tmp != nullptr ? tmp : "/tmp", "bad.tfevents");
  tensorflow::Event first;
  first.set_file_version("brain.Event:2");
  DefaultFileSystem()->WriteFileAtomically(
      path, RecordWriter::FrameRecord(first.SerializeAsString()) +
                RecordWriter::FrameRecord(std::string("\xff\xff\xff", 3)));
  EventFileReader reader(path);
  tensorflow::Event event;
  ASSERT_TRUE(reader.Next(&event));
  EXPECT_EQ(event.file_version(), "brain.Event:2");
  EXPECT_THAT([&] { reader.Next(&event); },
              ThrowsMessage<DataLossError>(HasSubstr("at offset 31 in " + path)));
}

// Regression (found by event_file_reader_fuzzer, tests/fuzz/regressions/): after a record
// that is not an Event the reader stays at that record, as its contract says, instead of
// moving past it; asking again reports the same record again.
TEST(EventFileReaderTest, ARecordThatIsNotAnEventDoesNotMoveTheOffset) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = JoinPath(tmp != nullptr ? tmp : "/tmp", "bad_stays.tfevents");
  tensorflow::Event first;
  first.set_file_version("brain.Event:2");
  // A string field (SessionLog.checkpoint_path) holding bytes that are not UTF-8: the
  // record's CRCs match, protobuf refuses the payload.
  tensorflow::Event bad;
  bad.mutable_session_log()->set_checkpoint_path("ok");
  std::string bad_bytes = bad.SerializeAsString();
  bad_bytes.replace(bad_bytes.size() - 2, 2, "\xff\xfe");
  DefaultFileSystem()->WriteFileAtomically(
      path,
      RecordWriter::FrameRecord(first.SerializeAsString()) + RecordWriter::FrameRecord(bad_bytes));
  EventFileReader reader(path);
  tensorflow::Event event;
  ASSERT_TRUE(reader.Next(&event));
  const uint64_t after_first = reader.offset();
  EXPECT_THROW(reader.Next(&event), DataLossError);
  EXPECT_EQ(reader.offset(), after_first);
  EXPECT_THROW(reader.Next(&event), DataLossError);  // The same record, not a clean end.
  EXPECT_EQ(reader.offset(), after_first);
}

// A real file cut in the middle of its last record reads up to that record, then reports a
// truncation (the writer may be still at work), not data loss.
TEST(EventFileReaderTest, CutShortRealFileIsTruncation) {
  const std::string whole = DefaultFileSystem()->ReadFile(
      TestFile("disttftrain-tf1.1-monitoredtrainingsession-restart.tfevents"));
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = JoinPath(tmp != nullptr ? tmp : "/tmp", "cut.tfevents");
  DefaultFileSystem()->WriteFileAtomically(path, whole.substr(0, whole.size() - 10));
  EventFileReader reader(path);
  tensorflow::Event event;
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(reader.Next(&event)) << i;
  EXPECT_THROW(reader.Next(&event), OutOfRangeError);
}

}  // namespace
}  // namespace mts
