#include "src/01_session/learning/summary_ops.h"

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <unordered_set>

#include "src/01_session/op_kernel_context.h"

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
Output AddSummaryOp(const std::string& type, const std::string& name, const Output& input,
                    const std::vector<std::string>& collections) {
  const std::string clean = CleanTag(name);
  if (clean.empty()) throw ValueError(type + ": summary name '" + name + "' is empty");
  Graph& g = GraphOf({input}, clean);
  NameScope scope(g, clean);
  const std::string tag = scope.name();
  Output out = g.AddOperation(type, tag + "/", {input}, {{"tag", tag}})->output(0);
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
