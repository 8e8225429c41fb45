#include "src/01_session/learning/summary_ops.h"

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "src/01_session/graph_def.h"
#include "src/01_session/op_kernel_context.h"
#include "src/platform/png_encoder.h"

namespace mts {

// [mts:default-buckets]
const std::vector<double>& DefaultHistogramBucketLimits() {
  static const std::vector<double> limits = [] {
    // Repeated multiplication, not 1e-12 * pow(1.1, k): the two differ in the last bit for
    // most limits, and TensorBoard files hold exactly these doubles.
    std::vector<double> positive;
    for (double v = 1.0e-12; v < 1.0e20; v *= 1.1) positive.push_back(v);
    positive.push_back(DBL_MAX);
    std::vector<double> all;
    all.reserve(2 * positive.size() + 1);
    for (auto it = positive.rbegin(); it != positive.rend(); ++it) all.push_back(-*it);
    all.push_back(0.0);
    all.insert(all.end(), positive.begin(), positive.end());
    return all;
  }();
  return limits;
}
// [mts:default-buckets-end]

namespace {

// ---- Tags -----------------------------------------------------------------------------------

// Keeps letters, digits, "_-./" and non-ASCII bytes (Python's \w matches non-ASCII letters);
// replaces anything else with '_' and drops leading and trailing slashes (a trailing one would
// re-enter an absolute scope and could name the op after an existing one).
std::string CleanTag(const std::string& name) {
  std::string tag;
  for (unsigned char c : name) {
    const bool keep = std::isalnum(c) || c == '_' || c == '-' || c == '.' || c == '/' || c >= 0x80;
    tag.push_back(keep ? static_cast<char>(c) : '_');
  }
  const size_t first = tag.find_first_not_of('/');
  if (first == std::string::npos) return std::string();
  return tag.substr(first, tag.find_last_not_of('/') - first + 1);
}

// Adds a summary op of `type` under a fresh scope made from `name`; the scope is the tag and
// the op takes the scope's own name, as TensorFlow's summary_scope does.
// `attrs` are added to the "tag" attribute.
Output AddSummaryOp(const std::string& type, const std::string& name, const Output& input,
                    const std::vector<std::string>& collections, AttrMap attrs = {}) {
  const std::string clean = CleanTag(name);
  if (clean.empty()) throw ValueError(type + ": summary name '" + name + "' is empty");
  Graph& g = GraphOf({input}, clean);
  NameScope scope(g, clean);
  const std::string tag = scope.name();
  attrs["tag"] = tag;
  Output out = g.AddOperation(type, tag + "/", {input}, attrs)->output(0);
  for (const std::string& key : collections) g.AddToCollection(key, out);
  return out;
}

void CheckNumeric(const ShapeContext& ctx) {
  const DataType dtype = ctx.inputs[0].dtype();
  if (!IsNumeric(dtype)) {
    throw TypeError(std::string("Summary '") + ctx.op_name + "' needs a numeric tensor, got " +
                    DataTypeName(dtype));
  }
}

std::string Serialize(const tensorflow::Summary& summary) {
  std::string bytes;
  summary.SerializeToString(&bytes);
  return bytes;
}

// The elements of a numeric tensor as doubles.
std::vector<double> ToDoubles(const Tensor& t) {
  std::vector<double> result(t.num_elements());
  DispatchDataType(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_arithmetic_v<T>) {
      const T* p = t.data<T>();
      for (int64_t i = 0; i < t.num_elements(); ++i) result[i] = static_cast<double>(p[i]);
    }
  });
  return result;
}

// ---- ScalarSummary --------------------------------------------------------------------------

void ScalarSummaryShape(ShapeContext& ctx) {
  CheckNumeric(ctx);
  const TensorShape& shape = ctx.inputs[0].shape();
  if (shape.has_rank() && shape.rank() != 0) {
    throw ValueError("ScalarSummary '" + ctx.op_name + "' needs a scalar, got shape " +
                     shape.ToString());
  }
  ctx.AddOutput(DataType::kString, TensorShape{});
}

void ScalarSummaryKernel(OpKernelContext& ctx) {
  const Tensor& value = ctx.input(0);
  if (value.shape().rank() != 0) {
    throw InvalidArgumentError("ScalarSummary needs a scalar, got shape " +
                                   value.shape().ToString(),
                               ctx.op().name());
  }
  tensorflow::Summary summary;
  tensorflow::Summary::Value* v = summary.add_value();
  v->set_tag(ctx.op().attr<std::string>("tag"));
  v->set_simple_value(static_cast<float>(ToDoubles(value).front()));
  ctx.set_output(0, Tensor::Scalar(Serialize(summary)));
}
const OpRegistration scalar_summary_op({"ScalarSummary", ScalarSummaryShape,
                                        ScalarSummaryKernel});

