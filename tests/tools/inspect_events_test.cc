// Tests of tools/inspect_events.h: TensorFlow's own event files counted tag by tag; a log
// directory FileWriter wrote, printed in full; damaged and cut-short files reported while the
// other files are still read; a missing directory and one without event files.
#include "tools/inspect_events.h"

#include <cstdlib>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/01_session/summary.pb.h"
#include "src/03_hooked/events/event.pb.h"
#include "src/03_hooked/events/file_writer.h"
#include "src/platform/errors.h"
#include "src/platform/file_system.h"
#include "tests/testing/fake_clock.h"

namespace mts {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string RealFile(const std::string& name) {
  return JoinPath(JoinPath(std::getenv("TEST_SRCDIR"), std::getenv("TEST_WORKSPACE")),
                  "tests/testdata/tfevents/" + name);
}

class InspectEventsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = JoinPath(JoinPath(std::getenv("TEST_TMPDIR"), "inspect_events_test"),
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs_->CreateDirectories(dir_);
  }

  // Copies a real TensorFlow event file into the test's directory, cut or damaged by `edit`.
  template <typename Edit>
  std::string Copy(const std::string& name, Edit edit) {
    std::string bytes = fs_->ReadFile(RealFile(name));
    edit(bytes);
    const std::string path = JoinPath(dir_, name);
    fs_->WriteFileAtomically(path, bytes);
    return path;
  }

  FileSystem* fs_ = DefaultFileSystem();
  std::string dir_;
};

// TensorFlow 1.8's MonitoredTrainingSession file: the counts its SOURCES.md lists.
TEST_F(InspectEventsTest, CountsTensorFlowsOwnFileAsItsSourcesSay) {
  const EventStatistics s =
      CollectEventStatistics(RealFile("tfdist-tf1.8-monitoredtrainingsession-mnist.tfevents"));
  ASSERT_EQ(s.files.size(), 1u);
  EXPECT_EQ(s.files[0].events, 34);
  EXPECT_THAT(s.files[0].problem, IsEmpty());
  ASSERT_EQ(s.tags.size(), 3u);
  const TagStatistics& cost = s.tags.at("cost/cost");
  EXPECT_EQ(cost.kind, "scalar");
  EXPECT_EQ(cost.count, 13);
  EXPECT_EQ(cost.first_step, 2);
  EXPECT_EQ(cost.last_step, 1239);
  EXPECT_EQ(s.tags.at("accuracy/accuracy").count, 13);
  EXPECT_EQ(s.tags.at("global_step/sec").count, 12);
  EXPECT_EQ(s.tags.at("global_step/sec").first_step, 103);
  EXPECT_EQ(s.tags.at("global_step/sec").last_step, 1218);
  EXPECT_EQ(s.session_logs, (std::map<std::string, int64_t>{{"START", 1}, {"CHECKPOINT", 3}}));
  EXPECT_EQ(s.other_events, (std::map<std::string, int64_t>{
                                {"file_version", 1}, {"graph_def", 2}, {"meta_graph_def", 2}}));
  // The last of its two graphs, CheckpointSaverHook's, decoded as a GraphDef.
  EXPECT_EQ(s.graph_nodes, 563);
  std::ostringstream out;
  PrintEventStatistics(s, out);
  EXPECT_THAT(out.str(), HasSubstr("\nGraph: 563 nodes (the last graph_def"));
}

// An Estimator's file: its histograms are told from its scalars.
TEST_F(InspectEventsTest, TellsHistogramsFromScalars) {
  const EventStatistics s =
      CollectEventStatistics(RealFile("tfiris-tf1.8-estimator-dnn-histograms.tfevents"));
  EXPECT_EQ(s.tags.at("dnn/dnn/logits/activation").kind, "histogram");
  EXPECT_EQ(s.tags.at("loss").kind, "scalar");
  EXPECT_EQ(s.tags.at("loss").count, 2);
}

// A log directory written by mts's FileWriter, printed in full.
TEST_F(InspectEventsTest, PrintsADirectoryFileWriterWrote) {
  FakeClock clock;
  FileWriterOptions options;
  options.clock = &clock;
  FileWriter writer(dir_, options);
  tensorflow::SessionLog start;
  start.set_status(tensorflow::SessionLog::START);
  writer.AddSessionLog(start, 0);
  for (int64_t step : {0, 100, 200}) {
    tensorflow::Summary summary;
    tensorflow::Summary::Value* loss = summary.add_value();
    loss->set_tag("loss");
    loss->set_simple_value(1.0f / (step + 1));
    tensorflow::Summary::Value* weights = summary.add_value();
    weights->set_tag("weights");
    weights->mutable_histo()->set_num(1);
    writer.AddSummary(summary, step);
  }
  tensorflow::SessionLog checkpoint;
  checkpoint.set_status(tensorflow::SessionLog::CHECKPOINT);
  writer.AddSessionLog(checkpoint, 200);
  writer.Close();

  std::ostringstream out;
  PrintEventStatistics(CollectEventStatistics(dir_), out);
  const std::string name = Basename(writer.filename());
  EXPECT_EQ(out.str(), "Event files in " + dir_ + ": 1\n" +
                           "  " + name + "       6 events\n"
                           "\n"
                           "tag      kind       values  first step  last step\n"
                           "loss     scalar          3           0        200\n"
                           "weights  histogram       3           0        200\n"
                           "\n"
                           "Session logs: START 1, CHECKPOINT 1\n"
                           "Other events: file_version 1\n");
}

