// make_seed_corpora.cc: writes the fuzz targets' seed corpora (tests/fuzz/corpus/).
//
//   bazel run //tests/fuzz:make_seed_corpora -- "$PWD/tests/fuzz/corpus"
//
// A fuzzer mutates its seeds, so seeds that are real files reach deep code at once:
//   checkpoint_reader_fuzzer   small checkpoints of every dtype, written by SerializeCheckpoint;
//   checkpoint_state_fuzzer    TensorFlow's own state files (tests/testdata/checkpoint_state);
//   event_file_reader_fuzzer   small records of TensorFlow's event files
//                              (tests/testdata/tfevents), whole, framing included;
//   ps_message_fuzzer          the messages a worker training a small model with gradient
//                              descent or Adam sends its parameter server (made by the same
//                              encoders RemoteSession uses), tensors of every dtype, every
//                              kind of attribute, and the server's answers.
// The file targets read their first byte as a mode (odd: repair checksums first, see the
// targets), so every binary seed is written twice, once per mode; ps_message_fuzzer's first
// byte also says which message follows. The output is checked in; run this
// again only when the formats or the test data change.
#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/01_session/learning/adam_optimizer.h"
#include "src/01_session/learning/gradient_descent_optimizer.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/op_def.h"
#include "src/01_session/training_util.h"
#include "src/01_session/variables.h"
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/03_hooked/events/record_reader.h"
#include "src/07_distributed/parameter_server.pb.h"
#include "src/07_distributed/tensor_coding.h"
#include "src/platform/file_system.h"

