// Tests of graph_def.h and run_metadata_proto.h: a Graph's GraphDef, decoded from its bytes
// with the classes protoc generates from graph_def.proto (TensorFlow's schema), names the
// same ops, types and edges as the Graph, control edges included; its attributes carry the
// dtypes, shapes and constant values; its text form parses back; RunMetadata keeps every
// op's timing.
#include "src/01_session/graph_def.h"

#include <google/protobuf/text_format.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/01_session/run_metadata_proto.h"
#include "src/01_session/variables.h"

namespace mts {
namespace {

using ::testing::ElementsAre;

// An op with two outputs of different dtypes, so that an input "op:1" can be tested.
void SplitShape(ShapeContext& ctx) {
  ctx.AddOutput(DataType::kFloat, TensorShape{2});
  ctx.AddOutput(DataType::kInt32, TensorShape{});
}
const OpRegistration split_op({"GraphDefTestSplit", SplitShape, nullptr});

// The NodeDef named `name`, or a failure.
const tensorflow::NodeDef& NodeNamed(const tensorflow::GraphDef& def, const std::string& name) {
  for (const tensorflow::NodeDef& node : def.node()) {
    if (node.name() == name) return node;
  }
  ADD_FAILURE() << "no node " << name;
  static const tensorflow::NodeDef none;
  return none;
}

// The graph's edges in TensorFlow's input strings, built from mts's own accessors.
std::vector<std::string> ExpectedInputs(const Operation& op) {
  std::vector<std::string> inputs;
  for (const Output& input : op.inputs()) {
    inputs.push_back(input.index() == 0 ? input.op()->name()
                                        : input.op()->name() + ":" + std::to_string(input.index()));
  }
  for (const Operation* control : op.control_inputs()) inputs.push_back("^" + control->name());
  return inputs;
}

class GraphDefTest : public ::testing::Test {
 protected:
  GraphDefTest() : as_default_(graph_) {
    x_ = Placeholder(DataType::kFloat, TensorShape({TensorShape::kUnknownDim, 2}), "x");
    w_ = Variable(Tensor::Matrix<float>({{1, 2}, {3, 4}}), "w");
    NameScope scope("dense");
    split_ = graph_.AddOperation("GraphDefTestSplit", "split", {});
    second_ = Identity(split_->output(1), "second");
    {
      ControlDependencies after({second_.op(), w_.initializer()});
      y_ = Identity(x_, "y");
    }
  }

  // Parses `bytes` as a tensorflow.GraphDef, as TensorBoard does.
  static tensorflow::GraphDef Decode(const std::string& bytes) {
    tensorflow::GraphDef def;
    EXPECT_TRUE(def.ParseFromString(bytes));
    return def;
  }

