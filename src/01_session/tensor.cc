#include "src/01_session/tensor.h"

#include <cmath>
#include <cstring>
#include <sstream>

namespace mts {

namespace {

// Numeric buffers are raw aligned memory; string buffers hold constructed std::strings and
// must be destroyed as such. Both live behind one shared_ptr<void> with the right deleter.
std::shared_ptr<void> Allocate(DataType dtype, int64_t n) {
  if (dtype == DataType::kString) {
    return std::shared_ptr<void>(new std::string[n > 0 ? n : 1],
                                 [](void* p) { delete[] static_cast<std::string*>(p); });
  }
  // One byte at least, so an empty tensor still has a buffer and counts as initialized.
  const std::size_t bytes = std::max<std::size_t>(1, n * DataTypeSize(dtype));
  void* p = Eigen::internal::aligned_malloc(bytes);
  return std::shared_ptr<void>(p, [](void* q) { Eigen::internal::aligned_free(q); });
}

template <typename T>
void PrintElement(std::ostream& os, const T& v) {
  os << v;
}
void PrintElement(std::ostream& os, const bool& v) { os << (v ? "True" : "False"); }
void PrintElement(std::ostream& os, const std::string& v) { os << "b'" << v << "'"; }
void PrintElement(std::ostream& os, const float& v) { os << static_cast<double>(v); }

// Prints dimension `d` of the block starting at element `offset`, numpy style.
template <typename T>
void PrintBlock(std::ostream& os, const T* data, const std::vector<int64_t>& dims, size_t d,
                int64_t offset, int64_t& budget) {
  if (d == dims.size()) {
    PrintElement(os, data[offset]);
    --budget;
    return;
  }
  int64_t stride = 1;
  for (size_t k = d + 1; k < dims.size(); ++k) stride *= dims[k];
  os << "[";
  for (int64_t i = 0; i < dims[d]; ++i) {
    if (budget <= 0) {
      os << "...";
      break;
    }
    if (i > 0) {
      os << (d + 1 == dims.size() ? " " : "\n" + std::string(d + 1, ' '));
    }
    PrintBlock(os, data, dims, d + 1, offset + i * stride, budget);
  }
  os << "]";
}

}  // namespace

Tensor::Tensor(DataType dtype, const TensorShape& shape) : dtype_(dtype), shape_(shape) {
  if (!shape.IsFullyDefined()) {
    throw ValueError("Cannot allocate a tensor of partially known shape " + shape.ToString());
  }
  num_elements_ = shape.num_elements();
  buffer_ = Allocate(dtype, num_elements_);
}

Tensor Tensor::Zeros(DataType dtype, const TensorShape& shape) {
  Tensor t(dtype, shape);
  if (dtype != DataType::kString) {
    std::memset(t.buffer_.get(), 0, t.num_elements_ * DataTypeSize(dtype));
  }
  return t;
}

void Tensor::CheckType(DataType expected) const {
  if (buffer_ == nullptr) {
    throw FailedPreconditionError("Attempted to read the elements of an uninitialized Tensor");
  }
  if (expected != dtype_) {
    throw InvalidArgumentError(std::string("Tensor holds ") + DataTypeName(dtype_) +
                               " elements but was read as " + DataTypeName(expected));
  }
}

void Tensor::CheckRank(int rank) const {
  if (shape_.rank() != rank) {
    throw InvalidArgumentError("Expected a tensor of rank " + std::to_string(rank) +
                               ", got shape " + shape_.ToString());
  }
}

void Tensor::CheckOneElement() const {
  if (num_elements_ != 1) {
    throw InvalidArgumentError("Expected a tensor with one element, got shape " +
                               shape_.ToString());
  }
}

int64_t Tensor::FlatIndex(std::initializer_list<int64_t> index) const {
  if (static_cast<int>(index.size()) != shape_.rank()) {
    throw InvalidArgumentError("Index of rank " + std::to_string(index.size()) +
                               " into a tensor of shape " + shape_.ToString());
  }
  int64_t flat = 0;
  int d = 0;
  for (int64_t i : index) {
    if (i < 0 || i >= shape_.dim(d)) {
      throw InvalidArgumentError("Index " + std::to_string(i) + " out of range for dimension " +
                                 std::to_string(d) + " of shape " + shape_.ToString());
    }
    flat = flat * shape_.dim(d) + i;
    ++d;
  }
  return flat;
}

Tensor Tensor::WithShape(const TensorShape& shape) const {
  if (!shape.IsFullyDefined() || shape.num_elements() != num_elements_) {
    throw InvalidArgumentError("Cannot view a tensor of shape " + shape_.ToString() + " (" +
                               std::to_string(num_elements_) + " elements) as shape " +
                               shape.ToString());
  }
  Tensor t = *this;
  t.shape_ = shape;
  return t;
}

Tensor Tensor::Copy() const {
  if (!IsInitialized()) return Tensor();
  Tensor t(dtype_, shape_);
  DispatchDataType(dtype_, [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::copy(data<T>(), data<T>() + num_elements_, t.data<T>());
  });
  return t;
}

std::string Tensor::ToString(int64_t max_elements) const {
  if (!IsInitialized()) return "<uninitialized>";
  std::ostringstream os;
  int64_t budget = max_elements;
  DispatchDataType(dtype_, [&](auto tag) {
    using T = typename decltype(tag)::type;
    PrintBlock(os, data<T>(), shape_.dims(), 0, 0, budget);
  });
  return os.str();
}

std::string Tensor::DebugString() const {
  std::string body = ToString(16);
  for (char& c : body) {
    if (c == '\n') c = ' ';
  }
  return std::string("Tensor<") + DataTypeName(dtype_) + " " + shape_.ToString() + ": " + body +
         ">";
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.ToString(); }

bool TensorEqual(const Tensor& a, const Tensor& b) {
  if (a.IsInitialized() != b.IsInitialized()) return false;
  if (!a.IsInitialized()) return true;
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  return DispatchDataType(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return std::equal(a.data<T>(), a.data<T>() + a.num_elements(), b.data<T>());
  });
}

bool TensorAllClose(const Tensor& a, const Tensor& b, double rtol, double atol) {
  if (!IsFloating(a.dtype())) return TensorEqual(a, b);
  if (!a.IsInitialized() || !b.IsInitialized()) return TensorEqual(a, b);
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  auto close = [&](double x, double y) {
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
    return std::abs(x - y) <= atol + rtol * std::abs(y);
  };
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    double x = a.dtype() == DataType::kFloat ? a.data<float>()[i] : a.data<double>()[i];
    double y = b.dtype() == DataType::kFloat ? b.data<float>()[i] : b.data<double>()[i];
    if (!close(x, y)) return false;
  }
  return true;
}

}  // namespace mts
