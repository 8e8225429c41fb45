// tensor.h: an n-dimensional array of one dtype, the value that flows along graph edges.
//
//   Session  <-- Run() takes feeds and returns fetches as Tensors
//
// A Tensor is a handle: a dtype, a fully defined shape and a reference-counted, 64-byte
// aligned buffer; copying it copies the handle. Elements are read and written through Eigen
// maps (`flat<T>()`, `matrix<T>()`), whose types are in tensor_types.h: include it where
// you call them. A default-constructed Tensor holds no buffer (`IsInitialized()` is false):
// what an unset variable holds.
//
// Thread safety: const methods may be called concurrently; a buffer shared by two handles
// must not be written (kernels write only buffers they allocated, or ones with a use count
// of one, see `RefCountIsOne`).
//
// Example:
//   Tensor x = Tensor::Matrix<float>({{1, 2}, {3, 4}});
//   std::cout << x;            // [[1 2]
//                              //  [3 4]]
//
// TensorFlow: tensorflow::Tensor (tensorflow/core/framework/tensor.h); in Python, the numpy
// array Session.run returns.
#ifndef MTS_SRC_01_SESSION_TENSOR_H_
#define MTS_SRC_01_SESSION_TENSOR_H_

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "src/platform/errors.h"
#include "src/01_session/tensor_shape.h"
#include "src/01_session/types.h"

namespace mts {

// The Eigen view types (Flat, ConstFlat, Matrix, ConstMatrix), defined in tensor_types.h.
// Declared only, so that this header does not include Eigen: a file that calls `flat<T>()`
// or `matrix<T>()` includes tensor_types.h, and one that does not need not parse Eigen.
template <typename T>
struct TTypes;

/// A typed, shaped, reference-counted array of elements.
class Tensor {
 public:
  /// A Tensor with no buffer: `IsInitialized()` is false. This is what an unset variable holds.
  Tensor() = default;
  /// Another handle on the same buffer (no element is copied).
  Tensor(const Tensor& other);
  /// Takes over `other`'s buffer; `other` is left uninitialized.
  Tensor(Tensor&& other) noexcept;
  /// Drops this handle's buffer and shares `other`'s.
  Tensor& operator=(const Tensor& other);
  /// Drops this handle's buffer and takes over `other`'s.
  Tensor& operator=(Tensor&& other) noexcept;
  /// Drops this handle; the last handle frees the buffer.
  ~Tensor();

  /// Allocates a tensor of `dtype` and fully defined `shape`. Numeric elements are left
  /// unset (kernels overwrite them all; use `Zeros` when you need zeros); strings are empty.
  /// \throws ValueError if `shape` is not fully defined.
  Tensor(DataType dtype, const TensorShape& shape);

  /// A tensor of `dtype` and `shape` filled with zeros (false, "" for bool and string).
  static Tensor Zeros(DataType dtype, const TensorShape& shape);

  /// A rank-0 tensor holding `value`.
  template <typename T>
  static Tensor Scalar(T value);
  /// A rank-1 tensor holding `values`.
  template <typename T>
  static Tensor Vector(const std::vector<T>& values);
  /// A rank-2 tensor from rows of equal length. \throws ValueError on ragged rows.
  template <typename T>
  static Tensor Matrix(std::initializer_list<std::initializer_list<T>> rows);
  /// A tensor of `shape` holding `values` in row-major order.
  /// \throws ValueError if the number of values does not match the shape.
  template <typename T>
  static Tensor FromValues(const TensorShape& shape, const std::vector<T>& values);

  /// True if the tensor holds a buffer (false for a default-constructed Tensor).
  bool IsInitialized() const { return buffer_ != nullptr; }
  /// The element type.
  DataType dtype() const { return dtype_; }
  /// The shape (always fully defined).
  const TensorShape& shape() const { return shape_; }
  /// The number of elements.
  int64_t num_elements() const { return num_elements_; }

  /// Pointer to the first element. \throws InvalidArgumentError if T is not the dtype.
  template <typename T>
  T* data() {
    CheckType(DataTypeOf<T>::value);
    return static_cast<T*>(buffer_->data);
  }
  /// Read-only pointer to the first element. \throws InvalidArgumentError on a dtype mismatch.
  template <typename T>
  const T* data() const {
    CheckType(DataTypeOf<T>::value);
    return static_cast<const T*>(buffer_->data);
  }

  /// All elements as an Eigen column array (include tensor_types.h to call it).
  template <typename T>
  typename TTypes<T>::Flat flat() {
    return typename TTypes<T>::Flat(data<T>(), num_elements_);
  }
  /// All elements as a read-only Eigen column array (include tensor_types.h).
  template <typename T>
  typename TTypes<T>::ConstFlat flat() const {
    return typename TTypes<T>::ConstFlat(data<T>(), num_elements_);
  }
  /// A rank-2 tensor as an Eigen row-major matrix (include tensor_types.h).
  /// \throws InvalidArgumentError if not rank 2.
  template <typename T>
  typename TTypes<T>::Matrix matrix() {
    CheckRank(2);
    return typename TTypes<T>::Matrix(data<T>(), shape_.dim(0), shape_.dim(1));
  }
  /// A rank-2 tensor as a read-only Eigen row-major matrix (include tensor_types.h).
  template <typename T>
  typename TTypes<T>::ConstMatrix matrix() const {
    CheckRank(2);
    return typename TTypes<T>::ConstMatrix(data<T>(), shape_.dim(0), shape_.dim(1));
  }
  /// The only element of a one-element tensor. \throws InvalidArgumentError otherwise.
  template <typename T>
  const T& scalar() const {
    CheckOneElement();
    return *data<T>();
  }
  /// The only element of a one-element tensor, writable.
  template <typename T>
  T& scalar() {
    CheckOneElement();
    return *data<T>();
  }
  /// The element at a full index, e.g. `t.at<float>({1, 2})`.
  /// \throws InvalidArgumentError on a wrong rank or an index out of range.
  template <typename T>
  const T& at(std::initializer_list<int64_t> index) const {
    return data<T>()[FlatIndex(index)];
  }

