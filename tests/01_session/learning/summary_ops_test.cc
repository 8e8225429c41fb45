// Tests of summary_ops.h: the bytes of scalar, histogram and merged summaries, checked against
// the generated proto and against summaries TensorFlow 1.x wrote into real event files.
#include "src/01_session/learning/summary_ops.h"

#include <cfloat>
#include <cmath>
#include <fstream>
#include <iterator>
#include <limits>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/session.h"
#include "tests/testing/expect_error.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::Throws;

tensorflow::Summary Parse(const Tensor& t) {
  EXPECT_EQ(t.dtype(), DataType::kString);
  EXPECT_EQ(t.shape(), TensorShape{});
  tensorflow::Summary summary;
  EXPECT_TRUE(summary.ParseFromString(t.scalar<std::string>()));
  return summary;
}

tensorflow::Summary RunSummary(const Output& op, const FeedDict& feeds = {}) {
  Session session(op.graph());
  return Parse(session.Run(op, feeds));
}

// ---- ScalarSummary ----------------------------------------------------------------------------

// One value, tagged with the name, holding the scalar as a float.
TEST(ScalarSummaryTest, HoldsOneTaggedFloat) {
  Graph g;
  DefaultGraphScope as_default(g);
  Output s = ScalarSummary("loss", Constant(2.5));
  EXPECT_EQ(s.op()->type(), "ScalarSummary");
  EXPECT_EQ(s.op()->name(), "loss");
  tensorflow::Summary summary = RunSummary(s);
  ASSERT_EQ(summary.value_size(), 1);
  EXPECT_EQ(summary.value(0).tag(), "loss");
  EXPECT_EQ(summary.value(0).value_case(), tensorflow::Summary::Value::kSimpleValue);
  EXPECT_EQ(summary.value(0).simple_value(), 2.5f);
}

// Every numeric dtype converts to a float32 value.
TEST(ScalarSummaryTest, AcceptsEveryNumericDtype) {
  const std::vector<std::pair<Tensor, float>> cases = {
      {Tensor::Scalar(1.5f), 1.5f},
      {Tensor::Scalar(0.1), 0.1f},
      {Tensor::Scalar<int32_t>(-7), -7.0f},
      {Tensor::Scalar<int64_t>(123456789), static_cast<float>(123456789)},
  };
  for (const auto& [value, expected] : cases) {
    Graph g;
    DefaultGraphScope as_default(g);
    tensorflow::Summary summary = RunSummary(ScalarSummary("v", Constant(value)));
    EXPECT_EQ(summary.value(0).simple_value(), expected) << value.DebugString();
  }
}

// The tag is the unique name scope: enclosing scopes prefix it and repeats get a suffix.
TEST(ScalarSummaryTest, TagIsTheUniqueNameScope) {
  Graph g;
  DefaultGraphScope as_default(g);
  Output a = ScalarSummary("loss", Constant(1.0f));
  Output b = ScalarSummary("loss", Constant(2.0f));
  Output c;
  {
    NameScope cost("cost");
    c = ScalarSummary("cost", Constant(3.0f));
  }
  Output d = ScalarSummary("my loss!", Constant(4.0f));
  Output e = ScalarSummary("/abs/", Constant(5.0f));
  EXPECT_EQ(RunSummary(a).value(0).tag(), "loss");
  EXPECT_EQ(RunSummary(b).value(0).tag(), "loss_1");
  EXPECT_EQ(RunSummary(c).value(0).tag(), "cost/cost");
  EXPECT_EQ(c.op()->name(), "cost/cost");
  EXPECT_EQ(RunSummary(d).value(0).tag(), "my_loss_");
  EXPECT_EQ(RunSummary(e).value(0).tag(), "abs");
}

