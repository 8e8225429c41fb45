// Tests of checkpoint_state.h: the real state files TensorFlow wrote parse to the right
// values and print back byte for byte; the path rules; GetCheckpointState's edge cases;
// LatestCheckpoint.
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"
#include "tests/testing/new_dir.h"

namespace mts {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StrEq;
using ::testing::ThrowsMessage;

// The real files in tests/testdata/checkpoint_state, by absolute path (tests may chdir).
std::string Sample(const std::string& name) {
  return JoinPath(JoinPath(std::getenv("TEST_SRCDIR"), std::getenv("TEST_WORKSPACE")),
                  "tests/testdata/checkpoint_state/" + name);
}

std::string ReadSample(const std::string& name) {
  return DefaultFileSystem()->ReadFile(Sample(name));
}

// ---- The real samples ------------------------------------------------------------------------

struct SampleCase {
  std::string file;
  CheckpointState expected;
};

std::vector<SampleCase> SampleCases() {
  const std::string win =
      "C:\\Users\\Ryan Meredith\\Documents\\github\\distributed_tensorflow\\logs\\";
  const std::string mac = "/Users/deben/Documents/workspace/dist_tf_train/logs/";
  return {
      {"tfdist-tf1.8-saver-relative.checkpoint",
       {"model.ckpt-1263", {"model.ckpt-2", "model.ckpt-591", "model.ckpt-1263"}, {}, 0}},
      {"disttftrain-tf1.1-saver-absolute.checkpoint",
       {mac + "model.ckpt-29",
        {mac + "model.ckpt-6", mac + "model.ckpt-22", mac + "model.ckpt-27",
         mac + "model.ckpt-29"},
        {},
        0}},
      {"distributedtensorflow-tf1-saver-windows-escaped.checkpoint",
       {win + "model.ckpt-0", {win + "model.ckpt-3000", win + "model.ckpt-0"}, {}, 0}},
      {"mnistgan-tf2-checkpointmanager-timestamps.checkpoint",
       {"ckpt-3149",
        {"ckpt-3145", "ckpt-3146", "ckpt-3147", "ckpt-3148", "ckpt-3149"},
        {1577797234.614436, 1577797246.1623502, 1577797258.8518708, 1577797270.5170336,
         1577797282.610634},
        1577165913.8413465}},
  };
}

// Every real state file parses to exactly the values TensorFlow recorded.
TEST(CheckpointStateTextTest, ParsesEveryRealSample) {
  for (const SampleCase& c : SampleCases()) {
    SCOPED_TRACE(c.file);
    EXPECT_EQ(ParseCheckpointState(ReadSample(c.file)), c.expected);
  }
}

// Printing each parsed sample gives back the file TensorFlow wrote, byte for byte: escaping,
// field order, Python's shortest doubles and the final newline included.
TEST(CheckpointStateTextTest, PrintsEveryRealSampleByteForByte) {
  for (const SampleCase& c : SampleCases()) {
    SCOPED_TRACE(c.file);
    EXPECT_EQ(CheckpointStateToText(c.expected), ReadSample(c.file));
  }
}

// Doubles print as Python's repr(float) does: shortest round trip, ".0" on whole numbers,
// exponent form below 1e-4 and from 1e16 on.
TEST(CheckpointStateTextTest, PrintsDoublesAsPythonRepr) {
  const std::vector<std::pair<double, std::string>> cases = {
      {1672531200.0, "1672531200.0"},
      {1577797246.1623502, "1577797246.1623502"},
      {0.1, "0.1"},
      {0.0001, "0.0001"},
      {0.00001, "1e-05"},
      {1.5e-7, "1.5e-07"},
      {123.456, "123.456"},
      {-2.5, "-2.5"},
      {1e15, "1000000000000000.0"},
      {1e16, "1e+16"},
      {1.2345e20, "1.2345e+20"},
      {5e-324, "5e-324"},
      {1.7976931348623157e308, "1.7976931348623157e+308"},
      {std::numeric_limits<double>::infinity(), "inf"},
      {-std::numeric_limits<double>::infinity(), "-inf"},
      {std::nan(""), "nan"},
  };
  for (const auto& [value, text] : cases) {
    CheckpointState state;
    state.last_preserved_timestamp = value;
    EXPECT_EQ(CheckpointStateToText(state), "last_preserved_timestamp: " + text + "\n");
    EXPECT_EQ(ParseCheckpointState(CheckpointStateToText(state)), state) << text;
  }
}

// Strings are C-escaped as Python's protobuf does (octal for control bytes and for every
// byte of UTF-8), and parse back to the same bytes.
TEST(CheckpointStateTextTest, EscapesStringsAsPythonProtobufAndReadsThemBack) {
  CheckpointState state;
  state.model_checkpoint_path = std::string("a\"b'c\\d\ne\tf\rg\x01h\x7f") + "\xc3\xa9";
  const std::string text = CheckpointStateToText(state);
  EXPECT_EQ(text,
            "model_checkpoint_path: \"a\\\"b\\'c\\\\d\\ne\\tf\\rg\\001h\\177\\303\\251\"\n");
  EXPECT_EQ(ParseCheckpointState(text), state);
}

// Empty and zero fields are left out, as proto3 printing does.
TEST(CheckpointStateTextTest, LeavesOutEmptyFields) {
  EXPECT_EQ(CheckpointStateToText(CheckpointState{}), "");
  CheckpointState only_list;
  only_list.all_model_checkpoint_paths = {"a"};
  EXPECT_EQ(CheckpointStateToText(only_list), "all_model_checkpoint_paths: \"a\"\n");
}

// The parser takes everything text format allows for these fields: comments, any order,
// single quotes, adjacent strings, escapes, lists, separators, number spellings.
TEST(CheckpointStateTextTest, ParsesTheWholeTextFormatForItsFields) {
  const std::string text =
      "# written by hand\n"
      "all_model_checkpoint_timestamps: [1, 2.5e1, -inf]  # a list\n"
      "all_model_checkpoint_paths: 'one';\n"
      "  last_preserved_timestamp :3.0f,\n"
      "all_model_checkpoint_paths: [\"tw\" 'o', \"\\x41\\101\\u00e9\"]\n"
      "model_checkpoint_path: \"old\" model_checkpoint_path: \"new\"";  // last one wins
  const CheckpointState state = ParseCheckpointState(text);
  EXPECT_EQ(state.model_checkpoint_path, "new");
  EXPECT_THAT(state.all_model_checkpoint_paths, ElementsAre("one", "two", "AA\xc3\xa9"));
  ASSERT_EQ(state.all_model_checkpoint_timestamps.size(), 3u);
  EXPECT_EQ(state.all_model_checkpoint_timestamps[0], 1);
  EXPECT_EQ(state.all_model_checkpoint_timestamps[1], 25);
  EXPECT_EQ(state.all_model_checkpoint_timestamps[2], -std::numeric_limits<double>::infinity());
  EXPECT_EQ(state.last_preserved_timestamp, 3);
  EXPECT_EQ(ParseCheckpointState("all_model_checkpoint_paths: []"), CheckpointState{});
  EXPECT_EQ(ParseCheckpointState(""), CheckpointState{});
}

// Anything else is rejected with a ValueError saying where (protobuf's TextFormat finds it;
// line and column count from 1, and a tab advances the column to the next multiple of 8).
TEST(CheckpointStateTextTest, RejectsGarbageNamingLineAndColumn) {
  const std::vector<std::string> garbage = {
      "garbage",
      "\x89PNG\r\n",
      "model_checkpoint_path \"x\"",
      "model_checkpoint_path: x",
      "model_checkpoint_path: \"unterminated",
      "model_checkpoint_path: \"line\nbreak\"",
      "model_checkpoint_path: \"bad \\q escape\"",
      "model_checkpoint_path: \"\\x\"",
      "model_checkpoint_path: \"\\u12\"",
      "model_checkpoint_path: [\"a\"]",
      "unknown_field: 1",
      "last_preserved_timestamp: \"1\"",
      "last_preserved_timestamp: 1.2.3",
      "last_preserved_timestamp: 0x10",
      "last_preserved_timestamp: e5",
      "last_preserved_timestamp:",
      "all_model_checkpoint_paths: [\"a\" \"b\"",
      "all_model_checkpoint_paths: [\"a\",]",
      "model_checkpoint_path: \"a\" }",
  };
  for (const std::string& text : garbage) {
    EXPECT_THROW(ParseCheckpointState(text), ValueError) << text;
  }
  EXPECT_THAT([&] { ParseCheckpointState("model_checkpoint_path: \"a\"\n  bogus: 1\n"); },
              ThrowsMessage<ValueError>(AllOf(HasSubstr("line 2 column 8"),  // The ':' after it.
                                              HasSubstr("has no field named \"bogus\""))));
  EXPECT_THAT(
      [&] { ParseCheckpointState("model_checkpoint_path: \"a\"\nlast_preserved_timestamp: x1\n"); },
      ThrowsMessage<ValueError>(HasSubstr("line 2 column 27: Expected double, got: x1")));
}

// ---- Paths and files -----------------------------------------------------------------------

class CheckpointStateFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = NewDir();
    dir_ = JoinPath(root_, "logs");
    fs_->CreateDirectories(dir_);
    char cwd[4096];
    ASSERT_NE(::getcwd(cwd, sizeof(cwd)), nullptr);
    old_cwd_ = cwd;
  }
  void TearDown() override { ASSERT_EQ(::chdir(old_cwd_.c_str()), 0); }

  // Makes relative paths resolve inside this test's directory: "logs" is dir_.
  void ChdirToRoot() { ASSERT_EQ(::chdir(root_.c_str()), 0); }

  std::string Path(const std::string& name) const { return JoinPath(dir_, name); }
  void Touch(const std::string& path) { fs_->WriteFileAtomically(path, "x"); }

  FileSystem* fs_ = DefaultFileSystem();
  std::string root_;
  std::string dir_;
  std::string old_cwd_;
};