  /// The elements as a std::vector, in row-major order.
  template <typename T>
  std::vector<T> ToVector() const {
    const T* p = data<T>();
    return std::vector<T>(p, p + num_elements_);
  }

  /// A handle to the same buffer seen with another shape of the same element count
  /// (the zero-copy path of Reshape). \throws InvalidArgumentError on a count mismatch.
  Tensor WithShape(const TensorShape& shape) const;
  /// A deep copy with its own buffer.
  Tensor Copy() const;
  /// True if no other Tensor shares this buffer, so a kernel may update it in place.
  bool RefCountIsOne() const {
    return buffer_ != nullptr && buffer_->refs.load(std::memory_order_acquire) == 1;
  }
  /// True if both handles refer to the same buffer.
  bool SharesBufferWith(const Tensor& other) const { return buffer_ == other.buffer_; }

  /// The elements in numpy's nested-bracket layout: "[[1 2]\n [3 4]]". Long tensors are
  /// abbreviated after `max_elements` elements with "...".
  std::string ToString(int64_t max_elements = 100) const;
  /// "Tensor<float32 [2,2]: [[1 2] [3 4]]>", for messages and logs.
  std::string DebugString() const;

 private:
  void CheckType(DataType expected) const;
  void CheckRank(int rank) const;
  void CheckOneElement() const;
  int64_t FlatIndex(std::initializer_list<int64_t> index) const;

  // The elements and the number of handles on them. The count is our own atomic, not a
  // shared_ptr's, because RefCountIsOne must *acquire*: a kernel that sees a count of one
  // and then writes the elements in place must be ordered after every read made through a
  // handle that another thread has since dropped. shared_ptr::use_count() is a relaxed load
  // that gives no such order (ThreadSanitizer reports the race). TensorFlow: TensorBuffer.
  struct Buffer {
    std::atomic<int64_t> refs{1};
    void* data = nullptr;     // 64-byte aligned.
    int64_t num_strings = 0;  // Constructed std::strings in `data`, destroyed with it.
    std::size_t block_bytes = 0;  // Size of the block (this header and `data`) to give back.
  };
  static Buffer* NewBuffer(DataType dtype, int64_t num_elements);
  void Unref();

  // [mts:tensor-fields]
  DataType dtype_ = DataType::kFloat;
  TensorShape shape_;
  int64_t num_elements_ = 0;
  Buffer* buffer_ = nullptr;  // Null for an uninitialized Tensor.
  // [mts:tensor-fields-end]
};

/// Prints `t.ToString()`.
std::ostream& operator<<(std::ostream& os, const Tensor& t);

/// True if both tensors have the same dtype, shape and elements (exact comparison).
bool TensorEqual(const Tensor& a, const Tensor& b);
/// True if both have the same dtype and shape and every element satisfies
/// |a - b| <= atol + rtol * |b| (numpy's allclose). Non-floating types compare exactly.
bool TensorAllClose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8);

// ---- Template definitions -----------------------------------------------------------------

template <typename T>
Tensor Tensor::Scalar(T value) {
  Tensor t(DataTypeOf<T>::value, TensorShape{});
  *t.data<T>() = std::move(value);
  return t;
}

template <typename T>
Tensor Tensor::Vector(const std::vector<T>& values) {
  return FromValues<T>(TensorShape{static_cast<int64_t>(values.size())}, values);
}

template <typename T>
Tensor Tensor::Matrix(std::initializer_list<std::initializer_list<T>> rows) {
  const int64_t num_rows = static_cast<int64_t>(rows.size());
  const int64_t num_cols = num_rows == 0 ? 0 : static_cast<int64_t>(rows.begin()->size());
  std::vector<T> values;
  values.reserve(num_rows * num_cols);
  for (const auto& row : rows) {
    if (static_cast<int64_t>(row.size()) != num_cols) {
      throw ValueError("Tensor::Matrix: rows have different lengths (" +
                       std::to_string(row.size()) + " vs " + std::to_string(num_cols) +
                       "); give every row the same number of values");
    }
    values.insert(values.end(), row.begin(), row.end());
  }
  return FromValues<T>(TensorShape{num_rows, num_cols}, values);
}

template <typename T>
Tensor Tensor::FromValues(const TensorShape& shape, const std::vector<T>& values) {
  Tensor t(DataTypeOf<T>::value, shape);
  if (static_cast<int64_t>(values.size()) != t.num_elements()) {
    throw ValueError("Tensor::FromValues: " + std::to_string(values.size()) +
                     " values cannot fill a tensor of shape " + shape.ToString() + " (" +
                     std::to_string(t.num_elements()) + " elements)");
  }
  std::copy(values.begin(), values.end(), t.data<T>());
  return t;
}

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_TENSOR_H_
