// tensor_coding.h: tensors and op attributes on the wire.
//
//   07_distributed   <-- RemoteSession and the parameter server exchange values through these
//     Session
//
// A tensor crosses an RPC as its dtype, its dimensions and its raw elements; an op attribute
// as one field of a oneof. Decoding checks that the element count matches the dimensions,
// so a damaged message is an error, never a tensor of the wrong size.
//
// Thread safety: free functions without shared state.
//
// TensorFlow: TensorProto and AttrValue (tensorflow/core/framework/tensor.proto,
// attr_value.proto), here much reduced.
#ifndef MTS_SRC_07_DISTRIBUTED_TENSOR_CODING_H_
#define MTS_SRC_07_DISTRIBUTED_TENSOR_CODING_H_

#include "src/01_session/operation.h"
#include "src/01_session/tensor.h"
#include "src/07_distributed/parameter_server.pb.h"

namespace mts {

/// Writes `tensor` (which must be set) into `proto`.
void EncodeTensor(const Tensor& tensor, distributed::TensorProto* proto);
/// The tensor `proto` describes. \throws DataLossError if it is malformed.
Tensor DecodeTensor(const distributed::TensorProto& proto);

/// Writes `value` into `proto`.
void EncodeAttr(const AttrValue& value, distributed::AttrProto* proto);
/// The attribute `proto` holds. \throws DataLossError if it is empty or malformed.
AttrValue DecodeAttr(const distributed::AttrProto& proto);

}  // namespace mts

#endif  // MTS_SRC_07_DISTRIBUTED_TENSOR_CODING_H_
