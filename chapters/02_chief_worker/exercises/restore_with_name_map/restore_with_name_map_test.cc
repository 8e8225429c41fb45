// Tests of the name-mapped restore exercise.
#include "chapters/02_chief_worker/exercises/restore_with_name_map/restore_with_name_map.h"

#include <cstdlib>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "src/platform/errors.h"
#include "src/01_session/session.h"
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "tests/testing/expect_error.h"

namespace mts {

namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Throws;

using Floats = std::vector<float>;

// A checkpoint written by an old model ("dense/...") and a new model that calls the same
// weights "encoder/...", plus a variable of its own that the checkpoint never held.
class NameMappedRestorerTest : public ::testing::Test {
 protected:
  NameMappedRestorerTest() : path_(JoinPath(std::getenv("TEST_TMPDIR"), "old.ckpt-100")) {
    WriteCheckpoint(*DefaultFileSystem(), path_,
                    {{"dense/kernel", Tensor::Vector<float>({1, 2, 3})},
                     {"dense/bias", Tensor::Scalar(0.5f)},
                     {"global_step", Tensor::Scalar<int64_t>(100)}});
  }

  // Initialises every variable, so that a restore that changes nothing can be seen.
  Session& InitializedSession() {
    session_.Run(GlobalVariablesInitializer());
    return session_;
  }
  Floats ValueOf(const Variable& v) { return session_.Run(v.value()).ToVector<float>(); }

  std::string path_;
  Graph graph_;
  DefaultGraphScope scope_{graph_};
  Variable kernel_{Tensor::Vector<float>({0, 0, 0}), "encoder/kernel"};
  Variable bias_{Tensor::Scalar(0.0f), "encoder/bias"};
  Variable head_{Tensor::Vector<float>({9, 9}), "head/w"};
  Session session_{&graph_};
};

// Mapped variables take the stored values of their stored names.
TEST_F(NameMappedRestorerTest, RestoresUnderNewNames) {
  NameMappedRestorer restorer({{"dense/kernel", kernel_}, {"dense/bias", bias_}});
  restorer.Restore(InitializedSession(), path_);
  EXPECT_EQ(ValueOf(kernel_), (Floats{1, 2, 3}));
  EXPECT_EQ(ValueOf(bias_), (Floats{0.5f}));
}

// A variable outside the map keeps its value; a stored tensor nobody maps is ignored.
TEST_F(NameMappedRestorerTest, LeavesUnmappedVariablesAlone) {
  NameMappedRestorer restorer({{"dense/kernel", kernel_}});
  restorer.Restore(InitializedSession(), path_);
  EXPECT_EQ(ValueOf(head_), (Floats{9, 9}));
  EXPECT_EQ(ValueOf(bias_), (Floats{0}));
}

// Every missing stored name is named, and nothing is assigned, not even what was found.
TEST_F(NameMappedRestorerTest, MissingNamesAreAllNamedAndNothingChanges) {
  NameMappedRestorer restorer(
      {{"dense/kernel", kernel_}, {"dense/gamma", bias_}, {"dense/w", head_}});
  Session& session = InitializedSession();
  EXPECT_THAT(
      [&] { restorer.Restore(session, path_); },
      Throws<NotFoundError>(HasMessage(AllOf(HasSubstr("dense/gamma"), HasSubstr("dense/w")))));
  EXPECT_EQ(ValueOf(kernel_), (Floats{0, 0, 0}));
}

// A stored shape that differs from its variable's is named with both, before anything is
// assigned.
TEST_F(NameMappedRestorerTest, ShapeMismatchIsNamedAndNothingChanges) {
  // "dense/kernel" is [3]; "head/w" is [2]. The sound pair sorts first.
  NameMappedRestorer restorer({{"dense/bias", bias_}, {"dense/kernel", head_}});
  Session& session = InitializedSession();
  EXPECT_THAT(
      [&] { restorer.Restore(session, path_); },
      Throws<InvalidArgumentError>(HasMessage(AllOf(HasSubstr("dense/kernel"), HasSubstr("head/w"),
                                                    HasSubstr("[3]"), HasSubstr("[2]")))));
  EXPECT_EQ(ValueOf(bias_), (Floats{0}));
  EXPECT_EQ(ValueOf(head_), (Floats{9, 9}));
}

// A damaged tensor raises DataLossError, and nothing is assigned.
TEST_F(NameMappedRestorerTest, DamagedTensorChangesNothing) {
  std::string bytes = DefaultFileSystem()->ReadFile(path_);
  bytes.back() = static_cast<char>(bytes.back() ^ 1);  // In the last tensor: global_step.
  DefaultFileSystem()->WriteFileAtomically(path_, bytes);
  Variable step{Tensor::Scalar<int64_t>(0), "step"};
  NameMappedRestorer restorer({{"dense/bias", bias_}, {"global_step", step}});
  Session& session = InitializedSession();
  EXPECT_THROW(restorer.Restore(session, path_), DataLossError);
  EXPECT_EQ(ValueOf(bias_), (Floats{0}));
}

// The map is checked when the restorer is made.
TEST_F(NameMappedRestorerTest, RejectsAnEmptyMapAndTwoNamesForOneVariable) {
  EXPECT_THROW(NameMappedRestorer({}), ValueError);
  EXPECT_THROW(NameMappedRestorer({{"dense/kernel", kernel_}, {"other", kernel_}}), ValueError);
}

}  // namespace
}  // namespace mts
