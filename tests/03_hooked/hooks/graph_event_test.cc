// Tests of the graph where TensorFlow 1.x puts it, read back as TensorBoard reads it: the
// graph_def event a SummaryWriterCache writer starts with; CheckpointSaverHook's graph.pbtxt
// and graph event; ProfilerHook's tagged_run_metadata events; FileWriter::AddRunMetadata's
// refusal of a repeated tag. graph_def.proto itself is checked against a GraphDef that
// TensorFlow 1.8 wrote (tests/testdata/tfevents): every field of it must be one the schema
// declares.
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/graph_def.h"
#include "src/01_session/step_stats.pb.h"
#include "src/02_chief_worker/saver.h"
#include "src/03_hooked/events/event_file_reader.h"
#include "src/03_hooked/events/file_writer.h"
#include "src/03_hooked/events/summary_writer_cache.h"
#include "src/03_hooked/hooks/checkpoint_saver_hook.h"
#include "src/03_hooked/hooks/profiler_hook.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "tests/03_hooked/hooks/hook_test_harness.h"

namespace mts {
namespace {

using ::testing::ElementsAre;
using ::testing::StrEq;
using ::testing::ThrowsMessage;

// A fresh directory per test, named after it; the shared writers are closed after each test.
class GraphEventTest : public ::testing::Test {
 protected:
  GraphEventTest() {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = JoinPath(::testing::TempDir(), std::string("graph_event_") + info->name());
  }
  ~GraphEventTest() override { SummaryWriterCache::Clear(); }

  // The GraphDefs of the graph_def events in dir_, decoded with graph_def.proto.
  std::vector<tensorflow::GraphDef> GraphEvents() {
    SummaryWriterCache::Get(dir_)->Flush();
    std::vector<tensorflow::GraphDef> graphs;
    for (const tensorflow::Event& event : ReadEventDirectory(dir_)) {
      if (event.what_case() != tensorflow::Event::kGraphDef) continue;
      graphs.emplace_back();
      EXPECT_TRUE(graphs.back().ParseFromString(event.graph_def()));
    }
    return graphs;
  }

  // The names of `graph`'s ops, in order.
  static std::vector<std::string> OpNames(const Graph& graph) {
    std::vector<std::string> names;
    for (const Operation* op : graph.operations()) names.push_back(op->name());
    return names;
  }
  static std::vector<std::string> NodeNames(const tensorflow::GraphDef& def) {
    std::vector<std::string> names;
    for (const tensorflow::NodeDef& node : def.node()) names.push_back(node.name());
    return names;
  }

  HookTestHarness harness_;  // Its graph is this thread's default graph.
  std::string dir_;
};

// A GraphDef TensorFlow 1.8 wrote parses with graph_def.proto and nothing in it is unknown
// to the schema: nodes, inputs (control inputs too), devices, attributes of every kind.
TEST(TensorFlowGraphDefTest, RealGraphParsesWithNoUnknownField) {
  const std::vector<tensorflow::Event> events =
      ReadEventFile("tests/testdata/tfevents/tfdist-tf1.8-monitoredtrainingsession-mnist.tfevents");
  std::vector<int> sizes;
  for (const tensorflow::Event& event : events) {
    if (event.what_case() != tensorflow::Event::kGraphDef) continue;
    tensorflow::GraphDef def;
    ASSERT_TRUE(def.ParseFromString(event.graph_def()));
    sizes.push_back(def.node_size());
    EXPECT_EQ(def.versions().producer(), 26);
    EXPECT_TRUE(def.GetReflection()->GetUnknownFields(def).empty());
    int control_inputs = 0;
    for (const tensorflow::NodeDef& node : def.node()) {
      EXPECT_TRUE(node.GetReflection()->GetUnknownFields(node).empty()) << node.name();
      for (const auto& [name, value] : node.attr()) {
        EXPECT_TRUE(value.GetReflection()->GetUnknownFields(value).empty()) << node.name();
      }
      for (const std::string& input : node.input()) control_inputs += input[0] == '^';
    }
    EXPECT_GT(control_inputs, 0);
    const tensorflow::NodeDef* assign = nullptr;
    for (const tensorflow::NodeDef& node : def.node()) {
      if (node.name() == "Variable/Assign") assign = &node;
    }
    ASSERT_NE(assign, nullptr);
    EXPECT_EQ(assign->op(), "Assign");
    EXPECT_THAT(assign->input(), ElementsAre("Variable", "random_normal"));
    EXPECT_EQ(assign->device(), "/job:ps/task:0");
    EXPECT_EQ(assign->attr().at("T").type(), tensorflow::DT_FLOAT);
  }
  // FileWriterCache's, made in a hook's begin, then CheckpointSaverHook's of the finished
  // graph (the session's initializers, the saver's ops ...): the order mts writes them in.
  EXPECT_THAT(sizes, ElementsAre(386, 563));
}

// A writer the cache makes starts with the graph event of the caller's default graph, right
// after the file_version record, at no step.
TEST_F(GraphEventTest, CachedWriterStartsWithTheDefaultGraph) {
  std::shared_ptr<FileWriter> writer = SummaryWriterCache::Get(dir_);
  writer->Flush();
  const std::vector<tensorflow::Event> events = ReadEventDirectory(dir_);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].file_version(), "brain.Event:2");
  ASSERT_EQ(events[1].what_case(), tensorflow::Event::kGraphDef);
  EXPECT_EQ(events[1].step(), 0);
  tensorflow::GraphDef def;
  ASSERT_TRUE(def.ParseFromString(events[1].graph_def()));
  EXPECT_EQ(NodeNames(def), OpNames(harness_.graph()));
  // The same writer again: no second graph event.
  SummaryWriterCache::Get(dir_);
  EXPECT_EQ(GraphEvents().size(), 1u);
}

