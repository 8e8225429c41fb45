#include "src/01_session/types.h"

namespace mts {

const char* DataTypeName(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat: return "float32";
    case DataType::kDouble: return "float64";
    case DataType::kInt32: return "int32";
    case DataType::kInt64: return "int64";
    case DataType::kBool: return "bool";
    case DataType::kString: return "string";
  }
  return "invalid";
}

std::size_t DataTypeSize(DataType dtype) {
  return DispatchDataType(dtype, [](auto tag) { return sizeof(typename decltype(tag)::type); });
}

bool IsFloating(DataType dtype) {
  return dtype == DataType::kFloat || dtype == DataType::kDouble;
}

bool IsNumeric(DataType dtype) {
  return dtype != DataType::kBool && dtype != DataType::kString;
}

}  // namespace mts