// The model path is appended to the list unless it is already last.
TEST_F(CheckpointStateFileTest, GenerateAppendsTheModelPathUnlessLast) {
  EXPECT_THAT(GenerateCheckpointState("/d", "/d/m-3", {}).all_model_checkpoint_paths,
              ElementsAre("/d/m-3"));
  EXPECT_THAT(GenerateCheckpointState("/d", "/d/m-3", {"/d/m-1", "/d/m-2"})
                  .all_model_checkpoint_paths,
              ElementsAre("/d/m-1", "/d/m-2", "/d/m-3"));
  EXPECT_THAT(GenerateCheckpointState("/d", "/d/m-3", {"/d/m-1", "/d/m-3"})
                  .all_model_checkpoint_paths,
              ElementsAre("/d/m-1", "/d/m-3"));
  EXPECT_THROW(GenerateCheckpointState("/d", "/d/m-3", {"/d/m-3"}, {1.0, 2.0}), ValueError);
}

// A relative directory gets paths relative to itself; an absolute one keeps them absolute.
TEST_F(CheckpointStateFileTest, GenerateMakesPathsRelativeOnlyForARelativeDirectory) {
  const CheckpointState relative =
      GenerateCheckpointState("logs", "logs/model.ckpt-1263", {"logs/model.ckpt-2"});
  EXPECT_EQ(relative.model_checkpoint_path, "model.ckpt-1263");
  EXPECT_THAT(relative.all_model_checkpoint_paths, ElementsAre("model.ckpt-2", "model.ckpt-1263"));
  EXPECT_EQ(GenerateCheckpointState("./a/../logs/", "logs/m-1", {}).model_checkpoint_path, "m-1");
  EXPECT_EQ(GenerateCheckpointState("", "m-1", {}).model_checkpoint_path, "m-1");
  EXPECT_EQ(GenerateCheckpointState("logs", "other/m-1", {}).model_checkpoint_path,
            "../other/m-1");
  EXPECT_EQ(GenerateCheckpointState("logs", "/abs/m-1", {}).model_checkpoint_path, "/abs/m-1");
  EXPECT_EQ(GenerateCheckpointState("/abs", "/abs/m-1", {}).model_checkpoint_path, "/abs/m-1");
}