// ---- HistogramSummary -----------------------------------------------------------------------

void HistogramSummaryShape(ShapeContext& ctx) {
  CheckNumeric(ctx);
  ctx.AddOutput(DataType::kString, TensorShape{});
}

// [mts:histogram-encode]
// Fills `histo` from `values`: counts per default bucket, then the pairs TensorBoard reads,
// where each run of empty buckets becomes one (last limit of the run, 0) pair.
void EncodeHistogram(const std::vector<double>& values, tensorflow::HistogramProto* histo) {
  const std::vector<double>& limits = DefaultHistogramBucketLimits();
  std::vector<double> counts(limits.size(), 0.0);
  double min = DBL_MAX, max = -DBL_MAX, sum = 0, sum_squares = 0;
  for (double x : values) {
    // A value equal to a limit belongs to the bucket above it: the first limit > x.
    size_t b = std::upper_bound(limits.begin(), limits.end(), x) - limits.begin();
    counts[std::min(b, limits.size() - 1)] += 1;  // Only x == DBL_MAX would run past the end.
    min = std::min(min, x);
    max = std::max(max, x);
    sum += x;
    sum_squares += x * x;
  }
  histo->set_min(min);
  histo->set_max(max);
  histo->set_num(static_cast<double>(values.size()));
  histo->set_sum(sum);
  histo->set_sum_squares(sum_squares);
  for (size_t i = 0; i < limits.size(); ++i) {
    const bool ends_empty_run = i + 1 == limits.size() || counts[i + 1] > 0;
    if (counts[i] > 0 || ends_empty_run) {
      histo->add_bucket_limit(limits[i]);
      histo->add_bucket(counts[i]);
    }
  }
}
// [mts:histogram-encode-end]

void HistogramSummaryKernel(OpKernelContext& ctx) {
  std::vector<double> values = ToDoubles(ctx.input(0));
  for (double x : values) {
    if (std::isnan(x)) {
      throw InvalidArgumentError("Nan in summary histogram for: " + ctx.op().name(),
                                 ctx.op().name());
    }
    if (std::isinf(x)) {
      throw InvalidArgumentError("Infinity in summary histogram for: " + ctx.op().name(),
                                 ctx.op().name());
    }
  }
  tensorflow::Summary summary;
  tensorflow::Summary::Value* v = summary.add_value();
  v->set_tag(ctx.op().attr<std::string>("tag"));
  EncodeHistogram(values, v->mutable_histo());
  ctx.set_output(0, Tensor::Scalar(Serialize(summary)));
}
const OpRegistration histogram_summary_op({"HistogramSummary", HistogramSummaryShape,
                                           HistogramSummaryKernel});

// ---- ImageSummary ---------------------------------------------------------------------------

void ImageSummaryShape(ShapeContext& ctx) {
  const DataType dtype = ctx.inputs[0].dtype();
  if (dtype != DataType::kFloat && dtype != DataType::kDouble && dtype != DataType::kInt32) {
    throw TypeError("ImageSummary '" + ctx.op_name +
                    "': tensor must be float32, float64 or int32 (0-255, for TensorFlow's "
                    "uint8), got " +
                    DataTypeName(dtype));
  }
  ctx.AddOutput(DataType::kString, TensorShape{});
}

// Throws unless `images` is [batch, height, width, channels] with 1, 3 or 4 channels and
// images TensorFlow would encode.
void CheckImages(const Tensor& images, const std::string& op_name) {
  const TensorShape& shape = images.shape();
  const bool channels_ok =
      shape.rank() == 4 && (shape.dim(3) == 1 || shape.dim(3) == 3 || shape.dim(3) == 4);
  if (!channels_ok) {
    throw InvalidArgumentError(
        "ImageSummary: tensor must be 4-D [batch, height, width, channels] with channels 1, 3 "
        "or 4, got shape " + shape.ToString(),
        op_name);
  }
  if (shape.dim(0) > 0 && (shape.dim(1) == 0 || shape.dim(2) == 0)) {
    throw InvalidArgumentError(
        "ImageSummary: tensor holds empty images (height or width 0): " + shape.ToString(),
        op_name);
  }
  if (shape.dim(1) * shape.dim(2) >= (int64_t{1} << 29) || shape.dim(0) >= (int64_t{1} << 31)) {
    throw InvalidArgumentError(
        "ImageSummary: tensor is too large for a summary: shape " + shape.ToString(), op_name);
  }
}