  Graph graph_;
  DefaultGraphScope as_default_;
  Output x_;
  Variable w_;
  Operation* split_ = nullptr;
  Output second_;
  Output y_;
};

// Every op becomes one node, in creation order, with its name, type and every edge: data
// inputs as "op" or "op:i", then control inputs as "^op".
TEST_F(GraphDefTest, NodesMatchTheGraphOpByOp) {
  const tensorflow::GraphDef def = Decode(SerializeGraphDef(AsGraphDef(graph_)));
  const std::vector<Operation*> ops = graph_.operations();
  ASSERT_EQ(def.node_size(), static_cast<int>(ops.size()));
  for (size_t i = 0; i < ops.size(); ++i) {
    const tensorflow::NodeDef& node = def.node(static_cast<int>(i));
    EXPECT_EQ(node.name(), ops[i]->name());
    EXPECT_EQ(node.op(), ops[i]->type());
    EXPECT_EQ(std::vector<std::string>(node.input().begin(), node.input().end()),
              ExpectedInputs(*ops[i]))
        << node.name();
    EXPECT_EQ(node.device(), "");
  }
  EXPECT_EQ(def.versions().producer(), kGraphDefProducer);
}

// The forms TensorFlow writes, spelled out: output 1 is "op:1", output 0 has no suffix,
// control inputs come last with "^".
TEST_F(GraphDefTest, InputsUseTensorFlowsSpelling) {
  const tensorflow::GraphDef def = Decode(SerializeGraphDef(AsGraphDef(graph_)));
  EXPECT_THAT(NodeNamed(def, "dense/second").input(), ElementsAre("dense/split:1"));
  EXPECT_THAT(NodeNamed(def, "dense/y").input(),
              ElementsAre("x", "^dense/second", "^" + w_.initializer()->name()));
}

// Attributes: a placeholder's dtype and shape (-1 for an unknown dimension), "T" from the
// inputs, a constant's dtype and value, and every op's output shapes.
TEST_F(GraphDefTest, AttributesCarryTypesShapesAndValues) {
  const tensorflow::GraphDef def = Decode(SerializeGraphDef(AsGraphDef(graph_)));
  const tensorflow::NodeDef& x = NodeNamed(def, "x");
  EXPECT_EQ(x.attr().at("dtype").type(), tensorflow::DT_FLOAT);
  ASSERT_EQ(x.attr().at("shape").shape().dim_size(), 2);
  EXPECT_EQ(x.attr().at("shape").shape().dim(0).size(), -1);
  EXPECT_EQ(x.attr().at("shape").shape().dim(1).size(), 2);

  EXPECT_EQ(NodeNamed(def, "dense/second").attr().at("T").type(), tensorflow::DT_INT32);
  EXPECT_EQ(NodeNamed(def, "dense/y").attr().at("T").type(), tensorflow::DT_FLOAT);

  const tensorflow::NodeDef& split = NodeNamed(def, "dense/split");
  const auto& shapes = split.attr().at("_output_shapes").list().shape();
  ASSERT_EQ(shapes.size(), 2);
  ASSERT_EQ(shapes[0].dim_size(), 1);
  EXPECT_EQ(shapes[0].dim(0).size(), 2);
  EXPECT_EQ(shapes[1].dim_size(), 0);  // A scalar: rank 0, not unknown.
  EXPECT_FALSE(shapes[1].unknown_rank());
  EXPECT_EQ(split.attr().count("T"), 0u);  // No inputs, no element type to name.

  // The variable's initial value is a Const whose TensorProto holds the four floats.
  const tensorflow::NodeDef* constant = nullptr;
  for (const tensorflow::NodeDef& node : def.node()) {
    if (node.op() == "Const" && node.name().rfind("w/", 0) == 0) constant = &node;
  }
  ASSERT_NE(constant, nullptr);
  EXPECT_EQ(constant->attr().at("dtype").type(), tensorflow::DT_FLOAT);
  const tensorflow::TensorProto& value = constant->attr().at("value").tensor();
  EXPECT_EQ(value.dtype(), tensorflow::DT_FLOAT);
  ASSERT_EQ(value.tensor_shape().dim_size(), 2);
  ASSERT_EQ(value.tensor_content().size(), 4 * sizeof(float));
  float elements[4];
  std::memcpy(elements, value.tensor_content().data(), sizeof(elements));
  EXPECT_THAT(elements, ElementsAre(1, 2, 3, 4));
}

// Each attribute kind lands in its AttrValue field; strings go to string_val.
TEST(TensorToProtoTest, EveryKind) {
  EXPECT_TRUE(TensorShapeToProto(TensorShape::Unknown()).unknown_rank());
  const tensorflow::TensorProto strings = TensorToProto(Tensor::Vector<std::string>({"a", "bc"}));
  EXPECT_EQ(strings.dtype(), tensorflow::DT_STRING);
  EXPECT_THAT(strings.string_val(), ElementsAre("a", "bc"));
  EXPECT_TRUE(strings.tensor_content().empty());
  const tensorflow::TensorProto int64s = TensorToProto(Tensor::Scalar<int64_t>(-3));
  EXPECT_EQ(int64s.dtype(), tensorflow::DT_INT64);
  int64_t element = 0;
  ASSERT_EQ(int64s.tensor_content().size(), sizeof(element));
  std::memcpy(&element, int64s.tensor_content().data(), sizeof(element));
  EXPECT_EQ(element, -3);
  EXPECT_EQ(DataTypeToProto(DataType::kBool), tensorflow::DT_BOOL);
  EXPECT_EQ(DataTypeToProto(DataType::kDouble), tensorflow::DT_DOUBLE);
}

// Same graph, same bytes: the attribute maps are serialized in key order.
TEST_F(GraphDefTest, SerializationIsDeterministic) {
  EXPECT_EQ(SerializeGraphDef(AsGraphDef(graph_)), SerializeGraphDef(AsGraphDef(graph_)));
}

// The text form (graph.pbtxt) parses back, with protobuf's TextFormat, to the same GraphDef.
TEST_F(GraphDefTest, TextFormRoundTrips) {
  const tensorflow::GraphDef def = AsGraphDef(graph_);
  const std::string text = GraphDefToText(def);
  EXPECT_THAT(text, ::testing::HasSubstr("node {\n  name: \"x\"\n  op: \"Placeholder\""));
  tensorflow::GraphDef parsed;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &parsed));
  EXPECT_EQ(SerializeGraphDef(parsed), SerializeGraphDef(def));
}

// An empty graph is a GraphDef with only its version.
TEST(AsGraphDefTest, EmptyGraph) {
  Graph graph;
  const tensorflow::GraphDef def = AsGraphDef(graph);
  EXPECT_EQ(def.node_size(), 0);
  EXPECT_EQ(def.versions().producer(), kGraphDefProducer);
}

// RunMetadata: one CPU device, one NodeExecStats per op in order, the op's time as both the
// op's and the whole node's.
TEST(RunMetadataToProtoTest, KeepsEveryOpsTiming) {
  RunMetadata metadata;
  metadata.step_stats.push_back({"a", 1000, 5});
  metadata.step_stats.push_back({"b", 1007, 12});
  tensorflow::RunMetadata proto;
  ASSERT_TRUE(proto.ParseFromString(RunMetadataToProto(metadata).SerializeAsString()));
  ASSERT_EQ(proto.step_stats().dev_stats_size(), 1);
  const tensorflow::DeviceStepStats& device = proto.step_stats().dev_stats(0);
  EXPECT_EQ(device.device(), "/job:localhost/replica:0/task:0/device:CPU:0");
  ASSERT_EQ(device.node_stats_size(), 2);
  EXPECT_EQ(device.node_stats(1).node_name(), "b");
  EXPECT_EQ(device.node_stats(1).all_start_micros(), 1007);
  EXPECT_EQ(device.node_stats(1).all_end_rel_micros(), 12);
  EXPECT_EQ(device.node_stats(1).op_start_rel_micros(), 0);
  EXPECT_EQ(device.node_stats(1).op_end_rel_micros(), 12);
  EXPECT_EQ(RunMetadataToProto(RunMetadata{}).step_stats().dev_stats_size(), 0);
}

}  // namespace
}  // namespace mts
