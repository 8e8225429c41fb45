// tensor_shape.h: the shape of a tensor, possibly only partly known while building a graph.
//
//   Session  <-- a Tensor has a fully known TensorShape; a graph output may know less
//
// While a graph is built, an output's shape may have unknown dimensions (a placeholder of
// shape [?, 2] accepts any batch size) or an unknown rank. A Tensor that exists at run time
// always has a fully defined shape. One class serves both, as TensorFlow's TensorShape does.
//
// TensorFlow: tf.TensorShape (tensorflow/python/framework/tensor_shape.py).
#ifndef MTS_SRC_01_SESSION_TENSOR_SHAPE_H_
#define MTS_SRC_01_SESSION_TENSOR_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace mts {

/// A list of dimensions; a dimension of kUnknownDim, or an unknown rank, is allowed in
/// graph-building shapes only.
class TensorShape {
 public:
  /// The value of a dimension whose size is not known until run time.
  static constexpr int64_t kUnknownDim = -1;

  /// A scalar: rank 0, one element.
  TensorShape() = default;
  /// A shape with these dimensions, e.g. `TensorShape({2, 3})`.
  TensorShape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  /// A shape with these dimensions.
  explicit TensorShape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}
  /// A shape of which nothing is known, not even the rank.
  static TensorShape Unknown();

  /// True unless the rank is unknown.
  bool has_rank() const { return !unknown_rank_; }
  /// The number of dimensions. \pre has_rank().
  int rank() const { return static_cast<int>(dims_.size()); }
  /// The size of dimension `i` (kUnknownDim if unknown). \pre 0 <= i < rank().
  int64_t dim(int i) const { return dims_[i]; }
  /// All dimensions.
  const std::vector<int64_t>& dims() const { return dims_; }
  /// True when the rank and every dimension are known.
  bool IsFullyDefined() const;
  /// The number of elements. \pre IsFullyDefined().
  int64_t num_elements() const;

  /// True if a value of shape `other` may stand where this shape is expected: same rank
  /// (when known) and equal dimensions wherever both are known.
  bool IsCompatibleWith(const TensorShape& other) const;
  /// The most specific shape compatible with both; throws ValueError if incompatible.
  TensorShape MergeWith(const TensorShape& other) const;

  /// "[2,3]", "[?,2]", "[]" for a scalar, "<unknown>" for unknown rank.
  std::string ToString() const;

  /// Exact equality: same rank-knownness and the same dims, unknown matching unknown.
  bool operator==(const TensorShape& other) const {
    return unknown_rank_ == other.unknown_rank_ && dims_ == other.dims_;
  }
  /// Negation of ==.
  bool operator!=(const TensorShape& other) const { return !(*this == other); }

 private:
  std::vector<int64_t> dims_;
  bool unknown_rank_ = false;
};

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_TENSOR_SHAPE_H_