// Saving into the relative directory "logs" writes exactly TensorFlow's file for that case.
TEST_F(CheckpointStateFileTest, UpdateInARelativeDirectoryWritesWhatTensorFlowWrote) {
  ChdirToRoot();
  UpdateCheckpointStateFile("logs", "logs/model.ckpt-1263",
                            {"logs/model.ckpt-2", "logs/model.ckpt-591", "logs/model.ckpt-1263"});
  EXPECT_EQ(fs_->ReadFile(Path("checkpoint")),
            ReadSample("tfdist-tf1.8-saver-relative.checkpoint"));
  EXPECT_THAT(fs_->ListDirectory(dir_), ElementsAre("checkpoint"));  // No temporary left.
}

// An absolute directory keeps absolute paths; save_relative_paths makes them relative.
TEST_F(CheckpointStateFileTest, UpdateInAnAbsoluteDirectoryKeepsAbsolutePathsUnlessAsked) {
  UpdateCheckpointStateFile(dir_, Path("model.ckpt-29"), {Path("model.ckpt-6")});
  EXPECT_EQ(fs_->ReadFile(Path("checkpoint")),
            "model_checkpoint_path: \"" + Path("model.ckpt-29") + "\"\n" +
                "all_model_checkpoint_paths: \"" + Path("model.ckpt-6") + "\"\n" +
                "all_model_checkpoint_paths: \"" + Path("model.ckpt-29") + "\"\n");
  UpdateCheckpointStateFile(dir_, Path("model.ckpt-29"), {Path("model.ckpt-6")}, "checkpoint",
                            /*save_relative_paths=*/true);
  EXPECT_EQ(fs_->ReadFile(Path("checkpoint")),
            "model_checkpoint_path: \"model.ckpt-29\"\n"
            "all_model_checkpoint_paths: \"model.ckpt-6\"\n"
            "all_model_checkpoint_paths: \"model.ckpt-29\"\n");
}

