#include "src/07_distributed/tensor_coding.h"

#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "src/platform/errors.h"
#include "src/01_session/op_def.h"

namespace mts {

// [mts:decode-dims]
DataType DecodeDtype(int value) {
  if (value < static_cast<int>(DataType::kFloat) || value > static_cast<int>(DataType::kString)) {
    throw DataLossError("A tensor on the wire has the unknown dtype number " +
                        std::to_string(value) + "; the sender runs another version of mts.");
  }
  return static_cast<DataType>(value);
}

TensorShape DecodeDims(const google::protobuf::RepeatedField<int64_t>& dims) {
  // Checked before anything is allocated, so a damaged message cannot make the receiver
  // reserve memory that its own bytes could never fill.
  int64_t elements = 1;
  for (int64_t d : dims) {
    if (d < 0) {
      throw DataLossError("A shape on the wire has the negative dimension " + std::to_string(d) +
                          "; the message is damaged.");
    }
    if (d > 0 && elements > kMaxWireElements / d) {
      throw DataLossError("A shape on the wire has more than " + std::to_string(kMaxWireElements) +
                          " elements, more than any message can carry; the message is damaged.");
    }
    elements *= d;
  }
  return TensorShape(std::vector<int64_t>(dims.begin(), dims.end()));
}
// [mts:decode-dims-end]

namespace {

void EncodeShape(const TensorShape& shape, distributed::TensorProto* proto) {
  proto->set_dtype(shape.has_rank() ? 0 : -1);
  for (int64_t d : shape.dims()) proto->add_dims(d);
}

// A shape attribute may leave dimensions unknown (-1), as a Placeholder's does.
TensorShape DecodeShape(const distributed::TensorProto& proto) {
  if (proto.dtype() == -1) return TensorShape::Unknown();
  for (int64_t d : proto.dims()) {
    if (d < TensorShape::kUnknownDim) {
      throw DataLossError("A shape attribute on the wire has the dimension " + std::to_string(d) +
                          "; the message is damaged.");
    }
  }
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
  const TensorShape shape = DecodeDims(proto.dims());
  const size_t n = static_cast<size_t>(shape.num_elements());
  // The element count is checked against the bytes received before the tensor is allocated.
  return DispatchDataType(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, std::string>) {
      if (static_cast<size_t>(proto.string_val_size()) != n) {
        throw DataLossError("A string tensor on the wire holds " +
                            std::to_string(proto.string_val_size()) + " elements, its shape " +
                            shape.ToString() + " needs " + std::to_string(n) +
                            "; the message is damaged.");
      }
      Tensor tensor(dtype, shape);
      for (size_t i = 0; i < n; ++i) tensor.data<T>()[i] = proto.string_val(static_cast<int>(i));
      return tensor;
    } else {
      if (proto.content().size() != n * sizeof(T)) {
        throw DataLossError("A " + std::string(DataTypeName(dtype)) + " tensor on the wire holds " +
                            std::to_string(proto.content().size()) + " bytes, its shape " +
                            shape.ToString() + " needs " + std::to_string(n * sizeof(T)) +
                            "; the message is damaged.");
      }
      Tensor tensor(dtype, shape);
      if (n > 0) std::memcpy(tensor.data<T>(), proto.content().data(), n * sizeof(T));
      return tensor;
    }
  });
}

void EncodeVariableSpec(const Operation& variable, distributed::VariableSpec* spec) {
  spec->set_name(variable.name());
  spec->set_dtype(static_cast<int>(variable.output_dtype(0)));
  for (int64_t d : variable.output_shape(0).dims()) spec->add_dims(d);
}

void EncodeUpdate(const Operation& op, const std::vector<Tensor>& inputs,
                  distributed::Update* update) {
  update->set_type(op.type());
  update->set_op_name(op.name());
  const int num_refs = op.def().num_ref_inputs;
  for (int i = 0; i < num_refs; ++i) EncodeVariableSpec(*op.input(i).op(), update->add_variables());
  for (const Tensor& input : inputs) EncodeTensor(input, update->add_inputs());
  for (const auto& [name, value] : op.attrs()) {
    EncodeAttr(value, &(*update->mutable_attrs())[name]);
  }
}

Tensor DecodeVariableValue(const distributed::VariableValue& value, const Operation& variable) {
  if (!value.initialized()) return Tensor();
  Tensor tensor = DecodeTensor(value.value());
  if (tensor.dtype() != variable.output_dtype(0) ||
      !variable.output_shape(0).IsCompatibleWith(tensor.shape())) {
    throw DataLossError("The parameter server sent variable " + variable.name() + " as " +
                            DataTypeName(tensor.dtype()) + " " + tensor.shape().ToString() +
                            ", but it is " + DataTypeName(variable.output_dtype(0)) + " " +
                            variable.output_shape(0).ToString() +
                            "; the message is damaged, or the server serves another model.",
                        variable.name());
  }
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
          // mutable_ first: an empty list must still set the oneof, or it arrives as nothing.
          distributed::TensorProto* list = proto->mutable_int_list();
          for (int64_t i : v) list->add_dims(i);
        } else {
          static_assert(std::is_same_v<V, std::vector<std::string>>);
          distributed::TensorProto* list = proto->mutable_string_list();
          for (const std::string& s : v) list->add_string_val(s);
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
