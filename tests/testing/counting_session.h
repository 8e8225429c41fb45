// counting_session.h: a session that counts the Runs reaching it, so a test can say how many
// runs a layer above made of the one below ("one hooked Run is one raw run", "Save is one
// Run", "the hook reads the step only near the target").
//
//   HookedSession, Saver, a hook   the callers whose runs are counted
//     CountingSession              <-- counts each Run, then hands it down unchanged
//       Session                    the session that really runs
//
// A CountingSession owns the session below and forwards Run, graph() and Close() to it; a
// run that fails is counted too (it did reach the session). Keep a plain pointer to it
// before handing it to the layer above, and read runs() there:
//
//   auto counting = std::make_unique<CountingSession>(std::make_unique<Session>(&graph));
//   CountingSession* raw = counting.get();
//   HookedSession hooked(std::move(counting), hooks);
//   hooked.Run(train_op);
//   EXPECT_EQ(raw->runs(), 1);
//
// Thread safety: Run may be called from several threads at once; runs() is exact once they
// have returned.
//
// TensorFlow: its tests count calls with mocks; fault_injection.h's CountingSessionCreator
// is this class's twin one level up (it counts creations, as monitored_session_test.py's
// CountingSessionCreator does).
#ifndef MTS_TESTS_TESTING_COUNTING_SESSION_H_
#define MTS_TESTS_TESTING_COUNTING_SESSION_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "src/01_session/session_interface.h"

namespace mts {

/// A pass-through session that counts the Runs it forwards.
class CountingSession : public SessionInterface {
 public:
  /// Counts the runs of `inner`, which it owns. \pre `inner` is not null.
  explicit CountingSession(std::unique_ptr<SessionInterface> inner);

  /// \cond
  using SessionInterface::Run;
  /// \endcond

  /// Counts one run, then runs `inner`. \throws whatever `inner` throws (counted all the same).
  std::vector<Tensor> Run(const std::vector<Output>& fetches, const FeedDict& feeds = {},
                          const std::vector<Operation*>& targets = {},
                          const RunOptions& options = {},
                          RunMetadata* run_metadata = nullptr) override;
  /// The graph of `inner`.
  Graph* graph() const override;
  /// Closes `inner`.
  void Close() override;

  /// Runs so far, failed ones included.
  int64_t runs() const { return runs_.load(); }

 private:
  std::unique_ptr<SessionInterface> inner_;
  std::atomic<int64_t> runs_{0};
};

}  // namespace mts

#endif  // MTS_TESTS_TESTING_COUNTING_SESSION_H_
