#include "src/01_session/graph_def.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include <cstring>
#include <type_traits>
#include <variant>

#include "src/platform/errors.h"

namespace mts {
namespace {

// The input string TensorFlow writes for a data input: "op" for output 0, "op:i" otherwise.
std::string InputName(const Output& input) {
  if (input.index() == 0) return input.op()->name();
  return input.op()->name() + ":" + std::to_string(input.index());
}

// One mts attribute value as an AttrValue. Each alternative of the variant has the kind
// TensorFlow's attribute of that type has.
tensorflow::AttrValue ToAttrValue(const AttrValue& value) {
  tensorflow::AttrValue out;
  std::visit(
      [&out](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          out.set_b(v);
        } else if constexpr (std::is_same_v<T, int64_t>) {
          out.set_i(v);
        } else if constexpr (std::is_same_v<T, double>) {
          out.set_f(static_cast<float>(v));  // TensorFlow's float attributes are 32-bit.
        } else if constexpr (std::is_same_v<T, std::string>) {
          out.set_s(v);
        } else if constexpr (std::is_same_v<T, DataType>) {
          out.set_type(DataTypeToProto(v));
        } else if constexpr (std::is_same_v<T, TensorShape>) {
          *out.mutable_shape() = TensorShapeToProto(v);
        } else if constexpr (std::is_same_v<T, Tensor>) {
          *out.mutable_tensor() = TensorToProto(v);
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          auto* list = out.mutable_list();
          for (int64_t i : v) list->add_i(i);
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          auto* list = out.mutable_list();
          for (const std::string& s : v) list->add_s(s);
        } else {
          static_assert(sizeof(T) == 0, "an AttrValue alternative has no GraphDef form");
        }
      },
      value);
  return out;
}

// The dtype shared by every data input of `op`, if they share one (the "T" of TensorFlow's
// type-polymorphic ops: Add, MatMul, Identity, Assign ...).
bool CommonInputType(const Operation& op, DataType* dtype) {
  if (op.num_inputs() == 0) return false;
  *dtype = op.input(0).dtype();
  for (const Output& input : op.inputs()) {
    if (input.dtype() != *dtype) return false;
  }
  return true;
}

}  // namespace

tensorflow::DataType DataTypeToProto(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat:
      return tensorflow::DT_FLOAT;
    case DataType::kDouble:
      return tensorflow::DT_DOUBLE;
    case DataType::kInt32:
      return tensorflow::DT_INT32;
    case DataType::kInt64:
      return tensorflow::DT_INT64;
    case DataType::kBool:
      return tensorflow::DT_BOOL;
    case DataType::kString:
      return tensorflow::DT_STRING;
  }
  return tensorflow::DT_INVALID;  // Unreachable: every enumerator is handled above.
}

tensorflow::TensorShapeProto TensorShapeToProto(const TensorShape& shape) {
  tensorflow::TensorShapeProto out;
  if (!shape.has_rank()) {
    out.set_unknown_rank(true);
    return out;
  }
  for (int64_t dim : shape.dims()) {
    out.add_dim()->set_size(dim == TensorShape::kUnknownDim ? -1 : dim);
  }
  return out;
}

tensorflow::TensorProto TensorToProto(const Tensor& tensor) {
  tensorflow::TensorProto out;
  out.set_dtype(DataTypeToProto(tensor.dtype()));
  if (!tensor.IsInitialized()) return out;
  *out.mutable_tensor_shape() = TensorShapeToProto(tensor.shape());
  if (tensor.dtype() == DataType::kString) {
    const std::string* strings = tensor.data<std::string>();
    for (int64_t i = 0; i < tensor.num_elements(); ++i) out.add_string_val(strings[i]);
    return out;
  }
  // The elements as they lie in memory: little-endian on every machine mts builds for,
  // which is the byte order tensor_content is defined in.
  DispatchDataType(tensor.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<T, std::string>) {
      out.set_tensor_content(reinterpret_cast<const char*>(tensor.data<T>()),
                             sizeof(T) * static_cast<size_t>(tensor.num_elements()));
    }
  });
  return out;
}

// [mts:as-graph-def]
tensorflow::GraphDef AsGraphDef(const Graph& graph) {
  tensorflow::GraphDef def;
  def.mutable_versions()->set_producer(kGraphDefProducer);
  for (const Operation* op : graph.operations()) {
    tensorflow::NodeDef* node = def.add_node();
    node->set_name(op->name());
    node->set_op(op->type());
    for (const Output& input : op->inputs()) node->add_input(InputName(input));
    for (const Operation* control : op->control_inputs()) node->add_input("^" + control->name());
    auto& attrs = *node->mutable_attr();
    for (const auto& [name, value] : op->attrs()) attrs[name] = ToAttrValue(value);
    // What TensorFlow's nodes carry and mts's ops need not: the element type...
    DataType dtype;
    if (attrs.count("T") == 0 && CommonInputType(*op, &dtype)) {
      attrs["T"].set_type(DataTypeToProto(dtype));
    }
    if (op->type() == "Const" && attrs.count("dtype") == 0 && op->num_outputs() == 1) {
      attrs["dtype"].set_type(DataTypeToProto(op->output_dtype(0)));
    }
    // ...and the static shape of every output, which TensorBoard writes on the edges.
    auto* shapes = attrs["_output_shapes"].mutable_list();
    for (int i = 0; i < op->num_outputs(); ++i) {
      *shapes->add_shape() = TensorShapeToProto(op->output_shape(i));
    }
  }
  return def;
}
// [mts:as-graph-def-end]

std::string SerializeGraphDef(const tensorflow::GraphDef& graph_def) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    if (!graph_def.SerializeToCodedStream(&coded)) {
      throw InternalError("could not serialize a GraphDef of " +
                          std::to_string(graph_def.node_size()) + " nodes");
    }
  }  // The streams flush into `bytes` as they go out of scope.
  return bytes;
}

std::string GraphDefToText(const tensorflow::GraphDef& graph_def) {
  std::string text;
  if (!google::protobuf::TextFormat::PrintToString(graph_def, &text)) {
    throw InternalError("could not print a GraphDef of " + std::to_string(graph_def.node_size()) +
                        " nodes as text");
  }
  return text;
}

}  // namespace mts