// Summaries join the summaries collection unless told otherwise.
TEST(ScalarSummaryTest, JoinsTheGivenCollections) {
  Graph g;
  DefaultGraphScope as_default(g);
  Output a = ScalarSummary("a", Constant(1.0f));
  Output b = ScalarSummary("b", Constant(1.0f), {"mine", "theirs"});
  Output c = ScalarSummary("c", Constant(1.0f), {});
  EXPECT_EQ(g.GetCollection<Output>(GraphKeys::kSummaries), std::vector<Output>{a});
  EXPECT_EQ(g.GetCollection<Output>("mine"), std::vector<Output>{b});
  EXPECT_EQ(g.GetCollection<Output>("theirs"), std::vector<Output>{b});
  (void)c;
}

// Build-time checks: numeric dtype, scalar shape, a name.
TEST(ScalarSummaryTest, RejectsNonNumericNonScalarAndUnnamed) {
  Graph g;
  DefaultGraphScope as_default(g);
  EXPECT_THROW(ScalarSummary("s", Constant(true)), TypeError);
  EXPECT_THROW(ScalarSummary("s", Constant(Tensor::Scalar<std::string>("x"))), TypeError);
  EXPECT_THROW(ScalarSummary("s", Constant(Tensor::Vector<float>({1, 2}))), ValueError);
  EXPECT_THROW(ScalarSummary("", Constant(1.0f)), ValueError);
  EXPECT_THROW(ScalarSummary("///", Constant(1.0f)), ValueError);
  EXPECT_EQ(g.CollectionSize(GraphKeys::kSummaries), 0);
}

// A tensor of unknown rank is checked when run.
TEST(ScalarSummaryTest, ChecksUnknownRankAtRunTime) {
  Graph g;
  DefaultGraphScope as_default(g);
  Output p = Placeholder(DataType::kFloat);
  Output s = ScalarSummary("s", p);
  Session session;
  EXPECT_EQ(Parse(session.Run(s, {{p, Tensor::Scalar(3.0f)}})).value(0).simple_value(), 3.0f);
  EXPECT_THROW(session.Run(s, {{p, Tensor::Vector<float>({1, 2})}}), InvalidArgumentError);
}

// ---- HistogramSummary ---------------------------------------------------------------------

// TensorFlow's default limits, checked at the indices the formats reference gives.
TEST(DefaultHistogramBucketLimitsTest, MatchTensorFlowsKnownValues) {
  const std::vector<double>& limits = DefaultHistogramBucketLimits();
  ASSERT_EQ(limits.size(), 1551u);
  EXPECT_EQ(limits[0], -DBL_MAX);
  EXPECT_EQ(limits[774], -1e-12);
  EXPECT_EQ(limits[775], 0.0);
  EXPECT_EQ(limits[776], 1e-12);
  EXPECT_EQ(limits[777], 1.1000000000000002e-12);
  EXPECT_EQ(limits[778], 1.2100000000000003e-12);
  EXPECT_EQ(limits[1549], 9.920775621859783e19);
  EXPECT_EQ(limits[1550], DBL_MAX);
  EXPECT_EQ(limits[1041], 0.09312398815580714);
  EXPECT_EQ(limits[1042], 0.10243638697138786);
  EXPECT_TRUE(std::is_sorted(limits.begin(), limits.end()));
  for (size_t i = 0; i < 775; ++i) EXPECT_EQ(limits[i], -limits[1550 - i]);
}

