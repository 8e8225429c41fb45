// conformance_support.h: the little TensorFlow test fixtures the ported cases share: a
// session that borrows another (TensorFlow's tests wrap one tf.Session in several wrappers
// in turn), the value of a variable in the newest checkpoint (checkpoint_utils.load_variable),
// a counting CheckpointSaverListener (MockCheckpointSaverListener), and the scalars a
// directory's event files hold.
//
//   tests/conformance/*_test.cc   <-- each ports one TensorFlow test file, case by case
//     conformance_support.h       <-- this file
//       src/...                   the mts classes under test
//
// TensorFlow: the helpers at the top of basic_session_run_hooks_test.py and
// monitored_session_test.py.
#ifndef MTS_TESTS_CONFORMANCE_CONFORMANCE_SUPPORT_H_
#define MTS_TESTS_CONFORMANCE_CONFORMANCE_SUPPORT_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/01_session/session_interface.h"
#include "src/02_chief_worker/checkpoint/checkpoint_file.h"
#include "src/02_chief_worker/checkpoint/checkpoint_state.h"
#include "src/03_hooked/events/event_file_reader.h"
#include "src/03_hooked/hooks/checkpoint_saver_listener.h"
#include "src/platform/file_system.h"

namespace mts {

/// Forwards every call to a session it does not own, so that a test can put a wrapper
/// around one raw session, drop the wrapper, and put another around it.
class BorrowedSession : public SessionInterface {
 public:
  /// \pre `session` outlives this object.
  explicit BorrowedSession(SessionInterface& session) : session_(session) {}
  using SessionInterface::Run;
  std::vector<Tensor> Run(const std::vector<Output>& fetches, const FeedDict& feeds,
                          const std::vector<Operation*>& targets, const RunOptions& options,
                          RunMetadata* run_metadata) override {
    return session_.Run(fetches, feeds, targets, options, run_metadata);
  }
  Graph* graph() const override { return session_.graph(); }
  /// Closing the borrowed session is its owner's business.
  void Close() override {}

 private:
  SessionInterface& session_;
};

/// A std::unique_ptr to a BorrowedSession of `session`.
inline std::unique_ptr<SessionInterface> Borrow(SessionInterface& session) {
  return std::make_unique<BorrowedSession>(session);
}

/// The value of `name` in the newest checkpoint of `dir` (checkpoint_utils.load_variable),
/// or std::nullopt when the directory has no checkpoint.
inline std::optional<Tensor> LoadVariable(const std::string& dir, const std::string& name) {
  const std::optional<std::string> path = LatestCheckpoint(dir);
  if (!path) return std::nullopt;
  return CheckpointReader(*DefaultFileSystem(), *path).Read(name);
}

/// The global step of the newest checkpoint of `dir`, -1 when there is none.
inline int64_t SavedStep(const std::string& dir) {
  const std::optional<Tensor> step = LoadVariable(dir, "global_step");
  return step ? step->scalar<int64_t>() : -1;
}

/// Counts its calls, and asks to stop after a save once `ask_for_stop` is set
/// (TensorFlow's MockCheckpointSaverListener).
class CountingListener : public CheckpointSaverListener {
 public:
  void Begin() override { ++counts["begin"]; }
  void BeforeSave(SessionInterface&, int64_t) override { ++counts["before_save"]; }
  bool AfterSave(SessionInterface&, int64_t) override {
    ++counts["after_save"];
    return ask_for_stop;
  }
  void End(SessionInterface&, int64_t) override { ++counts["end"]; }

  std::map<std::string, int> counts;  ///< Calls per method name.
  bool ask_for_stop = false;          ///< AfterSave's answer.
};

/// step -> (tag -> value) of every scalar summary in the event files of `dir`.
inline std::map<int64_t, std::map<std::string, float>> ScalarsIn(const std::string& dir) {
  std::map<int64_t, std::map<std::string, float>> by_step;
  for (const ScalarValue& value : ScalarSummaries(ReadEventDirectory(dir))) {
    by_step[value.step][value.tag] = value.simple_value;
  }
  return by_step;
}

}  // namespace mts

#endif  // MTS_TESTS_CONFORMANCE_CONFORMANCE_SUPPORT_H_
