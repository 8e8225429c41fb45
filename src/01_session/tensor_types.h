// tensor_types.h: the Eigen views of a Tensor's elements, for code that does arithmetic on them.
//
//   RecoverableSession
//     CoordinatedSession
//       HookedSession
//         Chief / Worker
//           Session        <-- kernels see a Tensor's elements as Eigen arrays and matrices
//
// `Tensor::flat<T>()` and `Tensor::matrix<T>()` return the types named here. They live in a
// header of their own because most code that handles Tensors (the graph, the Session, the
// hooks, the wrapper layers and their tests) never does arithmetic on the elements, and
// parsing Eigen costs about a second and a half of compile time per file: 255 of the
// project's .cc files include tensor.h and only 19 call a view. tensor.h declares `TTypes`
// without defining it, so calling `flat<T>()` in a file that does not include this header
// fails to compile with "no matching function for call to 'mts::Tensor::flat<float>()'",
// because of an "invalid use of incomplete type 'struct mts::TTypes<float>'": include this
// header there.
//
// The maps are over the Tensor's 64-byte aligned buffer (Eigen::Aligned64), so Eigen uses
// aligned loads and stores. A rank-2 tensor is row-major, like TensorFlow's.
//
// Example:
//   #include "src/01_session/tensor_types.h"
//   Tensor x = Tensor::Matrix<float>({{1, 2}, {3, 4}});
//   x.matrix<float>()(1, 0);      // 3
//   x.flat<float>() *= 2.0f;      // x is now [[2 4] [6 8]]
//
// TensorFlow: tensorflow::TTypes (tensorflow/core/framework/tensor_types.h), whose Flat and
// Matrix are Eigen::TensorMaps; here they are Eigen::Maps of arrays and matrices, which are
// what the kernels need and compile faster.
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