// [mts:image-normalize]
// A float image (`n` pixels of `depth` values at `values`) as bytes, as TensorFlow scales
// it: all values >= 0 are stretched so the largest is 255; with a negative value, 0 goes to
// 128 and the largest magnitude to 1 or 255. The bounds skip pixels with a NaN or an
// infinity, which are painted red (TensorFlow's default bad_color, cut to `depth` bytes).
template <typename T>
std::vector<uint8_t> NormalizeFloatImage(const T* values, int64_t n, int depth) {
  auto finite = [&](int64_t p) {
    for (int c = 0; c < depth; ++c) {
      if (!std::isfinite(values[p * depth + c])) return false;
    }
    return true;
  };
  float min = std::numeric_limits<float>::infinity(), max = -min;
  for (int64_t p = 0; p < n; ++p) {
    if (!finite(p)) continue;
    for (int c = 0; c < depth; ++c) {
      min = std::min(min, static_cast<float>(values[p * depth + c]));
      max = std::max(max, static_cast<float>(values[p * depth + c]));
    }
  }
  constexpr float kZero = 1e-6f;  // Below this the image counts as all zero: scale 0.
  const float magnitude = min < 0 ? std::max(std::abs(min), std::abs(max)) : max;
  const T scale = T(magnitude < kZero ? 0.0f : (min < 0 ? 127.0f : 255.0f) / magnitude);
  const T offset = T(min < 0 ? 128.0f : 0.0f);
  const uint8_t bad_color[] = {255, 0, 0, 255};
  std::vector<uint8_t> bytes(n * depth);
  for (int64_t p = 0; p < n; ++p) {
    const bool ok = finite(p);
    for (int c = 0; c < depth; ++c) {
      const int64_t i = p * depth + c;
      bytes[i] = ok ? static_cast<uint8_t>(values[i] * scale + offset) : bad_color[c];
    }
  }
  return bytes;
}
// [mts:image-normalize-end]

// Image `i` of `images` as bytes: int32 values must already be 0-255 (TensorFlow's uint8).
std::vector<uint8_t> ImageBytes(const Tensor& images, int64_t i, const std::string& op_name) {
  const int64_t n = images.shape().dim(1) * images.shape().dim(2);
  const int depth = static_cast<int>(images.shape().dim(3));
  if (images.dtype() == DataType::kFloat) {
    return NormalizeFloatImage(images.data<float>() + i * n * depth, n, depth);
  }
  if (images.dtype() == DataType::kDouble) {
    return NormalizeFloatImage(images.data<double>() + i * n * depth, n, depth);
  }
  const int32_t* values = images.data<int32_t>() + i * n * depth;
  std::vector<uint8_t> bytes(n * depth);
  for (int64_t k = 0; k < n * depth; ++k) {
    if (values[k] < 0 || values[k] > 255) {
      throw InvalidArgumentError("ImageSummary: an int32 tensor holds bytes, 0 to 255; image " +
                                     std::to_string(i) + " holds " + std::to_string(values[k]),
                                 op_name);
    }
    bytes[k] = static_cast<uint8_t>(values[k]);
  }
  return bytes;
}

// [mts:image-summary-kernel]
void ImageSummaryKernel(OpKernelContext& ctx) {
  const Tensor& images = ctx.input(0);
  const std::string& op_name = ctx.op().name();
  CheckImages(images, op_name);
  const int64_t max_images = ctx.op().attr<int64_t>("max_images");
  const std::string& tag = ctx.op().attr<std::string>("tag");
  const int height = static_cast<int>(images.shape().dim(1));
  const int width = static_cast<int>(images.shape().dim(2));
  const int depth = static_cast<int>(images.shape().dim(3));
  tensorflow::Summary summary;
  for (int64_t i = 0; i < std::min(max_images, images.shape().dim(0)); ++i) {
    tensorflow::Summary::Value* v = summary.add_value();
    // The tag depends on how many images were asked for, not on how many the batch has.
    v->set_tag(max_images > 1 ? tag + "/image/" + std::to_string(i) : tag + "/image");
    tensorflow::Summary::Image* image = v->mutable_image();
    image->set_height(height);
    image->set_width(width);
    image->set_colorspace(depth);
    image->set_encoded_image_string(
        EncodePng(ImageBytes(images, i, op_name), width, height, depth));
  }
  ctx.set_output(0, Tensor::Scalar(Serialize(summary)));
}
// [mts:image-summary-kernel-end]
const OpRegistration image_summary_op({"ImageSummary", ImageSummaryShape, ImageSummaryKernel});

// ---- TensorSummaryV2 (text) -----------------------------------------------------------------

void TensorSummaryV2Shape(ShapeContext& ctx) { ctx.AddOutput(DataType::kString, TensorShape{}); }

