#include "src/01_session/tensor.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <new>
#include <sstream>
#include <utility>

#include "src/01_session/allocator.h"

namespace mts {

namespace {

// The alignment the Eigen maps of tensor_types.h promise (Eigen::Aligned64). Eigen's own
// aligned_malloc only guarantees EIGEN_DEFAULT_ALIGN_BYTES (16 or 32), and a debug build
// asserts on a Map whose data breaks its promise, so allocate with the alignment we claim.
constexpr std::align_val_t kBufferAlignment{64};

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
  // numpy separates the blocks of dimension d by one newline per dimension below it (so
  // rank-3 matrices are set apart by a blank line) and indents to the bracket depth.
  const std::string separator =
      std::string(dims.size() - d - 1, '\n') + std::string(d + 1 == dims.size() ? 1 : d + 1, ' ');
  os << "[";
  for (int64_t i = 0; i < dims[d]; ++i) {
    if (i > 0) os << separator;
    if (budget <= 0) {
      os << "...";
      break;
    }
    PrintBlock(os, data, dims, d + 1, offset + i * stride, budget);
  }
  os << "]";
}

}  // namespace

// The bookkeeping and the elements share one block: the Buffer sits in the first 64 bytes,
// the elements start at the next 64-byte boundary. The block comes from the caching
// Allocator, so at steady state a step's tensors reuse the blocks the previous step freed
// and no op output touches the heap (see allocator.h and the performance appendix).
Tensor::Buffer* Tensor::NewBuffer(DataType dtype, int64_t num_elements) {
  static_assert(sizeof(Buffer) <= static_cast<std::size_t>(kBufferAlignment));
  static_assert(static_cast<std::size_t>(kBufferAlignment) == Allocator::kAlignment);
  // One byte at least, so an empty tensor still has a buffer and counts as initialized.
  const std::size_t bytes = std::max<std::size_t>(1, num_elements * DataTypeSize(dtype));
  const std::size_t header = static_cast<std::size_t>(kBufferAlignment);
  char* block = static_cast<char*>(Allocator::Default()->AllocateRaw(header + bytes));
  auto* buffer = new (block) Buffer();
  buffer->data = block + header;
  buffer->block_bytes = header + bytes;
  if (dtype == DataType::kString) {
    std::uninitialized_default_construct_n(static_cast<std::string*>(buffer->data),
                                           num_elements);
    buffer->num_strings = num_elements;
  }
  return buffer;
}

void Tensor::Unref() {
  if (buffer_ == nullptr) return;
  // Release: this handle's reads of the elements happen before anyone who then sees the
  // lower count (RefCountIsOne acquires) writes them, or before the free below.
  if (buffer_->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    std::destroy_n(static_cast<std::string*>(buffer_->data), buffer_->num_strings);
    const std::size_t block_bytes = buffer_->block_bytes;
    buffer_->~Buffer();
    Allocator::Default()->DeallocateRaw(static_cast<void*>(buffer_), block_bytes);
  }
  buffer_ = nullptr;
}

Tensor::Tensor(const Tensor& other)
    : dtype_(other.dtype_),
      shape_(other.shape_),
      num_elements_(other.num_elements_),
      buffer_(other.buffer_) {
  // Relaxed suffices for a new handle: the caller already holds one, so the count is not
  // falling to zero, and making a handle orders nothing.
  if (buffer_ != nullptr) buffer_->refs.fetch_add(1, std::memory_order_relaxed);
}

Tensor::Tensor(Tensor&& other) noexcept
    : dtype_(other.dtype_),
      shape_(std::move(other.shape_)),
      num_elements_(other.num_elements_),
      buffer_(std::exchange(other.buffer_, nullptr)) {}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this != &other) *this = Tensor(other);
  return *this;
}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this != &other) {
    Unref();
    dtype_ = other.dtype_;
    shape_ = std::move(other.shape_);
    num_elements_ = other.num_elements_;
    buffer_ = std::exchange(other.buffer_, nullptr);
  }
  return *this;
}

Tensor::~Tensor() { Unref(); }

Tensor::Tensor(DataType dtype, const TensorShape& shape) : dtype_(dtype), shape_(shape) {
  if (!shape.IsFullyDefined()) {
    throw ValueError("Cannot allocate a tensor of partially known shape " + shape.ToString());
  }
  num_elements_ = shape.num_elements();
  buffer_ = NewBuffer(dtype, num_elements_);
}

Tensor Tensor::Zeros(DataType dtype, const TensorShape& shape) {
  Tensor t(dtype, shape);
  if (dtype != DataType::kString) {
    std::memset(t.buffer_->data, 0, t.num_elements_ * DataTypeSize(dtype));
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
  // One line: each line break of the numpy layout, with the indent after it, becomes one
  // space.
  std::string body;
  const std::string full = ToString(16);
  for (size_t i = 0; i < full.size(); ++i) {
    if (full[i] != '\n') {
      body += full[i];
      continue;
    }
    while (i + 1 < full.size() && (full[i + 1] == '\n' || full[i + 1] == ' ')) ++i;
    body += ' ';
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
    // Infinities match only themselves (numpy's rule); inf - inf would be NaN, and
    // inf <= atol + rtol * inf would let +inf match -inf.
    if (std::isinf(x) || std::isinf(y)) return x == y;
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