// N copies of 0.1: the collapsed run below, one full bucket, the collapsed tail.
TEST(HistogramSummaryTest, CountsIdenticalValuesAsTheReferenceSays) {
  Graph g;
  DefaultGraphScope as_default(g);
  Output h = HistogramSummary("h", Constant(Tensor::Vector<double>({0.1, 0.1, 0.1, 0.1})));
  EXPECT_EQ(h.op()->type(), "HistogramSummary");
  tensorflow::Summary summary = RunSummary(h);
  ASSERT_EQ(summary.value_size(), 1);
  EXPECT_EQ(summary.value(0).tag(), "h");
  ASSERT_TRUE(summary.value(0).has_histo());
  const tensorflow::HistogramProto& histo = summary.value(0).histo();
  EXPECT_EQ(histo.min(), 0.1);
  EXPECT_EQ(histo.max(), 0.1);
  EXPECT_EQ(histo.num(), 4);
  EXPECT_EQ(histo.sum(), 0.1 + 0.1 + 0.1 + 0.1);
  EXPECT_EQ(histo.sum_squares(), 0.1 * 0.1 + 0.1 * 0.1 + 0.1 * 0.1 + 0.1 * 0.1);
  EXPECT_EQ(std::vector<double>(histo.bucket_limit().begin(), histo.bucket_limit().end()),
            (std::vector<double>{0.09312398815580714, 0.10243638697138786, DBL_MAX}));
  EXPECT_EQ(std::vector<double>(histo.bucket().begin(), histo.bucket().end()),
            (std::vector<double>{0, 4, 0}));
}

// Mixed signs, zero, and a value exactly on a limit (it counts in the bucket above).
TEST(HistogramSummaryTest, CountsAKnownInputPerBucket) {
  Graph g;
  DefaultGraphScope as_default(g);
  const std::vector<double>& L = DefaultHistogramBucketLimits();
  // -1 lies in [L[i-1], L[i]) for the first L[i] > -1; 0 and 0 in [0, 1e-12) = bucket 776;
  // 1e-12 equals L[776], so it lands in bucket 777.
  const std::vector<float> values = {0.0f, -1.0f, 0.0f, 2.0f};
  Output h = HistogramSummary("h", Constant(Tensor::Vector<float>(values)));
  std::vector<double> in = {0.0, -1.0, 0.0, 2.0, 1e-12};
  Output h2 = HistogramSummary("h2", Constant(Tensor::Vector<double>(in)));
  const tensorflow::HistogramProto histo = RunSummary(h).value(0).histo();
  const tensorflow::HistogramProto histo2 = RunSummary(h2).value(0).histo();

  auto bucket_of = [&](double x) {
    return static_cast<size_t>(std::upper_bound(L.begin(), L.end(), x) - L.begin());
  };
  const size_t minus_one = bucket_of(-1.0), zero = 776, two = bucket_of(2.0);
  EXPECT_EQ(bucket_of(0.0), zero);
  EXPECT_EQ(bucket_of(1e-12), 777u);
  EXPECT_LE(L[minus_one - 1], -1.0);
  EXPECT_GT(L[minus_one], -1.0);
  // Pairs: empty run up to minus_one - 1, (-1 bucket, 1), empty run, (0 bucket, 2),
  // empty run, (2 bucket, 1), empty tail.
  std::vector<double> limits = {L[minus_one - 1], L[minus_one], L[zero - 1], L[zero],
                                L[two - 1],       L[two],       DBL_MAX};
  std::vector<double> counts = {0, 1, 0, 2, 0, 1, 0};
  EXPECT_EQ(std::vector<double>(histo.bucket_limit().begin(), histo.bucket_limit().end()), limits);
  EXPECT_EQ(std::vector<double>(histo.bucket().begin(), histo.bucket().end()), counts);
  EXPECT_EQ(histo.min(), -1.0);
  EXPECT_EQ(histo.max(), 2.0);
  EXPECT_EQ(histo.num(), 4.0);
  EXPECT_EQ(histo.sum(), 1.0);
  EXPECT_EQ(histo.sum_squares(), 5.0);

  // With 1e-12 as well: buckets 776 and 777 are adjacent, so no empty pair between them.
  limits = {L[minus_one - 1], L[minus_one], L[zero - 1], L[zero], L[777],
            L[two - 1],       L[two],       DBL_MAX};
  counts = {0, 1, 0, 2, 1, 0, 1, 0};
  EXPECT_EQ(std::vector<double>(histo2.bucket_limit().begin(), histo2.bucket_limit().end()),
            limits);
  EXPECT_EQ(std::vector<double>(histo2.bucket().begin(), histo2.bucket().end()), counts);
}

