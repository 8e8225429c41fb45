// tensor_types.h: the Eigen views of a Tensor's elements, for code that does arithmetic on them.
//
//   Session  <-- kernels see a Tensor's elements as Eigen arrays and matrices
//
// `Tensor::flat<T>()` and `Tensor::matrix<T>()` return the types named here: maps over the
// 64-byte aligned buffer (Eigen::Aligned64), row-major. tensor.h only declares `TTypes`, so a
// file that calls `flat<T>()` without including this header fails with "invalid use of
// incomplete type 'struct mts::TTypes<float>'": include it there.
//
// Example:
//   Tensor x = Tensor::Matrix<float>({{1, 2}, {3, 4}});
//   x.flat<float>() *= 2.0f;      // x is now [[2 4] [6 8]]
//
// TensorFlow: tensorflow::TTypes (tensorflow/core/framework/tensor_types.h).
#ifndef MTS_SRC_01_SESSION_TENSOR_TYPES_H_
#define MTS_SRC_01_SESSION_TENSOR_TYPES_H_

#include <Eigen/Core>

#include "src/01_session/tensor.h"

namespace mts {

/// The Eigen types of the views `Tensor::flat<T>()` and `Tensor::matrix<T>()` return.
template <typename T>
struct TTypes {
  /// All elements as one writable column array.
  using Flat = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>, Eigen::Aligned64>;
  /// All elements as one read-only column array.
  using ConstFlat = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>, Eigen::Aligned64>;
  /// A rank-2 tensor as a writable row-major matrix.
  using Matrix = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>,
                            Eigen::Aligned64>;
  /// A rank-2 tensor as a read-only row-major matrix.
  using ConstMatrix =
      Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>,
                 Eigen::Aligned64>;
};

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_TENSOR_TYPES_H_