// The value is the tensor itself (strings in string_val, with its shape), and its metadata
// names the TensorBoard plugin that shows it.
void TensorSummaryV2Kernel(OpKernelContext& ctx) {
  const Tensor& tensor = ctx.input(0);
  if (tensor.dtype() != DataType::kString) {
    throw InvalidArgumentError("TensorSummaryV2: mts summarizes string tensors only, got " +
                                   std::string(DataTypeName(tensor.dtype())),
                               ctx.op().name());
  }
  tensorflow::Summary summary;
  tensorflow::Summary::Value* v = summary.add_value();
  v->set_tag(ctx.op().attr<std::string>("tag"));
  *v->mutable_tensor() = TensorToProto(tensor);
  v->mutable_metadata()->ParseFromString(ctx.op().attr<std::string>("serialized_summary_metadata"));
  ctx.set_output(0, Tensor::Scalar(Serialize(summary)));
}
const OpRegistration tensor_summary_op({"TensorSummaryV2", TensorSummaryV2Shape,
                                        TensorSummaryV2Kernel});

// ---- MergeSummary ---------------------------------------------------------------------------

void MergeSummaryShape(ShapeContext& ctx) {
  if (ctx.inputs.empty()) {
    throw ValueError("MergeSummary '" + ctx.op_name + "' needs at least one input");
  }
  for (const Output& in : ctx.inputs) {
    if (in.dtype() != DataType::kString) {
      throw TypeError("MergeSummary '" + ctx.op_name + "': input '" + in.name() +
                      "' has dtype " + DataTypeName(in.dtype()) + ", not string");
    }
  }
  ctx.AddOutput(DataType::kString, TensorShape{});
}

void MergeSummaryKernel(OpKernelContext& ctx) {
  tensorflow::Summary merged;
  std::unordered_set<std::string> tags;
  for (int i = 0; i < ctx.op().num_inputs(); ++i) {
    for (const std::string& bytes : ctx.input(i).ToVector<std::string>()) {
      tensorflow::Summary summary;
      if (!summary.ParseFromString(bytes)) {
        throw InvalidArgumentError("MergeSummary: an element of input '" +
                                       ctx.op().input(i).name() +
                                       "' is not a serialized Summary",
                                   ctx.op().name());
      }
      for (const tensorflow::Summary::Value& v : summary.value()) {
        // An empty tag may repeat (TensorFlow's audio summaries leave it empty).
        if (!v.tag().empty() && !tags.insert(v.tag()).second) {
          throw InvalidArgumentError("MergeSummary: duplicate tag '" + v.tag() +
                                         "' in the summaries to merge",
                                     ctx.op().name());
        }
        *merged.add_value() = v;
      }
    }
  }
  ctx.set_output(0, Tensor::Scalar(Serialize(merged)));
}
const OpRegistration merge_summary_op({"MergeSummary", MergeSummaryShape, MergeSummaryKernel});

}  // namespace

Output ScalarSummary(const std::string& name, const Output& tensor,
                     const std::vector<std::string>& collections) {
  return AddSummaryOp("ScalarSummary", name, tensor, collections);
}

Output HistogramSummary(const std::string& name, const Output& values,
                        const std::vector<std::string>& collections) {
  return AddSummaryOp("HistogramSummary", name, values, collections);
}

Output ImageSummary(const std::string& name, const Output& tensor, int64_t max_outputs,
                    const std::vector<std::string>& collections) {
  if (max_outputs < 1) {
    throw ValueError("ImageSummary '" + name + "': max_outputs must be at least 1, got " +
                     std::to_string(max_outputs));
  }
  return AddSummaryOp("ImageSummary", name, tensor, collections, {{"max_images", max_outputs}});
}

Output TextSummary(const std::string& name, const Output& tensor,
                   const std::vector<std::string>& collections) {
  if (tensor.dtype() != DataType::kString) {
    throw ValueError("TextSummary '" + name + "': expected tensor '" + tensor.name() +
                     "' to have dtype string, got " + DataTypeName(tensor.dtype()));
  }
  // [mts:text-metadata]
  tensorflow::SummaryMetadata metadata;
  metadata.mutable_plugin_data()->set_plugin_name("text");
  metadata.mutable_plugin_data()->set_content("{}");  // TF1's json.dumps of no plugin data.
  // [mts:text-metadata-end]
  return AddSummaryOp("TensorSummaryV2", name, tensor, collections,
                      {{"serialized_summary_metadata", metadata.SerializeAsString()}});
}

Output MergeSummary(const std::vector<Output>& inputs, const std::vector<std::string>& collections,
                    const std::string& name) {
  if (inputs.empty()) throw ValueError("MergeSummary '" + name + "' needs at least one input");
  Graph& g = GraphOf(inputs, name);
  NameScope scope(g, name);
  Output out = g.AddOperation("MergeSummary", "MergeSummary", inputs)->output(0);
  for (const std::string& key : collections) g.AddToCollection(key, out);
  return out;
}

std::optional<Output> MergeAllSummaries(Graph* graph, const std::string& key) {
  Graph& g = graph != nullptr ? *graph : GetDefaultGraph();
  std::vector<Output> summaries = g.GetCollection<Output>(key);
  if (summaries.empty()) return std::nullopt;
  return MergeSummary(summaries);
}

}  // namespace mts
