// scaffold.h: the pieces a session needs before it can train, gathered in one place.
//
//   Chief / Worker   <-- a creator finalizes its Scaffold, then hands the pieces to the
//                        SessionManager (session_manager.h), which runs them
//
// The pieces: init_op, ready_op, ready_for_local_init_op, local_init_op, summary_op, saver,
// init_fn. Any may be given; Finalize() fills the rest in that order, each from the graph's
// collection or else by building the standard op (and recording it there), then finalizes
// the graph.
//
// Lifecycle: construct from ScaffoldOptions while building the graph; Finalize() before
// every session (re)creation (calls after the first change nothing); read the accessors.
//
// Thread safety: construct and Finalize from one thread; once Finalize has returned, the
// accessors may be called from any thread.
//
// Example:
//   auto scaffold = std::make_shared<Scaffold>();   // every piece defaulted
//   scaffold->Finalize();                           // init_op groups "w/Assign", ...
//   session.Run(scaffold->init_op());
//
// TensorFlow: tf.train.Scaffold (tensorflow/python/training/monitored_session.py).
#ifndef MTS_SRC_02_CHIEF_WORKER_SCAFFOLD_H_
#define MTS_SRC_02_CHIEF_WORKER_SCAFFOLD_H_

#include <functional>
#include <memory>
#include <optional>

#include "src/01_session/graph.h"
#include "src/01_session/session_interface.h"
#include "src/02_chief_worker/saver.h"

namespace mts {

class Scaffold;

/// A user function that initialises a fresh session after `init_op`, e.g. by loading
/// pretrained weights. It receives the scaffold it belongs to (TensorFlow's
/// `init_fn(scaffold, session)`).
using ScaffoldInitFn = std::function<void(const Scaffold&, SessionInterface&)>;

/// The pieces of a Scaffold; every one may be left unset for Finalize() to fill.
struct ScaffoldOptions {
  /// Initialises the model when there is no checkpoint to restore.
  Operation* init_op = nullptr;
  /// Feeds for running init_op (empty: none).
  FeedDict init_feed_dict;
  /// Called after init_op on a session that was not restored.
  ScaffoldInitFn init_fn;
  /// A 1-D string tensor naming what is not initialised yet; empty means ready.
  std::optional<Output> ready_op;
  /// Like ready_op, for what local_init_op needs (the global variables).
  std::optional<Output> ready_for_local_init_op;
  /// Initialises local variables and tables; runs in every session, chief or worker.
  /// Several ops are one Group({a, b}) (TensorFlow also takes a list, which its run groups).
  Operation* local_init_op = nullptr;
  /// Feeds for running local_init_op (empty: none), as TensorFlow's local_init_feed_dict.
  FeedDict local_init_feed_dict;
  /// One op producing all summaries (a serialized Summary).
  std::optional<Output> summary_op;
  /// Restores checkpoints for the chief (and saves them, through the hooks of stage 03).
  std::shared_ptr<Saver> saver;
  /// A scaffold whose pieces fill those left unset above (TensorFlow's copy_from_scaffold).
  /// Its user init_fn is copied, and bound to the new scaffold. Read only by the
  /// constructor.
  const Scaffold* copy_from_scaffold = nullptr;
  /// The graph whose collections fill the missing pieces and that Finalize() finalizes.
  /// Null: the graph of an op given above (or copied), else copy_from_scaffold's, else the
  /// calling thread's default graph when Finalize() first runs (TensorFlow always uses the
  /// default graph; mts's default graph is per thread, and a creator may run on another).
  Graph* graph = nullptr;
};

/// What a session needs to be initialised, made ready and saved (TensorFlow's Scaffold).
class Scaffold {
 public:
  /// A scaffold with the pieces of `options`. Pieces given here are used as they are and
  /// are not added to any collection.
  explicit Scaffold(ScaffoldOptions options = {});

  /// Fills every unset piece, in this order, from its collection or by building it:
  ///   init_op (GraphKeys::kInitOp): a group of the global variables' initializer;
  ///   ready_op (kReadyOp): ReportUninitializedVariables over global and local variables;
  ///   ready_for_local_init_op (kReadyForLocalInitOp): the same over global variables;
  ///   local_init_op (kLocalInitOp): DefaultLocalInitOp();
  ///   summary_op (kSummaryOp): MergeAllSummaries(), left unset if there are no summaries;
  ///   saver: GetSaverOrDefault().
  /// A collection holding exactly one item supplies it; an empty one receives the op built.
  /// Then finalizes the graph and logs "Graph was finalized.". Calling it again adds no ops.
  /// \throws RuntimeError naming the collection if one holds several items (pass the one
  ///   to use in ScaffoldOptions); TypeError if its one item is of the wrong kind;
  ///   RuntimeError if a piece must be built but the graph is already finalized. Pieces
  ///   filled before the error stay filled; the graph is not finalized.
  /// \returns *this.
  Scaffold& Finalize();

  /// True once Finalize() has succeeded.
  bool finalized() const { return finalized_; }

  /// The op that initialises the model (null before Finalize if not given).
  Operation* init_op() const { return init_op_; }
  /// Feeds for init_op.
  const FeedDict& init_feed_dict() const { return init_feed_dict_; }
  /// The user's init function as given (empty if none).
  const ScaffoldInitFn& init_fn() const { return init_fn_; }
  /// init_fn bound to this scaffold, as the SessionManager calls it; empty if there is none.
  /// \pre This scaffold outlives the returned function.
  std::function<void(SessionInterface&)> BoundInitFn() const;
  /// The readiness check: names of uninitialised variables, empty when ready.
  const std::optional<Output>& ready_op() const { return ready_op_; }
  /// The check that gates local_init_op.
  const std::optional<Output>& ready_for_local_init_op() const { return ready_for_local_init_op_; }
  /// The op that initialises local variables and tables.
  Operation* local_init_op() const { return local_init_op_; }
  /// Feeds for local_init_op.
  const FeedDict& local_init_feed_dict() const { return local_init_feed_dict_; }
  /// The merged summaries, or nullopt if the graph has none.
  const std::optional<Output>& summary_op() const { return summary_op_; }
  /// The Saver (null before Finalize if not given).
  const std::shared_ptr<Saver>& saver() const { return saver_; }
  /// The graph (see ScaffoldOptions::graph); null before Finalize if none could be inferred.
  Graph* graph() const { return graph_; }

  /// The standard local init op of `graph` (default graph if null): a group of the local
  /// variables' initializer and the table initializers (GraphKeys::kTableInitializers).
  /// \throws RuntimeError if the graph is finalized.
  static Operation* DefaultLocalInitOp(Graph* graph = nullptr);

 private:
  // The graph of the first piece given, or null.
  Graph* GraphOfAPiece() const;

  Operation* init_op_;
  FeedDict init_feed_dict_;
  ScaffoldInitFn init_fn_;
  std::optional<Output> ready_op_;
  std::optional<Output> ready_for_local_init_op_;
  Operation* local_init_op_;
  FeedDict local_init_feed_dict_;
  std::optional<Output> summary_op_;
  std::shared_ptr<Saver> saver_;
  Graph* graph_;
  bool finalized_ = false;
};

}  // namespace mts

#endif  // MTS_SRC_02_CHIEF_WORKER_SCAFFOLD_H_