// CheckpointSaverHook, on session creation: graph.pbtxt in the checkpoint directory (text
// format, parsed back with TextFormat, the graph the session runs, no temporary file left)
// and a second graph event, of the finished graph, after the cache's.
TEST_F(GraphEventTest, CheckpointSaverHookWritesGraphTextAndEvent) {
  GetSaverOrDefault();
  CheckpointSaverHookOptions options;
  options.save_steps = 10;
  auto hook = std::make_shared<CheckpointSaverHook>(dir_, options);
  harness_.Start({hook});
  const std::string text = DefaultFileSystem()->ReadFile(JoinPath(dir_, "graph.pbtxt"));
  tensorflow::GraphDef from_text;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &from_text));
  EXPECT_EQ(NodeNames(from_text), OpNames(harness_.graph()));
  for (const std::string& name : DefaultFileSystem()->ListDirectory(dir_)) {
    EXPECT_TRUE(name == "graph.pbtxt" || name == "checkpoint" || name == "checkpoint.lock" ||
                IsEventFileName(name) || name.rfind("model.ckpt-0", 0) == 0 ||
                name.rfind(".", 0) == 0)
        << name;
  }
  const std::vector<tensorflow::GraphDef> graphs = GraphEvents();
  ASSERT_EQ(graphs.size(), 2u);
  // Begin's graph lacks what was built after it (the initializer); the hook's has it all.
  EXPECT_LT(graphs[0].node_size(), graphs[1].node_size());
  EXPECT_EQ(NodeNames(graphs[1]), OpNames(harness_.graph()));
  EXPECT_EQ(SerializeGraphDef(graphs[1]), SerializeGraphDef(from_text));
  harness_.End();
}

// save_graph_def = false: no graph.pbtxt and no graph event from the hook (only the cache's).
TEST_F(GraphEventTest, CheckpointSaverHookCanSkipTheGraph) {
  GetSaverOrDefault();
  CheckpointSaverHookOptions options;
  options.save_steps = 10;
  options.save_graph_def = false;
  auto hook = std::make_shared<CheckpointSaverHook>(dir_, options);
  harness_.Start({hook});
  EXPECT_FALSE(DefaultFileSystem()->Exists(JoinPath(dir_, "graph.pbtxt")));
  EXPECT_EQ(GraphEvents().size(), 1u);
  harness_.End();
}

// ProfilerHook: each traced run becomes a tagged_run_metadata event "step_<step>" with no
// step of its own; its RunMetadata decodes and names nodes of the graph, the train op among
// them, each with a non-negative time.
TEST_F(GraphEventTest, ProfilerHookWritesTaggedRunMetadata) {
  ProfilerHookOptions options;
  options.save_steps = 2;
  options.output_dir = dir_;
  harness_.Start({std::make_shared<ProfilerHook>(options)});
  for (int i = 0; i < 5; ++i) harness_.Step();  // Traced: the runs ending at steps 2 and 4.
  SummaryWriterCache::Get(dir_)->Flush();
  std::vector<std::string> tags;
  std::set<std::string> graph_ops;
  for (const std::string& name : OpNames(harness_.graph())) graph_ops.insert(name);
  for (const tensorflow::Event& event : ReadEventDirectory(dir_)) {
    if (event.what_case() != tensorflow::Event::kTaggedRunMetadata) continue;
    tags.push_back(event.tagged_run_metadata().tag());
    EXPECT_EQ(event.step(), 0);
    tensorflow::RunMetadata metadata;
    ASSERT_TRUE(metadata.ParseFromString(event.tagged_run_metadata().run_metadata()));
    ASSERT_EQ(metadata.step_stats().dev_stats_size(), 1);
    std::vector<std::string> nodes;
    for (const tensorflow::NodeExecStats& stats : metadata.step_stats().dev_stats(0).node_stats()) {
      EXPECT_EQ(graph_ops.count(stats.node_name()), 1u) << stats.node_name();
      EXPECT_GE(stats.all_end_rel_micros(), 0);
      EXPECT_GT(stats.all_start_micros(), 0);
      nodes.push_back(stats.node_name());
    }
    EXPECT_NE(std::find(nodes.begin(), nodes.end(), harness_.train_op()->name()), nodes.end());
  }
  EXPECT_THAT(tags, ElementsAre("step_2", "step_4"));
}

// A tag is used once per writer, with TensorFlow's message; nothing is queued the second
// time.
TEST_F(GraphEventTest, RunMetadataTagIsUsedOnce) {
  FileWriter writer(dir_);
  RunMetadata metadata;
  metadata.step_stats.push_back({"op", 1, 2});
  writer.AddRunMetadata(metadata, "step_1", 1);
  EXPECT_THAT(
      [&] { writer.AddRunMetadata(metadata, "step_1", 1); },
      ThrowsMessage<ValueError>(StrEq("The provided tag was already used for this event type")));
  writer.Close();
  int tagged = 0;
  for (const tensorflow::Event& event : ReadEventDirectory(dir_)) {
    if (event.what_case() != tensorflow::Event::kTaggedRunMetadata) continue;
    ++tagged;
    EXPECT_EQ(event.step(), 1);
    EXPECT_EQ(event.tagged_run_metadata().tag(), "step_1");
  }
  EXPECT_EQ(tagged, 1);
}

}  // namespace
}  // namespace mts