namespace mts {
namespace {

void Write(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

// A binary seed in both modes: "<name>-raw" (checksums kept) and "<name>-repair".
void WriteBothModes(const std::string& dir, const std::string& name, const std::string& bytes) {
  Write(JoinPath(dir, name + "-raw"), std::string(1, '\0') + bytes);
  Write(JoinPath(dir, name + "-repair"), std::string(1, '\1') + bytes);
}

// Small tensors of every dtype, an empty one included: the seeds of both binary targets.
std::vector<NamedTensor> EveryDtype() {
  return {
      {"w", Tensor::Matrix<float>({{1.5f, -2}, {3, 4}})},
      {"global_step", Tensor::Scalar<int64_t>(42)},
      {"d", Tensor::Vector<double>({0.25})},
      {"i", Tensor::Vector<int32_t>({-7, 8})},
      {"flags", Tensor::Vector<bool>({true, false})},
      {"names", Tensor::Vector<std::string>({"ab", ""})},
      {"empty", Tensor::Zeros(DataType::kFloat, {0})},
  };
}

void CheckpointSeeds(const std::string& dir) {
  FileSystem& fs = *DefaultFileSystem();
  fs.CreateDirectories(dir);
  WriteBothModes(dir, "empty", SerializeCheckpoint({}));
  WriteBothModes(dir, "scalar", SerializeCheckpoint({{"global_step", Tensor::Scalar<int64_t>(7)}}));
  WriteBothModes(dir, "every-dtype", SerializeCheckpoint(EveryDtype()));
}

void StateSeeds(const std::string& testdata, const std::string& dir) {
  FileSystem& fs = *DefaultFileSystem();
  fs.CreateDirectories(dir);
  for (const std::string& name : fs.ListDirectory(testdata)) {
    if (name.size() > 11 && name.substr(name.size() - 11) == ".checkpoint") {
      Write(JoinPath(dir, name), fs.ReadFile(JoinPath(testdata, name)));
    }
  }
}

// Up to `count` records of each event file, each smaller than `max_record` bytes, framing
// included (the graph and metadata records are large; small seeds run fast).
void EventSeeds(const std::string& testdata, const std::string& dir, int count,
                uint64_t max_record) {
  FileSystem& fs = *DefaultFileSystem();
  fs.CreateDirectories(dir);
  for (const std::string& name : fs.ListDirectory(testdata)) {
    if (name.find(".tfevents") == std::string::npos) continue;
    const std::string contents = fs.ReadFile(JoinPath(testdata, name));
    RecordReader reader(name, contents);
    std::string seed, record;
    int kept = 0;
    uint64_t start = reader.offset();
    while (kept < count && reader.ReadNext(&record)) {
      if (reader.offset() - start < max_record) {
        seed += contents.substr(start, reader.offset() - start);
        ++kept;
      }
      start = reader.offset();
    }
    WriteBothModes(dir, name.substr(0, name.find(".tfevents")), seed);
  }
}

// ps_message_fuzzer's first byte: the message kind (its enum Message) in bits 1-3, and bit 0
// set to stamp the store's incarnation into a request.
enum class PsMessage { kRead, kApply, kTensor, kAttr, kVariableValue };

void WritePsSeed(const std::string& dir, const std::string& name, PsMessage kind,
                 const google::protobuf::MessageLite& message) {
  const char mode = static_cast<char>(static_cast<int>(kind) << 1);
  const std::string bytes = message.SerializeAsString();
  if (kind == PsMessage::kRead || kind == PsMessage::kApply) {
    Write(JoinPath(dir, name + "-stale"), std::string(1, mode) + bytes);
    Write(JoinPath(dir, name + "-stamped"), std::string(1, static_cast<char>(mode | 1)) + bytes);
  } else {
    Write(JoinPath(dir, name), std::string(1, mode) + bytes);
  }
}

// The requests of one step of a worker whose whole model is on the ps: a read of every
// variable, and every op that changes one (the initializers' Assigns, then the optimizer's
// updates and the global step's increment), fed zeros of its inputs' shapes.
void WriteStepSeeds(const std::string& dir, const std::string& name, const Graph& graph) {
  distributed::ReadVariablesRequest read;
  distributed::ApplyUpdatesRequest apply;
  for (const Operation* op : graph.operations()) {
    if (op->type() == "VariableV2") EncodeVariableSpec(*op, read.add_variables());
    if (op->def().num_ref_inputs == 0 || op->def().num_inputs < 0) continue;
    std::vector<Tensor> inputs;
    for (int i = op->def().num_ref_inputs; i < op->num_inputs(); ++i) {
      inputs.push_back(Tensor::Zeros(op->input(i).dtype(), op->input(i).shape()));
    }
    EncodeUpdate(*op, inputs, apply.add_updates());
  }
  WritePsSeed(dir, name + "-read", PsMessage::kRead, read);
  WritePsSeed(dir, name + "-apply", PsMessage::kApply, apply);
}

void PsMessageSeeds(const std::string& dir) {
  DefaultFileSystem()->CreateDirectories(dir);
  for (const bool adam : {false, true}) {
    Graph graph;
    DefaultGraphScope scope(graph);
    Variable w(Tensor::Vector<float>({1, 2}), "w");
    Variable b(Tensor::Scalar<double>(0.5), "b");
    Variable global_step = GetOrCreateGlobalStep();
    const Output loss = ReduceSum(Mul(w.value(), w.value()));
    if (adam) {
      AdamOptimizer(0.01).Minimize(loss, global_step);
    } else {
      GradientDescentOptimizer(0.1).Minimize(loss, global_step);
      b.AssignAdd(Constant(0.25));
    }
    WriteStepSeeds(dir, adam ? "adam" : "gradient-descent", graph);
  }
  for (const auto& [name, tensor] : EveryDtype()) {
    distributed::TensorProto proto;
    EncodeTensor(tensor, &proto);
    WritePsSeed(dir, "tensor-" + name, PsMessage::kTensor, proto);
  }
  const std::vector<std::pair<std::string, AttrValue>> attrs = {
      {"bool", true},
      {"int", int64_t{-3}},
      {"float", 0.5},
      {"string", std::string("w/Adam")},
      {"dtype", DataType::kInt64},
      {"shape", TensorShape({-1, 3})},
      {"unknown-shape", TensorShape::Unknown()},
      {"tensor", Tensor::Vector<float>({1, 2})},
      {"int-list", std::vector<int64_t>{0, 1}},
      {"string-list", std::vector<std::string>{"a", "bc"}},
  };
  for (const auto& [name, value] : attrs) {
    distributed::AttrProto proto;
    EncodeAttr(value, &proto);
    WritePsSeed(dir, "attr-" + name, PsMessage::kAttr, proto);
  }
  // The answers for the fuzzer's worker variable, float32 [2]: a value, none, another shape.
  distributed::VariableValue value;
  value.set_name("w");
  WritePsSeed(dir, "value-unset", PsMessage::kVariableValue, value);
  value.set_initialized(true);
  EncodeTensor(Tensor::Vector<float>({3, 4}), value.mutable_value());
  WritePsSeed(dir, "value-set", PsMessage::kVariableValue, value);
  value.clear_value();
  EncodeTensor(Tensor::Vector<float>({3, 4, 5}), value.mutable_value());
  WritePsSeed(dir, "value-wrong-shape", PsMessage::kVariableValue, value);
}

}  // namespace
}  // namespace mts

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_seed_corpora OUT_DIR (tests/fuzz/corpus)\n";
    return 2;
  }
  const std::string out = argv[1];
  // Under `bazel run` the test data is in the runfiles tree, the working directory.
  mts::CheckpointSeeds(mts::JoinPath(out, "checkpoint_reader_fuzzer"));
  mts::StateSeeds("tests/testdata/checkpoint_state", mts::JoinPath(out, "checkpoint_state_fuzzer"));
  mts::EventSeeds("tests/testdata/tfevents", mts::JoinPath(out, "event_file_reader_fuzzer"), 8,
                  1024);
  mts::PsMessageSeeds(mts::JoinPath(out, "ps_message_fuzzer"));
  std::cout << "seed corpora written under " << out << "\n";
  return 0;
}