// An empty tensor: min DBL_MAX, max -DBL_MAX, and the single pair (DBL_MAX, 0).
TEST(HistogramSummaryTest, EncodesAnEmptyTensor) {
  Graph g;
  DefaultGraphScope as_default(g);
  const tensorflow::HistogramProto histo =
      RunSummary(HistogramSummary("h", Constant(Tensor::Vector<float>({})))).value(0).histo();
  EXPECT_EQ(histo.min(), DBL_MAX);
  EXPECT_EQ(histo.max(), -DBL_MAX);
  EXPECT_EQ(histo.num(), 0);
  ASSERT_EQ(histo.bucket_limit_size(), 1);
  EXPECT_EQ(histo.bucket_limit(0), DBL_MAX);
  EXPECT_EQ(histo.bucket(0), 0);
}

// A matrix of int64 is flattened; every element is counted once.
TEST(HistogramSummaryTest, AcceptsAnyShapeAndNumericDtype) {
  Graph g;
  DefaultGraphScope as_default(g);
  const tensorflow::HistogramProto histo =
      RunSummary(HistogramSummary("h", Constant(Tensor::Matrix<int64_t>({{1, 2}, {3, 4}}))))
          .value(0)
          .histo();
  EXPECT_EQ(histo.num(), 4);
  EXPECT_EQ(histo.sum(), 10);
  double total = 0;
  for (double c : histo.bucket()) total += c;
  EXPECT_EQ(total, 4);
  EXPECT_THROW(HistogramSummary("b", Constant(Tensor::Vector<bool>({true}))), TypeError);
}

// NaN and infinities fail when run, with TensorFlow's messages naming the op.
TEST(HistogramSummaryTest, RejectsNanAndInfinity) {
  Graph g;
  DefaultGraphScope as_default(g);
  Output p = Placeholder(DataType::kFloat, {TensorShape::kUnknownDim});
  Output h = HistogramSummary("weights", p);
  Session session;
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<std::pair<float, std::string>> cases = {
      {std::nanf(""), "Nan in summary histogram for: weights"},
      {inf, "Infinity in summary histogram for: weights"},
      {-inf, "Infinity in summary histogram for: weights"},
  };
  for (const auto& [bad, message] : cases) {
    EXPECT_THAT(
        [&] {
          session.Run(h, {{p, Tensor::Vector<float>({1.0f, bad})}});
        },
        Throws<InvalidArgumentError>(AllOf(HasMessage(message), HasOpName("weights"))))
        << "a histogram of " << bad;
  }
}

// ---- MergeSummary, MergeAllSummaries --------------------------------------------------------

// Merging concatenates values in input order.
TEST(MergeSummaryTest, ConcatenatesValuesInOrder) {
  Graph g;
  DefaultGraphScope as_default(g);
  Output a = ScalarSummary("a", Constant(1.0f));
  Output h = HistogramSummary("h", Constant(Tensor::Vector<float>({1, 2})));
  Output b = ScalarSummary("b", Constant(2.0f));
  Output merged = MergeSummary({a, h, b});
  EXPECT_EQ(merged.op()->name(), "Merge/MergeSummary");
  EXPECT_EQ(g.CollectionSize(GraphKeys::kSummaries), 3);  // The merge joins no collection.
  tensorflow::Summary summary = RunSummary(merged);
  ASSERT_EQ(summary.value_size(), 3);
  EXPECT_EQ(summary.value(0).tag(), "a");
  EXPECT_EQ(summary.value(1).tag(), "h");
  EXPECT_TRUE(summary.value(1).has_histo());
  EXPECT_EQ(summary.value(2).tag(), "b");
  EXPECT_EQ(summary.value(2).simple_value(), 2.0f);
}