// The state file may not be the checkpoint itself; the old state file then stays.
TEST_F(CheckpointStateFileTest, UpdateRefusesAStateFileThatIsTheCheckpoint) {
  UpdateCheckpointStateFile(dir_, Path("model.ckpt-1"), {});
  const std::string before = fs_->ReadFile(Path("checkpoint"));
  EXPECT_THROW(UpdateCheckpointStateFile(dir_, Path("checkpoint"), {}), RuntimeError);
  EXPECT_EQ(fs_->ReadFile(Path("checkpoint")), before);
}

// No state file: no state, and nothing logged.
TEST_F(CheckpointStateFileTest, GetWithoutAStateFileIsNone) {
  ScopedLogCapture capture;
  EXPECT_EQ(GetCheckpointState(dir_), std::nullopt);
  EXPECT_TRUE(capture.lines().empty());
}

// A state file that does not parse, or cannot be read, is logged and treated as absent.
TEST_F(CheckpointStateFileTest, GetWithAnUnparsableOrUnreadableStateFileIsNoneWithAWarning) {
  fs_->WriteFileAtomically(Path("checkpoint"), "this is not a checkpoint state\n");
  {
    ScopedLogCapture capture;
    EXPECT_EQ(GetCheckpointState(dir_), std::nullopt);
    EXPECT_TRUE(capture.Contains(Path("checkpoint") + ": Checkpoint ignored"));
  }
  fs_->CreateDirectories(Path("state_dir"));  // A directory cannot be read as a file.
  ScopedLogCapture capture;
  EXPECT_EQ(GetCheckpointState(dir_, "state_dir"), std::nullopt);
  EXPECT_TRUE(capture.Contains("Checkpoint ignored"));
}

// A state file that parses but names no model checkpoint is an error, not "none".
TEST_F(CheckpointStateFileTest, GetWithAnEmptyModelPathRaisesValueError) {
  for (const std::string text : {"", "all_model_checkpoint_paths: \"model.ckpt-1\"\n"}) {
    fs_->WriteFileAtomically(Path("checkpoint"), text);
    EXPECT_THAT([&] { GetCheckpointState(dir_); },
                ThrowsMessage<ValueError>(StrEq("Invalid checkpoint state loaded from " + dir_)))
        << "state file: " << text;
  }
}

