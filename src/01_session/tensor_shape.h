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
///
/// Up to kInlineRank dimensions are stored inside the object, so making, copying and
/// destroying the shape of an ordinary tensor touches no heap: a training step copies a
/// shape for every value it makes, and a heap allocation each time was a visible part of a
/// small step (see the performance appendix). TensorFlow's TensorShape stores its
/// dimensions inline for the same reason.
class TensorShape {
 public:
  /// The value of a dimension whose size is not known until run time.
  static constexpr int64_t kUnknownDim = -1;
  /// How many dimensions fit without a heap allocation.
  static constexpr int kInlineRank = 6;

  /// A read-only view of the dimensions, valid while the shape lives and is not modified:
  /// iterate it, index it, or convert it to a std::vector.
  class Dims {
   public:
    /// The view of `size` dimensions starting at `begin`.
    Dims(const int64_t* begin, size_t size) : begin_(begin), size_(size) {}
    /// First dimension.
    const int64_t* begin() const { return begin_; }
    /// One past the last dimension.
    const int64_t* end() const { return begin_ + size_; }
    /// The number of dimensions.
    size_t size() const { return size_; }
    /// True for rank 0.
    bool empty() const { return size_ == 0; }
    /// Dimension `i`.
    int64_t operator[](size_t i) const { return begin_[i]; }
    /// A copy of the dimensions.
    operator std::vector<int64_t>() const { return std::vector<int64_t>(begin(), end()); }
    /// Same dimensions.
    bool operator==(const Dims& other) const;
    /// Negation of ==.
    bool operator!=(const Dims& other) const { return !(*this == other); }

   private:
    const int64_t* begin_;
    size_t size_;
  };

  /// A scalar: rank 0, one element.
  TensorShape() = default;
  /// A shape with these dimensions, e.g. `TensorShape({2, 3})`.
  TensorShape(std::initializer_list<int64_t> dims) { Assign(dims.begin(), dims.size()); }
  /// A shape with these dimensions.
  explicit TensorShape(const std::vector<int64_t>& dims) { Assign(dims.data(), dims.size()); }
  /// A shape of which nothing is known, not even the rank.
  static TensorShape Unknown();

  /// True unless the rank is unknown.
  bool has_rank() const { return !unknown_rank_; }
  /// The number of dimensions. \pre has_rank().
  int rank() const { return rank_; }
  /// The size of dimension `i` (kUnknownDim if unknown). \pre 0 <= i < rank().
  int64_t dim(int i) const { return data()[i]; }
  /// All dimensions.
  Dims dims() const { return Dims(data(), rank_); }
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
    return unknown_rank_ == other.unknown_rank_ && dims() == other.dims();
  }
  /// Negation of ==.
  bool operator!=(const TensorShape& other) const { return !(*this == other); }

 private:
  void Assign(const int64_t* dims, size_t rank);
  const int64_t* data() const { return rank_ > kInlineRank ? heap_.data() : inline_; }
  int64_t* data() { return rank_ > kInlineRank ? heap_.data() : inline_; }

  int64_t inline_[kInlineRank] = {};  // The dimensions, when rank_ <= kInlineRank.
  std::vector<int64_t> heap_;         // The dimensions otherwise (else empty).
  int rank_ = 0;
  bool unknown_rank_ = false;
};

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_TENSOR_SHAPE_H_