// MergeAllSummaries is nullopt for a graph without summaries, as TensorFlow returns None.
TEST(MergeSummaryTest, MergeAllIsEmptyWithoutSummaries) {
  Graph g;
  DefaultGraphScope as_default(g);
  Constant(1.0f);
  EXPECT_FALSE(MergeAllSummaries().has_value());
  EXPECT_FALSE(MergeAllSummaries(&g).has_value());
}

// MergeAllSummaries merges the collection of the given graph, or of another key.
TEST(MergeSummaryTest, MergeAllMergesTheCollection) {
  Graph g, other;
  DefaultGraphScope as_default(other);
  Output x;
  {
    DefaultGraphScope in_g(g);
    x = Constant(3.0f);
    ScalarSummary("x", x);
    ScalarSummary("y", x);
    ScalarSummary("z", x, {"extra"});
  }
  std::optional<Output> all = MergeAllSummaries(&g);
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(all->graph(), &g);
  tensorflow::Summary summary = RunSummary(*all);
  ASSERT_EQ(summary.value_size(), 2);
  EXPECT_EQ(summary.value(1).tag(), "y");
  EXPECT_EQ(RunSummary(*MergeAllSummaries(&g, "extra")).value(0).tag(), "z");
  EXPECT_FALSE(MergeAllSummaries().has_value());  // `other` has none.
}

// Two values with one tag cannot be merged; bad bytes are reported; inputs must be strings.
TEST(MergeSummaryTest, RejectsDuplicateTagsBadBytesAndNonStrings) {
  Graph g;
  DefaultGraphScope as_default(g);
  Output a = ScalarSummary("a", Constant(1.0f));
  Session session;
  EXPECT_THROW(session.Run(MergeSummary({a, a})), InvalidArgumentError);
  Output junk = Constant(Tensor::Vector<std::string>({"\xff\xff\xff"}));
  EXPECT_THROW(session.Run(MergeSummary({junk})), InvalidArgumentError);
  EXPECT_THROW(MergeSummary({Constant(1.0f)}), TypeError);
  EXPECT_THROW(MergeSummary({}), ValueError);
}

// A vector of serialized summaries is merged element by element.
TEST(MergeSummaryTest, MergesEveryElementOfAStringVector) {
  Graph g;
  DefaultGraphScope as_default(g);
  Session session;
  tensorflow::Summary one, two;
  one.add_value()->set_tag("one");
  two.add_value()->set_tag("two");
  Output both = Constant(Tensor::Vector<std::string>(
      {one.SerializeAsString(), two.SerializeAsString()}));
  tensorflow::Summary merged = Parse(session.Run(MergeSummary({both})));
  ASSERT_EQ(merged.value_size(), 2);
  EXPECT_EQ(merged.value(1).tag(), "two");
}

// ---- Compatibility with TensorBoard files written by TensorFlow 1.x ----------------------------

// The payloads of the records of an event file (TFRecord framing: u64 length, masked CRC,
// payload, masked CRC). CRCs are not checked here; the event writer stage does that.
std::vector<std::string> ReadRecords(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> records;
  size_t pos = 0;
  while (pos + 12 <= bytes.size()) {
    uint64_t length = 0;
    for (int i = 7; i >= 0; --i) {  // Little-endian.
      length = (length << 8) | static_cast<unsigned char>(bytes[pos + i]);
    }
    pos += 12;
    if (pos + length + 4 > bytes.size()) break;
    records.push_back(bytes.substr(pos, length));
    pos += length + 4;
  }
  EXPECT_EQ(pos, bytes.size()) << path;
  return records;
}

// The serialized Summary (Event field 5) of an Event payload, or "" when it holds none.
std::string SummaryBytesOfEvent(const std::string& event) {
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(event.data()),
                                            static_cast<int>(event.size()));
  while (uint32_t tag = in.ReadTag()) {
    if (tag == ((5u << 3) | 2u)) {
      uint32_t length = 0;
      std::string bytes;
      if (!in.ReadVarint32(&length) || !in.ReadString(&bytes, static_cast<int>(length))) break;
      return bytes;
    }
    if (!google::protobuf::internal::WireFormatLite::SkipField(&in, tag)) break;
  }
  return "";
}

