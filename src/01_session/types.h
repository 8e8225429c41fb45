// types.h: the element types a Tensor can hold, and how C++ types map onto them.
//
//   Session  <-- Graph ops and Tensors are typed with a DataType
//
// TensorFlow: tf.DType (tensorflow/python/framework/dtypes.py). mts keeps the types a
// training loop needs: floats for the model, ints for steps and labels, bools for
// predicates, strings for serialized protos (summaries, stage 03).
#ifndef MTS_SRC_01_SESSION_TYPES_H_
#define MTS_SRC_01_SESSION_TYPES_H_

#include <cstdint>
#include <string>

namespace mts {

/// The element type of a tensor.
enum class DataType {
  kFloat,   ///< float32
  kDouble,  ///< float64
  kInt32,   ///< int32
  kInt64,   ///< int64
  kBool,    ///< bool
  kString,  ///< std::string (byte strings, e.g. serialized protos)
};

/// TensorFlow's name for a dtype: "float32", "int64", "string", ...
const char* DataTypeName(DataType dtype);

/// The size in bytes of one element (sizeof(std::string) for kString).
std::size_t DataTypeSize(DataType dtype);

/// True for float32 and float64, the types gradients flow through.
bool IsFloating(DataType dtype);

/// True for every type arithmetic ops accept (all but bool and string).
bool IsNumeric(DataType dtype);

/// Maps a C++ element type to its DataType at compile time: `DataTypeOf<float>::value`.
template <typename T>
struct DataTypeOf;
/// \cond
template <> struct DataTypeOf<float> { static constexpr DataType value = DataType::kFloat; };
template <> struct DataTypeOf<double> { static constexpr DataType value = DataType::kDouble; };
template <> struct DataTypeOf<int32_t> { static constexpr DataType value = DataType::kInt32; };
template <> struct DataTypeOf<int64_t> { static constexpr DataType value = DataType::kInt64; };
template <> struct DataTypeOf<bool> { static constexpr DataType value = DataType::kBool; };
template <> struct DataTypeOf<std::string> {
  static constexpr DataType value = DataType::kString;
};
/// \endcond

/// A value that carries a type, so a generic lambda can receive one and recover the type
/// from its member alias (see DispatchDataType).
template <typename T>
struct TypeTag {
  using type = T;  ///< The carried type.
};

/// Calls `f(TypeTag<T>{})` with T the C++ type of `dtype`: the one place where a runtime
/// dtype becomes a compile-time type. Kernels use it to instantiate Eigen code once per type.
template <typename F>
decltype(auto) DispatchDataType(DataType dtype, F&& f) {
  switch (dtype) {
    case DataType::kFloat: return f(TypeTag<float>{});
    case DataType::kDouble: return f(TypeTag<double>{});
    case DataType::kInt32: return f(TypeTag<int32_t>{});
    case DataType::kInt64: return f(TypeTag<int64_t>{});
    case DataType::kBool: return f(TypeTag<bool>{});
    case DataType::kString: return f(TypeTag<std::string>{});
  }
  return f(TypeTag<float>{});  // Unreachable: every enumerator is handled above.
}

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_TYPES_H_
