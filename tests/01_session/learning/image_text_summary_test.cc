// Tests of summary_ops.h's ImageSummary and TextSummary: images decoded back (PNG bytes ->
// libpng -> the same pixels), TensorFlow's scaling of float images and its tags for
// max_outputs, a text summary's tensor and plugin metadata, and bad inputs refused by name.
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/learning/summary_ops.h"
#include "src/01_session/session.h"
#include "tests/testing/expect_error.h"
#include "tests/testing/png_decoder.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Throws;
using ::testing::ThrowsMessage;

tensorflow::Summary RunSummary(const Output& op, const FeedDict& feeds = {}) {
  Session session(op.graph());
  tensorflow::Summary summary;
  EXPECT_TRUE(summary.ParseFromString(session.Run(op, feeds).scalar<std::string>()));
  return summary;
}

// The pixels of value `i` of `summary`, decoded by libpng.
DecodedPng ImageOf(const tensorflow::Summary& summary, int i) {
  return DecodePng(summary.value(i).image().encoded_image_string());
}

// A batch of `n` int32 images, height 2, width 3, `channels` channels, every byte distinct
// enough that a swapped row, column, channel or image shows.
Tensor Int32Images(int n, int channels) {
  std::vector<int32_t> values(n * 2 * 3 * channels);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int32_t>((i * 41) % 256);
  return Tensor::FromValues<int32_t>({n, 2, 3, channels}, values);
}

std::vector<uint8_t> BytesOfImage(const Tensor& images, int i) {
  const int64_t size = images.num_elements() / images.shape().dim(0);
  const int32_t* p = images.data<int32_t>() + i * size;
  return std::vector<uint8_t>(p, p + size);
}

// ---- ImageSummary -----------------------------------------------------------------------------

// int32 stands for uint8: the bytes go into the PNG as they are, for 1, 3 and 4 channels.
TEST(ImageSummaryTest, Int32ImagesDecodeToTheSamePixels) {
  for (int channels : {1, 3, 4}) {
    Graph g;
    DefaultGraphScope as_default(g);
    const Tensor images = Int32Images(2, channels);
    Output s = ImageSummary("digits", Constant(images));
    EXPECT_EQ(s.op()->type(), "ImageSummary");
    const tensorflow::Summary summary = RunSummary(s);
    ASSERT_EQ(summary.value_size(), 2);
    for (int i = 0; i < 2; ++i) {
      const tensorflow::Summary::Image& image = summary.value(i).image();
      EXPECT_EQ(image.height(), 2);
      EXPECT_EQ(image.width(), 3);
      EXPECT_EQ(image.colorspace(), channels);
      const DecodedPng decoded = ImageOf(summary, i);
      EXPECT_EQ(decoded.width, 3);
      EXPECT_EQ(decoded.height, 2);
      EXPECT_EQ(decoded.channels, channels);
      EXPECT_EQ(decoded.pixels, BytesOfImage(images, i)) << channels << " channels, image " << i;
    }
  }
}

// TensorFlow's tags: "<name>/image" for max_outputs 1, else "<name>/image/<i>", and never
// more values than max_outputs or than the batch holds.
TEST(ImageSummaryTest, TagsAndCountFollowMaxOutputs) {
  struct Case {
    int batch;
    int64_t max_outputs;
    std::vector<std::string> tags;
  };
  const std::vector<Case> cases = {
      {4, 1, {"boundary/image"}},
      {4, 3, {"boundary/image/0", "boundary/image/1", "boundary/image/2"}},
      {2, 3, {"boundary/image/0", "boundary/image/1"}},
      {1, 2, {"boundary/image/0"}},  // The tag follows what was asked, not what there is.
      {0, 3, {}},
  };
  for (const Case& c : cases) {
    Graph g;
    DefaultGraphScope as_default(g);
    const tensorflow::Summary summary =
        RunSummary(ImageSummary("boundary", Constant(Int32Images(c.batch, 3)), c.max_outputs));
    std::vector<std::string> tags;
    for (const auto& v : summary.value()) tags.push_back(v.tag());
    EXPECT_EQ(tags, c.tags) << "batch " << c.batch << ", max_outputs " << c.max_outputs;
  }
}