// Image tags show the last image's size; text tags (a string tensor whose metadata, written
// with the first value only, names the text plugin) their number of strings, and the last
// text follows the table, a string a line.
TEST_F(InspectEventsTest, ShowsImageSizesAndTexts) {
  FakeClock clock;
  FileWriterOptions options;
  options.clock = &clock;
  FileWriter writer(dir_, options);
  for (int64_t step : {0, 200}) {
    tensorflow::Summary summary;
    tensorflow::Summary::Value* image = summary.add_value();
    image->set_tag("regions/image");
    image->mutable_image()->set_width(128 + static_cast<int>(step));
    image->mutable_image()->set_height(64);
    tensorflow::Summary::Value* text = summary.add_value();
    text->set_tag("flags");
    text->mutable_metadata()->mutable_plugin_data()->set_plugin_name("text");
    text->mutable_tensor()->add_string_val("--steps=" + std::to_string(step));
    text->mutable_tensor()->add_string_val("line\nbreak");
    writer.AddSummary(summary, step);
  }
  writer.Close();

  const EventStatistics s = CollectEventStatistics(dir_);
  EXPECT_EQ(s.tags.at("flags").kind, "text");  // Its second value came without metadata.
  EXPECT_EQ(s.tags.at("flags").plugin, "text");
  std::ostringstream out;
  PrintEventStatistics(s, out);
  EXPECT_THAT(out.str(),
              HasSubstr("tag            kind   values  first step  last step\n"
                        "flags          text        2           0        200  2 strings, below\n"
                        "regions/image  image       2           0        200  328x64\n"
                        "\n"
                        "Text flags at step 200:\n"
                        "  --steps=200\n"
                        "  line\n"
                        "  break\n"
                        "\n"
                        "Session logs: none\n"));
}

// A damaged file and a cut-short one are reported with the offset at fault; their events
// before it count, and the sound file beside them is read whole.
TEST_F(InspectEventsTest, ReportsDamagedAndTruncatedFilesAndReadsTheOthers) {
  const std::string damaged =
      Copy("tfdist-tf1.8-monitoredtrainingsession-mnist.tfevents",
           [](std::string& bytes) { bytes[bytes.size() - 10] ^= 0x01; });  // The last record.
  const std::string cut = Copy("disttftrain-tf1.1-monitoredtrainingsession-restart.tfevents",
                               [](std::string& bytes) { bytes.resize(bytes.size() - 3); });
  Copy("tfiris-tf1.8-estimator-dnn-histograms.tfevents", [](std::string&) {});

  const EventStatistics s = CollectEventStatistics(dir_);
  ASSERT_EQ(s.files.size(), 3u);
  EXPECT_EQ(s.files[0].path, cut);  // Sorted by name.
  EXPECT_EQ(s.files[0].events, 7);
  EXPECT_THAT(s.files[0].problem, HasSubstr("truncated record"));
  EXPECT_EQ(s.files[1].path, damaged);
  EXPECT_EQ(s.files[1].events, 33);
  EXPECT_THAT(s.files[1].problem, HasSubstr("checksum mismatch"));
  EXPECT_EQ(s.files[2].events, 11);
  EXPECT_THAT(s.files[2].problem, IsEmpty());

  std::ostringstream out;
  PrintEventStatistics(s, out);
  EXPECT_THAT(out.str(), HasSubstr("      33 events, then stopped (the events before count):\n"
                                   "    corrupted record"));
  EXPECT_THAT(out.str(), HasSubstr(" in " + damaged));
}

// No such directory, or none of its files is an event file: NotFoundError naming it.
TEST_F(InspectEventsTest, MissingDirectoryOrNoEventFileIsNotFound) {
  EXPECT_THROW(CollectEventStatistics(JoinPath(dir_, "nowhere")), NotFoundError);
  fs_->WriteFileAtomically(JoinPath(dir_, "checkpoint"), "");
  EXPECT_THAT([&] { CollectEventStatistics(dir_); },
              ::testing::ThrowsMessage<NotFoundError>(HasSubstr("no event file in " + dir_)));
}

}  // namespace
}  // namespace mts
