// op_util.h: the build-time checks the math, nn and random ops share: dtype classes, axes,
// and the "'name' (op: Type)" label every error message carries.
//
//   Session  <-- runs the ops whose shape functions call these
//
// Internal to stage 01's op libraries; models never include it.
//
// TensorFlow: the type constraints of REGISTER_OP ("T: {float, double}") and the axis
// checks in tensorflow/core/framework/common_shape_fns.cc, written out by hand here.
#ifndef MTS_SRC_01_SESSION_OP_UTIL_H_
#define MTS_SRC_01_SESSION_OP_UTIL_H_

#include <string>
#include <type_traits>

#include "src/platform/errors.h"
#include "src/01_session/types.h"

namespace mts {
namespace internal {

/// The dtypes an op accepts.
enum class DtypeClass {
  kFloating,  ///< float32, float64.
  kNumeric,   ///< float32, float64, int32, int64.
  kAny,       ///< every dtype, bool and string included.
};

/// True if `dtype` belongs to `cls`.
inline bool InClass(DataType dtype, DtypeClass cls) {
  switch (cls) {
    case DtypeClass::kFloating: return IsFloating(dtype);
    case DtypeClass::kNumeric: return IsNumeric(dtype);
    case DtypeClass::kAny: return true;
  }
  return false;
}

/// The same test at compile time, for `if constexpr` in kernels: T is the C++ element type.
template <typename T, DtypeClass cls>
constexpr bool InClassV() {
  if constexpr (cls == DtypeClass::kFloating) return std::is_floating_point_v<T>;
  if constexpr (cls == DtypeClass::kNumeric) {
    return std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;
  }
  return cls == DtypeClass::kAny;
}

/// "'dense/Add' (op: Add)": how every message names the op at fault.
inline std::string OpLabel(const std::string& name, const char* type) {
  return "'" + name + "' (op: " + type + ")";
}

/// \throws TypeError naming the op unless `dtype` belongs to `cls`.
inline void CheckDtype(const std::string& name, const char* type, DataType dtype,
                       DtypeClass cls) {
  if (InClass(dtype, cls)) return;
  const char* wanted = cls == DtypeClass::kFloating ? "float32 or float64"
                                                    : "a numeric dtype (float32, float64, "
                                                      "int32 or int64)";
  throw TypeError(OpLabel(name, type) + " does not accept dtype " + DataTypeName(dtype) +
                  "; it needs " + wanted);
}

/// `axis` in [0, rank), counting a negative axis from the end.
/// \throws ValueError naming the op if it is out of [-rank, rank).
inline int NormalizeAxis(int axis, int rank, const std::string& name, const char* type) {
  if (axis < -rank || axis >= rank) {
    throw ValueError("Invalid axis " + std::to_string(axis) + " for an input of rank " +
                     std::to_string(rank) + " in " + OpLabel(name, type) +
                     "; it must be in [" + std::to_string(-rank) + ", " +
                     std::to_string(rank) + ")");
  }
  return axis < 0 ? axis + rank : axis;
}

}  // namespace internal
}  // namespace mts

#endif  // MTS_SRC_01_SESSION_OP_UTIL_H_