// Float images: values >= 0 are stretched so the largest is 255 (truncated, as TensorFlow
// casts); with a negative value, 0 goes to 128 and the largest magnitude to 1 or 255.
TEST(ImageSummaryTest, FloatImagesAreScaledAsTensorFlowScalesThem) {
  struct Case {
    std::vector<float> values;
    std::vector<uint8_t> expected;
  };
  const std::vector<Case> cases = {
      {{0.0f, 0.25f, 0.5f, 1.0f}, {0, 63, 127, 255}},
      {{0.0f, 0.1f, 0.2f, 0.4f}, {0, 63, 127, 255}},  // A dim image is brightened.
      {{-1.0f, 0.0f, 0.5f, 1.0f}, {1, 128, 191, 255}},
      {{-2.0f, 1.0f, 0.0f, 0.0f}, {1, 191, 128, 128}},
      {{0.0f, 0.0f, 0.0f, 0.0f}, {0, 0, 0, 0}},
  };
  for (const Case& c : cases) {
    Graph g;
    DefaultGraphScope as_default(g);
    Output s = ImageSummary("f", Constant(Tensor::FromValues<float>({1, 2, 2, 1}, c.values)), 1);
    EXPECT_EQ(ImageOf(RunSummary(s), 0).pixels, c.expected) << ::testing::PrintToString(c.values);
    Output d = ImageSummary(
        "d", Constant(Tensor::FromValues<double>({1, 2, 2, 1}, {c.values.begin(), c.values.end()})),
        1);
    EXPECT_EQ(ImageOf(RunSummary(d), 0).pixels, c.expected) << "as float64";
  }
}

// A pixel with a NaN or an infinity is painted red and left out of the scaling.
TEST(ImageSummaryTest, NonFinitePixelsArePaintedRed) {
  Graph g;
  DefaultGraphScope as_default(g);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  // Three RGB pixels: (0.5, 0.5, 0.5), one with a NaN, one with an infinity.
  const Tensor image =
      Tensor::FromValues<float>({1, 1, 3, 3}, {0.5f, 0.5f, 0.5f, 0.1f, nan, 0.1f, inf, 0, 0});
  const DecodedPng decoded = ImageOf(RunSummary(ImageSummary("bad", Constant(image))), 0);
  EXPECT_EQ(decoded.pixels, (std::vector<uint8_t>{255, 255, 255, 255, 0, 0, 255, 0, 0}));
}

// Images join the summaries collection and merge with the other summaries.
TEST(ImageSummaryTest, MergesWithOtherSummaries) {
  Graph g;
  DefaultGraphScope as_default(g);
  ScalarSummary("loss", Constant(1.0f));
  ImageSummary("picture", Constant(Int32Images(1, 3)), 1);
  const tensorflow::Summary merged = RunSummary(*MergeAllSummaries());
  ASSERT_EQ(merged.value_size(), 2);
  EXPECT_EQ(merged.value(1).tag(), "picture/image");
  EXPECT_TRUE(merged.value(1).has_image());
}

// Build time: the dtype (TensorFlow's TypeError) and max_outputs >= 1.
TEST(ImageSummaryTest, RejectsOtherDtypesAndMaxOutputsBelowOne) {
  Graph g;
  DefaultGraphScope as_default(g);
  EXPECT_THAT(
      [] {
        ImageSummary("i", Constant(Tensor::FromValues<int64_t>({1, 1, 1, 1}, {0})));
      },
      ThrowsMessage<TypeError>(HasSubstr("tensor must be float32, float64 or int32")));
  EXPECT_THAT([] { ImageSummary("i", Constant(Int32Images(1, 3)), 0); },
              ThrowsMessage<ValueError>(HasSubstr("max_outputs must be at least 1")));
  EXPECT_EQ(g.CollectionSize(GraphKeys::kSummaries), 0);
}

