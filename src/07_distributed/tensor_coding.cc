#include "src/07_distributed/tensor_coding.h"

#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "src/01_session/errors.h"

namespace mts {
namespace {

DataType DecodeDtype(int value) {
  if (value < static_cast<int>(DataType::kFloat) || value > static_cast<int>(DataType::kString)) {
    throw DataLossError("A tensor on the wire has the unknown dtype number " +
                        std::to_string(value));
  }
  return static_cast<DataType>(value);
}

void EncodeShape(const TensorShape& shape, distributed::TensorProto* proto) {
  proto->set_dtype(shape.has_rank() ? 0 : -1);
  for (int64_t d : shape.dims()) proto->add_dims(d);
}

TensorShape DecodeShape(const distributed::TensorProto& proto) {
  if (proto.dtype() == -1) return TensorShape::Unknown();
  return TensorShape(std::vector<int64_t>(proto.dims().begin(), proto.dims().end()));
}

}  // namespace

void EncodeTensor(const Tensor& tensor, distributed::TensorProto* proto) {
  proto->set_dtype(static_cast<int>(tensor.dtype()));
  for (int64_t d : tensor.shape().dims()) proto->add_dims(d);
  DispatchDataType(tensor.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::string>) {
      for (int64_t i = 0; i < tensor.num_elements(); ++i)
        proto->add_string_val(tensor.data<T>()[i]);
    } else {
      proto->set_content(reinterpret_cast<const char*>(tensor.data<T>()),
                         sizeof(T) * static_cast<size_t>(tensor.num_elements()));
    }
  });
}

Tensor DecodeTensor(const distributed::TensorProto& proto) {
  const DataType dtype = DecodeDtype(proto.dtype());
  for (int64_t d : proto.dims()) {
    if (d < 0) throw DataLossError("A tensor on the wire has a negative dimension.");
  }
  Tensor tensor(dtype, TensorShape(std::vector<int64_t>(proto.dims().begin(), proto.dims().end())));
  DispatchDataType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const size_t n = static_cast<size_t>(tensor.num_elements());
    if constexpr (std::is_same_v<T, std::string>) {
      if (static_cast<size_t>(proto.string_val_size()) != n) {
        throw DataLossError("A string tensor on the wire holds " +
                            std::to_string(proto.string_val_size()) + " elements, its shape " +
                            tensor.shape().ToString() + " needs " + std::to_string(n));
      }
      for (size_t i = 0; i < n; ++i) tensor.data<T>()[i] = proto.string_val(static_cast<int>(i));
    } else {
      if (proto.content().size() != n * sizeof(T)) {
        throw DataLossError("A " + std::string(DataTypeName(dtype)) + " tensor on the wire holds " +
                            std::to_string(proto.content().size()) + " bytes, its shape " +
                            tensor.shape().ToString() + " needs " + std::to_string(n * sizeof(T)));
      }
      if (n > 0) std::memcpy(tensor.data<T>(), proto.content().data(), n * sizeof(T));
    }
  });
  return tensor;
}

void EncodeAttr(const AttrValue& value, distributed::AttrProto* proto) {
  std::visit(
      [&](const auto& v) {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, bool>) {
          proto->set_b(v);
        } else if constexpr (std::is_same_v<V, int64_t>) {
          proto->set_i(v);
        } else if constexpr (std::is_same_v<V, double>) {
          proto->set_f(v);
        } else if constexpr (std::is_same_v<V, std::string>) {
          proto->set_s(v);
        } else if constexpr (std::is_same_v<V, DataType>) {
          proto->set_dtype(static_cast<int>(v));
        } else if constexpr (std::is_same_v<V, TensorShape>) {
          EncodeShape(v, proto->mutable_shape());
        } else if constexpr (std::is_same_v<V, Tensor>) {
          EncodeTensor(v, proto->mutable_tensor());
        } else if constexpr (std::is_same_v<V, std::vector<int64_t>>) {
          for (int64_t i : v) proto->mutable_int_list()->add_dims(i);
        } else {
          static_assert(std::is_same_v<V, std::vector<std::string>>);
          for (const std::string& s : v) proto->mutable_string_list()->add_string_val(s);
        }
      },
      value);
}

AttrValue DecodeAttr(const distributed::AttrProto& proto) {
  using P = distributed::AttrProto;
  switch (proto.value_case()) {
    case P::kB:
      return proto.b();
    case P::kI:
      return static_cast<int64_t>(proto.i());
    case P::kF:
      return proto.f();
    case P::kS:
      return proto.s();
    case P::kDtype:
      return DecodeDtype(proto.dtype());
    case P::kShape:
      return DecodeShape(proto.shape());
    case P::kTensor:
      return DecodeTensor(proto.tensor());
    case P::kIntList:
      return std::vector<int64_t>(proto.int_list().dims().begin(), proto.int_list().dims().end());
    case P::kStringList:
      return std::vector<std::string>(proto.string_list().string_val().begin(),
                                      proto.string_list().string_val().end());
    case P::VALUE_NOT_SET:
      break;
  }
  throw DataLossError("An op attribute on the wire holds no value.");
}

}  // namespace mts
