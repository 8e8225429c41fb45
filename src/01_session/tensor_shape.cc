#include "src/01_session/tensor_shape.h"

#include <algorithm>

#include "src/platform/errors.h"

namespace mts {

bool TensorShape::Dims::operator==(const Dims& other) const {
  return size_ == other.size_ && std::equal(begin(), end(), other.begin());
}

void TensorShape::Assign(const int64_t* dims, size_t rank) {
  rank_ = static_cast<int>(rank);
  if (rank_ > kInlineRank) heap_.assign(dims, dims + rank);
  std::copy(dims, dims + rank, data());
}

TensorShape TensorShape::Unknown() {
  TensorShape shape;
  shape.unknown_rank_ = true;
  return shape;
}

bool TensorShape::IsFullyDefined() const {
  if (unknown_rank_) return false;
  for (int64_t d : dims()) {
    if (d == kUnknownDim) return false;
  }
  return true;
}

int64_t TensorShape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims()) n *= d;
  return n;
}

bool TensorShape::IsCompatibleWith(const TensorShape& other) const {
  if (unknown_rank_ || other.unknown_rank_) return true;
  if (rank_ != other.rank_) return false;
  const int64_t* a = data();
  const int64_t* b = other.data();
  for (int i = 0; i < rank_; ++i) {
    if (a[i] != kUnknownDim && b[i] != kUnknownDim && a[i] != b[i]) {
      return false;
    }
  }
  return true;
}

TensorShape TensorShape::MergeWith(const TensorShape& other) const {
  if (!IsCompatibleWith(other)) {
    throw ValueError("Shapes " + ToString() + " and " + other.ToString() + " are incompatible");
  }
  if (unknown_rank_) return other;
  if (other.unknown_rank_) return *this;
  TensorShape merged = *this;
  for (int i = 0; i < rank_; ++i) {
    if (merged.data()[i] == kUnknownDim) merged.data()[i] = other.dim(i);
  }
  return merged;
}

std::string TensorShape::ToString() const {
  if (unknown_rank_) return "<unknown>";
  std::string s = "[";
  for (int i = 0; i < rank_; ++i) {
    if (i > 0) s += ",";
    s += dim(i) == kUnknownDim ? "?" : std::to_string(dim(i));
  }
  return s + "]";
}

}  // namespace mts
