// summary_ops.h: ops that report on a training run: scalar, histogram, image and text
// summaries, and the op that merges them into one.
//
// Stage 01 (learning); SummarySaverHook (stage 03) writes what they output. Each op outputs
// a serialized `tensorflow.Summary`, the bytes TensorFlow 1.x writes, and joins
// GraphKeys::kSummaries, which MergeAllSummaries merges. A tag is the name scope made for
// it (ScalarSummary("cost", c) in NameScope("cost") is "cost/cost"; a second "loss" is
// "loss_1"); characters other than letters, digits and `_-./` become '_', and leading and
// trailing '/' are dropped.
//
// Example: ScalarSummary("loss", loss); std::optional<Output> merged = MergeAllSummaries();
//
// TensorFlow: tf.summary.scalar, histogram, image, text, merge, merge_all (summary.py,
// text_summary.py; summary_op.cc, summary_image_op.cc, summary_tensor_op.cc).
#ifndef MTS_SRC_01_SESSION_SUMMARY_OPS_H_
#define MTS_SRC_01_SESSION_SUMMARY_OPS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/01_session/graph.h"
#include "src/01_session/summary.pb.h"

namespace mts {

/// A string scalar holding a Summary with one value, `simple_value` = `tensor` as a float32,
/// tagged with the scope made from `name` (see the file comment). The op joins each of
/// `collections`.
/// \throws TypeError at build time unless `tensor` is numeric (not bool or string);
///   ValueError if its rank is known and not 0, or `name` is empty. A tensor of unknown rank
///   that turns out non-scalar raises InvalidArgumentError when run.
Output ScalarSummary(const std::string& name, const Output& tensor,
                     const std::vector<std::string>& collections = {GraphKeys::kSummaries});

/// A string scalar holding a Summary with one `histo` value: min, max, count, sum and sum of
/// squares of all elements of `values` (any shape), and their counts in TensorFlow's default
/// buckets (DefaultHistogramBucketLimits), with runs of empty buckets collapsed to one pair.
/// Tagged and collected as ScalarSummary is.
/// \throws TypeError at build time unless `values` is numeric; ValueError if `name` is empty.
///   When run, a NaN raises InvalidArgumentError("Nan in summary histogram for: <op>"), an
///   infinity InvalidArgumentError("Infinity in summary histogram for: <op>").
Output HistogramSummary(const std::string& name, const Output& values,
                        const std::vector<std::string>& collections = {GraphKeys::kSummaries});

/// A string scalar holding a Summary with one `image` value for each of the first
/// `max_outputs` images of `tensor`, a batch [N, height, width, channels] with 1 (grey), 3
/// (RGB) or 4 (RGBA) channels: height, width, colorspace (the channels) and the image as PNG.
/// Each tag is the one ScalarSummary would give, then "/image" when `max_outputs` is 1, else
/// "/image/0", "/image/1", ... (TensorFlow's rule: by what was asked, not what the batch
/// has). A float32 or float64 image is scaled as TensorFlow scales it (all values >= 0: the
/// largest becomes 255; else 0 becomes 128 and the largest magnitude 1 or 255), a pixel with
/// a NaN or infinity painted red; int32 stands for TensorFlow's uint8 (mts has no uint8) and
/// its values, 0 to 255, are the bytes.
/// \throws TypeError at build time unless `tensor` is float32, float64 or int32; ValueError if
///   `max_outputs` < 1 or `name` is empty. When run, InvalidArgumentError naming `tensor` if it
///   is not 4-D with 1, 3 or 4 channels, holds empty images, or (int32) a value outside 0-255.
Output ImageSummary(const std::string& name, const Output& tensor, int64_t max_outputs = 3,
                    const std::vector<std::string>& collections = {GraphKeys::kSummaries});

/// A string scalar holding a Summary with one `tensor` value: `tensor` (a string tensor of
/// any shape) as a TensorProto, its strings in string_val, and metadata whose plugin_data
/// names the "text" plugin (content "{}"), so that TensorBoard's Text tab shows it (as
/// Markdown; a vector or matrix as a table). The op is a TensorSummaryV2, tagged and
/// collected as ScalarSummary is.
/// \throws ValueError at build time unless `tensor` is a string tensor, or if `name` is empty.
Output TextSummary(const std::string& name, const Output& tensor,
                   const std::vector<std::string>& collections = {GraphKeys::kSummaries});

/// A string scalar holding one Summary with every value of `inputs`, which are string
/// tensors of serialized Summaries (any shape), in input order. The op is "<name>/MergeSummary"
/// in a new name scope and joins `collections` (none by default).
/// \throws ValueError at build time if `inputs` is empty; TypeError if one is not a string.
///   When run, InvalidArgumentError if an element does not parse as a Summary or two values
///   share a non-empty tag.
Output MergeSummary(const std::vector<Output>& inputs,
                    const std::vector<std::string>& collections = {},
                    const std::string& name = "Merge");

/// MergeSummary over every tensor in collection `key` of `graph` (the default graph if null),
/// or std::nullopt when that collection is empty, as TensorFlow returns None.
std::optional<Output> MergeAllSummaries(Graph* graph = nullptr,
                                        const std::string& key = GraphKeys::kSummaries);

/// TensorFlow's default histogram bucket limits, 1551 ascending doubles: -DBL_MAX, the
/// negatives of the positive limits, 0, then 1e-12 multiplied by 1.1 again and again while
/// below 1e20, then DBL_MAX. Built once, bit for bit as TensorFlow builds them.
const std::vector<double>& DefaultHistogramBucketLimits();

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_SUMMARY_OPS_H_
