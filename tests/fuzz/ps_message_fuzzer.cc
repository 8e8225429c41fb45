// ps_message_fuzzer.cc: libFuzzer target for the RPC messages of stage 07: what a parameter
// server decodes from a worker (VariableStore::Read and Apply, tensor_coding.h) and what a
// worker decodes from a parameter server (DecodeVariableValue).
//
// The promise under test: any bytes, parsed as one of the messages, either do what the
// message says or raise an OpError (the status the server answers with, the error the worker
// raises); nothing crashes, reads out of bounds, throws anything else, or allocates memory
// the message's bytes do not pay for (tools/fuzz.sh caps the fuzzer at 1 GiB). And what
// decodes, encodes back to the same values.
//
// The first byte is a mode: bits 1-3 pick the message (below); an odd byte stamps the
// store's incarnation into a request, as checksums are repaired in the other targets, so
// the fuzzer gets past the "restarted server" check to the decoding behind it.
//
// Build and run: tools/fuzz.sh (see tests/fuzz/README.md).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "src/platform/errors.h"
#include "src/01_session/graph.h"
#include "src/01_session/tensor.h"
#include "src/01_session/variables.h"
#include "src/07_distributed/parameter_server.pb.h"
#include "src/07_distributed/tensor_coding.h"
#include "src/07_distributed/variable_store.h"

namespace {

enum class Message {
  kReadVariablesRequest,  // A worker asks the ps for values: VariableStore::Read.
  kApplyUpdatesRequest,   // A worker sends its step's updates: VariableStore::Apply.
  kTensor,                // One tensor: DecodeTensor.
  kAttr,                  // One attribute: DecodeAttr.
  kVariableValue,         // The ps's answer for one variable: DecodeVariableValue.
  kCount,
};

// True if the two set tensors hold the same dtype, shape and bytes.
bool SameTensor(const mts::Tensor& a, const mts::Tensor& b) {
  mts::distributed::TensorProto pa, pb;
  mts::EncodeTensor(a, &pa);
  mts::EncodeTensor(b, &pb);
  return pa.SerializeAsString() == pb.SerializeAsString();
}

// Decoding, then encoding, then decoding again gives the tensor decoded first.
void CheckTensorRoundTrip(const mts::distributed::TensorProto& proto) {
  const mts::Tensor decoded = mts::DecodeTensor(proto);
  mts::distributed::TensorProto again;
  mts::EncodeTensor(decoded, &again);
  if (!SameTensor(decoded, mts::DecodeTensor(again))) __builtin_trap();
}

// A worker's variable w: float32 [2], the kind of variable DecodeVariableValue checks against.
const mts::Operation& WorkerVariable() {
  static const mts::Operation* w = [] {
    auto* graph = new mts::Graph;  // Lives as long as the process, as the op it owns must.
    mts::DefaultGraphScope scope(*graph);
    return mts::Variable(mts::Tensor::Vector<float>({1, 2}), "w").op();
  }();
  return *w;
}

void Fuzz(Message kind, bool stamp_incarnation, const std::string& bytes) {
  mts::VariableStore store;
  switch (kind) {
    case Message::kReadVariablesRequest: {
      mts::distributed::ReadVariablesRequest request;
      if (!request.ParseFromString(bytes)) return;
      if (stamp_incarnation) request.set_incarnation(store.incarnation());
      const mts::distributed::ReadVariablesResponse response = store.Read(request);
      // One value per variable, in request order, none set: the store was new.
      if (response.values_size() != request.variables_size()) __builtin_trap();
      for (int i = 0; i < response.values_size(); ++i) {
        if (response.values(i).name() != request.variables(i).name()) __builtin_trap();
        if (response.values(i).initialized()) __builtin_trap();
      }
      break;
    }
    case Message::kApplyUpdatesRequest: {
      mts::distributed::ApplyUpdatesRequest request;
      if (!request.ParseFromString(bytes)) return;
      if (stamp_incarnation) request.set_incarnation(store.incarnation());
      store.Apply(request);
      if (store.num_updates() != request.updates_size()) __builtin_trap();
      // What the updates left in the variables reads back whole, of the declared dtype.
      mts::distributed::ReadVariablesRequest read;
      read.set_incarnation(store.incarnation());
      for (const auto& update : request.updates()) *read.add_variables() = update.variables(0);
      const mts::distributed::ReadVariablesResponse values = store.Read(read);
      for (int i = 0; i < values.values_size(); ++i) {
        if (!values.values(i).initialized()) continue;
        const mts::Tensor value = mts::DecodeTensor(values.values(i).value());
        if (static_cast<int>(value.dtype()) != read.variables(i).dtype()) __builtin_trap();
      }
      break;
    }
    case Message::kTensor: {
      mts::distributed::TensorProto proto;
      if (!proto.ParseFromString(bytes)) return;
      CheckTensorRoundTrip(proto);
      break;
    }
    case Message::kAttr: {
      mts::distributed::AttrProto proto;
      if (!proto.ParseFromString(bytes)) return;
      const mts::AttrValue value = mts::DecodeAttr(proto);
      mts::distributed::AttrProto again;
      mts::EncodeAttr(value, &again);
      if (again.value_case() != proto.value_case()) __builtin_trap();
      break;
    }
    case Message::kVariableValue: {
      mts::distributed::VariableValue proto;
      if (!proto.ParseFromString(bytes)) return;
      const mts::Tensor value = mts::DecodeVariableValue(proto, WorkerVariable());
      if (value.IsInitialized() &&
          (value.dtype() != mts::DataType::kFloat || value.shape() != mts::TensorShape({2}))) {
        __builtin_trap();  // A value of another shape would reach the worker's kernels.
      }
      break;
    }
    case Message::kCount:
      break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto kind = static_cast<Message>((data[0] >> 1) % static_cast<int>(Message::kCount));
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    Fuzz(kind, (data[0] & 1) != 0, bytes);
  } catch (const mts::OpError&) {
    // The promised outcome for a bad message: an error status, nothing else.
  }
  return 0;
}