// Relative entries are joined onto the directory read from; absolute ones are kept.
TEST_F(CheckpointStateFileTest, GetJoinsRelativePathsOntoTheDirectory) {
  fs_->WriteFileAtomically(Path("checkpoint"),
                           ReadSample("tfdist-tf1.8-saver-relative.checkpoint"));
  const std::optional<CheckpointState> state = GetCheckpointState(dir_);
  ASSERT_TRUE(state);
  EXPECT_EQ(state->model_checkpoint_path, Path("model.ckpt-1263"));
  EXPECT_THAT(state->all_model_checkpoint_paths,
              ElementsAre(Path("model.ckpt-2"), Path("model.ckpt-591"), Path("model.ckpt-1263")));

  fs_->WriteFileAtomically(Path("other"), ReadSample("disttftrain-tf1.1-saver-absolute.checkpoint"));
  EXPECT_EQ(GetCheckpointState(dir_, "other")->model_checkpoint_path,
            "/Users/deben/Documents/workspace/dist_tf_train/logs/model.ckpt-29");
}

// A state file with absolute paths, read in a copy of its directory: each path that leads
// out of the copy is replaced by the copy's file of the same name where there is one, with
// a warning naming the original; a path with no such file is kept as it was.
TEST_F(CheckpointStateFileTest, GetInACopiedDirectoryNamesTheCopysFiles) {
  const std::string original = JoinPath(root_, "original");
  UpdateCheckpointStateFile(dir_, JoinPath(original, "model.ckpt-3"),
                            {JoinPath(original, "model.ckpt-1"), JoinPath(original, "model.ckpt-2")});
  Touch(Path("model.ckpt-3"));
  Touch(Path("model.ckpt-2"));  // model.ckpt-1 was not copied.
  ScopedLogCapture capture;
  const std::optional<CheckpointState> state = GetCheckpointState(dir_);
  ASSERT_TRUE(state);
  EXPECT_EQ(state->model_checkpoint_path, Path("model.ckpt-3"));
  EXPECT_THAT(state->all_model_checkpoint_paths,
              ElementsAre(JoinPath(original, "model.ckpt-1"), Path("model.ckpt-2"),
                          Path("model.ckpt-3")));
  EXPECT_TRUE(capture.Contains("names checkpoints in " + original +
                               " (the directory was copied or moved)"));
  EXPECT_EQ(LatestCheckpoint(dir_), Path("model.ckpt-3"));
}

// LatestCheckpoint returns the newest path only when its file exists.
TEST_F(CheckpointStateFileTest, LatestCheckpointRequiresTheFile) {
  EXPECT_EQ(LatestCheckpoint(dir_), std::nullopt);  // No state file.
  fs_->WriteFileAtomically(Path("checkpoint"),
                           ReadSample("tfdist-tf1.8-saver-relative.checkpoint"));
  {
    ScopedLogCapture capture;
    EXPECT_EQ(LatestCheckpoint(dir_), std::nullopt);  // State, but no checkpoint file.
    EXPECT_TRUE(capture.Contains("Couldn't match files for checkpoint " +
                                 Path("model.ckpt-1263")));
  }
  Touch(Path("model.ckpt-1263"));
  EXPECT_EQ(LatestCheckpoint(dir_), Path("model.ckpt-1263"));
  EXPECT_EQ(LatestCheckpoint(dir_, "no_such_state_file"), std::nullopt);
}

// Written then read, in a relative directory: the round trip gives the paths back.
TEST_F(CheckpointStateFileTest, UpdateThenGetRoundTripsInARelativeDirectory) {
  ChdirToRoot();
  UpdateCheckpointStateFile("logs", "logs/model.ckpt-2", {"logs/model.ckpt-1"}, "my_state");
  Touch("logs/model.ckpt-2");
  const std::optional<CheckpointState> state = GetCheckpointState("logs", "my_state");
  ASSERT_TRUE(state);
  EXPECT_EQ(state->model_checkpoint_path, "logs/model.ckpt-2");
  EXPECT_THAT(state->all_model_checkpoint_paths,
              ElementsAre("logs/model.ckpt-1", "logs/model.ckpt-2"));
  EXPECT_EQ(LatestCheckpoint("logs", "my_state"), "logs/model.ckpt-2");
}

}  // namespace
}  // namespace mts
