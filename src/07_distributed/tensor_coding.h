// tensor_coding.h: tensors and op attributes on the wire.
//
//   07_distributed   <-- RemoteSession and the parameter server exchange values through these
//     Session
//
// A tensor crosses an RPC as its dtype, its dimensions and its raw elements; an op attribute
// as one field of a oneof; a worker's update as its op's type, variables, input values and
// attributes. Decoding checks that the element count matches the dimensions,
// so a damaged message is an error, never a tensor of the wrong size.
//
// Thread safety: free functions without shared state.
//
// TensorFlow: TensorProto and AttrValue (tensorflow/core/framework/tensor.proto,
// attr_value.proto), here much reduced.
#ifndef MTS_SRC_07_DISTRIBUTED_TENSOR_CODING_H_
#define MTS_SRC_07_DISTRIBUTED_TENSOR_CODING_H_

#include <cstdint>
#include <vector>

#include "src/01_session/operation.h"
#include "src/01_session/tensor.h"
#include "src/07_distributed/parameter_server.pb.h"

namespace mts {

/// The most elements a tensor or variable on the wire can have. A protobuf message is at most
/// 2 GiB and every element takes at least one byte of it, so a larger shape is damage.
inline constexpr int64_t kMaxWireElements = int64_t{1} << 31;

/// The dtype numbered `value`. \throws DataLossError "unknown dtype number" if there is none.
DataType DecodeDtype(int value);
/// The fully defined shape `dims` describe.
/// \throws DataLossError "negative dimension" or "more than ... elements" if it is malformed.
TensorShape DecodeDims(const google::protobuf::RepeatedField<int64_t>& dims);

/// Writes `tensor` (which must be set) into `proto`.
void EncodeTensor(const Tensor& tensor, distributed::TensorProto* proto);
/// The tensor `proto` describes. The element count is checked against the bytes received
/// before anything is allocated. \throws DataLossError if it is malformed.
Tensor DecodeTensor(const distributed::TensorProto& proto);

/// The value of `variable` (a VariableV2 op) as a parameter server sent it: an unset tensor
/// if the server holds none. \throws DataLossError "the message is damaged" if the value's
/// dtype or shape is not the variable's, so a bad reply never reaches a kernel.
Tensor DecodeVariableValue(const distributed::VariableValue& value, const Operation& variable);

/// Writes the declaration of `variable` (a VariableV2 op): its name, dtype and shape.
void EncodeVariableSpec(const Operation& variable, distributed::VariableSpec* spec);

/// Writes `op`, a state-changing op of a worker's step, as an update for a parameter server:
/// its type and name, its reference inputs as variable declarations, `inputs` (the values of
/// its other inputs, in order, as the worker computed them) and its attributes.
void EncodeUpdate(const Operation& op, const std::vector<Tensor>& inputs,
                  distributed::Update* update);

/// Writes `value` into `proto`.
void EncodeAttr(const AttrValue& value, distributed::AttrProto* proto);
/// The attribute `proto` holds. \throws DataLossError if it is empty or malformed.
AttrValue DecodeAttr(const distributed::AttrProto& proto);

}  // namespace mts

#endif  // MTS_SRC_07_DISTRIBUTED_TENSOR_CODING_H_