std::vector<std::string> SummariesIn(const std::string& file) {
  std::vector<std::string> summaries;
  for (const std::string& event : ReadRecords("tests/testdata/tfevents/" + file)) {
    std::string s = SummaryBytesOfEvent(event);
    if (!s.empty()) summaries.push_back(s);
  }
  return summaries;
}

const char* const kEventFiles[] = {
    "tfdist-tf1.8-monitoredtrainingsession-mnist.tfevents",
    "tfiris-tf1.8-estimator-dnn-histograms.tfevents",
    "disttftrain-tf1.1-monitoredtrainingsession-restart.tfevents",
};

// Every Summary TensorFlow wrote parses with our proto and serializes back byte for byte.
TEST(TensorBoardCompatibilityTest, RealSummariesRoundTripByteForByte) {
  const std::vector<size_t> expected_counts = {25, 3, 3};
  for (size_t f = 0; f < 3; ++f) {
    std::vector<std::string> summaries = SummariesIn(kEventFiles[f]);
    EXPECT_EQ(summaries.size(), expected_counts[f]) << kEventFiles[f];
    for (const std::string& bytes : summaries) {
      tensorflow::Summary summary;
      ASSERT_TRUE(summary.ParseFromString(bytes));
      EXPECT_EQ(summary.SerializeAsString(), bytes) << summary.DebugString();
    }
  }
}

// Every bucket limit in TensorFlow's real histograms is one of our default limits, bit for bit.
TEST(TensorBoardCompatibilityTest, RealHistogramLimitsAreDefaultLimits) {
  const std::vector<double>& limits = DefaultHistogramBucketLimits();
  int histograms = 0;
  for (const std::string& bytes : SummariesIn(kEventFiles[1])) {
    tensorflow::Summary summary;
    ASSERT_TRUE(summary.ParseFromString(bytes));
    for (const auto& value : summary.value()) {
      if (!value.has_histo()) continue;
      ++histograms;
      for (double limit : value.histo().bucket_limit()) {
        EXPECT_TRUE(std::binary_search(limits.begin(), limits.end(), limit))
            << value.tag() << " " << limit;
      }
      EXPECT_EQ(value.histo().bucket_limit(value.histo().bucket_limit_size() - 1), DBL_MAX);
    }
  }
  EXPECT_EQ(histograms, 8);
}

// The summary op of the MNIST run, rebuilt in mts, gives the exact bytes TensorFlow wrote.
TEST(TensorBoardCompatibilityTest, ScalarSummariesMatchTensorFlowsBytes) {
  const std::string written = SummariesIn(kEventFiles[0]).front();  // Record 6, step 2.
  Graph g;
  DefaultGraphScope as_default(g);
  {
    NameScope cost("cost");
    ScalarSummary("cost", Constant(155089.265625f));
  }
  {
    NameScope accuracy("accuracy");
    ScalarSummary("accuracy", Constant(0.1328125f));
  }
  Session session;
  EXPECT_EQ(session.Run(*MergeAllSummaries()).scalar<std::string>(), written);
}

// A zero scalar is still written (oneof presence), as in the restart file's global_step/sec.
TEST(TensorBoardCompatibilityTest, ZeroScalarIsWritten) {
  Graph g;
  DefaultGraphScope as_default(g);
  {
    NameScope step("global_step");
    // The hook names its tag directly; here the same tag comes from the scope.
    Output s = ScalarSummary("sec", Constant(0.0f));
    Session session;
    EXPECT_EQ(session.Run(s).scalar<std::string>(), SummariesIn(kEventFiles[2]).front());
  }
}

}  // namespace
}  // namespace mts