// Run time, as TensorFlow checks: rank 4, channels 1, 3 or 4, non-empty images, int32 bytes
// within 0-255; each error names `tensor` and the op.
TEST(ImageSummaryTest, BadImagesRaiseInvalidArgumentNamingTensor) {
  Graph g;
  DefaultGraphScope as_default(g);
  Output p = Placeholder(DataType::kInt32);
  Output s = ImageSummary("images", p);
  Session session;
  const std::vector<std::pair<Tensor, std::string>> cases = {
      {Tensor::FromValues<int32_t>({2, 3, 3}, std::vector<int32_t>(18)), "must be 4-D"},
      {Tensor::FromValues<int32_t>({1, 2, 2, 2}, std::vector<int32_t>(8)), "channels 1, 3 or 4"},
      {Tensor::FromValues<int32_t>({1, 0, 2, 3}, {}), "empty images"},
      {Tensor::FromValues<int32_t>({1, 1, 1, 1}, {256}), "0 to 255"},
      {Tensor::FromValues<int32_t>({1, 1, 1, 1}, {-1}), "0 to 255"},
  };
  for (const auto& [value, message] : cases) {
    EXPECT_THAT(
        [&] {
          session.Run(s, {{p, value}});
        },
        Throws<InvalidArgumentError>(AllOf(HasMessage(HasSubstr("tensor")),
                                           HasMessage(HasSubstr(message)), HasOpName("images"))))
        << value.shape().ToString();
  }
}

// ---- TextSummary ------------------------------------------------------------------------------

// The value holds the string as a DT_STRING TensorProto and metadata naming the text plugin.
TEST(TextSummaryTest, HoldsTheStringAndTheTextPluginMetadata) {
  Graph g;
  DefaultGraphScope as_default(g);
  Output s = TextSummary("flags", Constant(Tensor::Scalar<std::string>("--steps=1000")));
  EXPECT_EQ(s.op()->type(), "TensorSummaryV2");
  EXPECT_EQ(s.op()->name(), "flags");
  const tensorflow::Summary summary = RunSummary(s);
  ASSERT_EQ(summary.value_size(), 1);
  const tensorflow::Summary::Value& v = summary.value(0);
  EXPECT_EQ(v.tag(), "flags");
  ASSERT_TRUE(v.has_tensor());
  EXPECT_EQ(v.tensor().dtype(), tensorflow::DT_STRING);
  EXPECT_TRUE(v.tensor().has_tensor_shape());  // Present, with no dims: a scalar.
  EXPECT_EQ(v.tensor().tensor_shape().dim_size(), 0);
  ASSERT_EQ(v.tensor().string_val_size(), 1);
  EXPECT_EQ(v.tensor().string_val(0), "--steps=1000");
  EXPECT_EQ(v.metadata().plugin_data().plugin_name(), "text");
  EXPECT_EQ(v.metadata().plugin_data().content(), "{}");
}

// A vector of strings keeps its shape and order (TensorBoard draws it as a table).
TEST(TextSummaryTest, KeepsTheShapeOfAStringVector) {
  Graph g;
  DefaultGraphScope as_default(g);
  Output s = TextSummary("rows", Constant(Tensor::Vector<std::string>({"a", "b", "c"})));
  const tensorflow::Summary summary = RunSummary(s);
  const tensorflow::TensorProto& t = summary.value(0).tensor();
  ASSERT_EQ(t.tensor_shape().dim_size(), 1);
  EXPECT_EQ(t.tensor_shape().dim(0).size(), 3);
  EXPECT_EQ(std::vector<std::string>(t.string_val().begin(), t.string_val().end()),
            (std::vector<std::string>{"a", "b", "c"}));
}

// The bytes are those TensorFlow writes: tag (1), tensor (8), metadata (9), in that order.
TEST(TextSummaryTest, SerializesInTensorFlowsFieldOrder) {
  Graph g;
  DefaultGraphScope as_default(g);
  Output s = TextSummary("t", Constant(Tensor::Scalar<std::string>("hi")));
  Session session(&g);
  const std::string bytes = session.Run(s).scalar<std::string>();
  // Summary.value (0a len) { tag "t"; tensor { DT_STRING, shape {}, string_val "hi" };
  // metadata { plugin_data { "text", "{}" } } }.
  const std::string expected(
      "\x0a\x1b"
      "\x0a\x01t"
      "\x42\x08\x08\x07\x12\x00\x42\x02hi"
      "\x4a\x0c\x0a\x0a\x0a\x04text\x12\x02{}",
      29);
  EXPECT_EQ(bytes, expected);
}

// Only string tensors: TensorFlow's ValueError, at build time.
TEST(TextSummaryTest, RejectsNonStringTensors) {
  Graph g;
  DefaultGraphScope as_default(g);
  EXPECT_THAT([] { TextSummary("t", Constant(1.0f)); },
              ThrowsMessage<ValueError>(HasSubstr("to have dtype string, got float32")));
  EXPECT_EQ(g.CollectionSize(GraphKeys::kSummaries), 0);
}

}  // namespace
}  // namespace mts
