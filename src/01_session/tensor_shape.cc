#include "src/01_session/tensor_shape.h"

#include "src/platform/errors.h"

namespace mts {

TensorShape TensorShape::Unknown() {
  TensorShape shape;
  shape.unknown_rank_ = true;
  return shape;
}

bool TensorShape::IsFullyDefined() const {
  if (unknown_rank_) return false;
  for (int64_t d : dims_) {
    if (d == kUnknownDim) return false;
  }
  return true;
}

int64_t TensorShape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

bool TensorShape::IsCompatibleWith(const TensorShape& other) const {
  if (unknown_rank_ || other.unknown_rank_) return true;
  if (dims_.size() != other.dims_.size()) return false;
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (dims_[i] != kUnknownDim && other.dims_[i] != kUnknownDim && dims_[i] != other.dims_[i]) {
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
  std::vector<int64_t> dims = dims_;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == kUnknownDim) dims[i] = other.dims_[i];
  }
  return TensorShape(std::move(dims));
}

std::string TensorShape::ToString() const {
  if (unknown_rank_) return "<unknown>";
  std::string s = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i > 0) s += ",";
    s += dims_[i] == kUnknownDim ? "?" : std::to_string(dims_[i]);
  }
  return s + "]";
}

}  // namespace mts
