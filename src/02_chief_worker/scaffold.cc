#include "src/02_chief_worker/scaffold.h"

#include <string>
#include <utility>
#include <vector>

#include "src/01_session/array_ops.h"
#include "src/01_session/learning/summary_ops.h"
#include "src/01_session/variables.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {

namespace {

// The one item of collection `key`, or nullopt if the collection is empty.
//
// TensorFlow raises a RuntimeError here whose message keeps its two `%s` placeholders
// uninterpolated (the arguments are passed to the exception instead of to the format), so the
// user never learns which collection is at fault. mts names the collection and the option to
// pass instead; the collection keys are spelled like the ScaffoldOptions fields.
template <typename T>
std::optional<T> OnlyItemOf(const Graph& graph, const char* key, const char* kind) {
  const int size = graph.CollectionSize(key);
  if (size == 0) return std::nullopt;
  if (size > 1) {
    throw RuntimeError("More than one item in collection " + std::string(key) + " (" +
                       std::to_string(size) +
                       "). Pass the one to use to the Scaffold as ScaffoldOptions::" + key + ".");
  }
  std::vector<T> items = graph.GetCollection<T>(key);
  if (items.empty()) {
    throw TypeError("The item in collection " + std::string(key) + " is not " + kind + ".");
  }
  return items.front();
}

// TensorFlow's get_or_default: the collection's one item, or `build()` recorded in the
// collection so that the next Scaffold on this graph finds the same op.
template <typename T, typename Build>
T GetOrDefault(Graph& graph, const char* key, const char* kind, Build build) {
  if (std::optional<T> item = OnlyItemOf<T>(graph, key, kind)) return *item;
  T made = build();
  graph.AddToCollection(key, made);
  return made;
}

}  // namespace

Scaffold::Scaffold(ScaffoldOptions options)
    : init_op_(options.init_op),
      init_feed_dict_(std::move(options.init_feed_dict)),
      init_fn_(std::move(options.init_fn)),
      ready_op_(std::move(options.ready_op)),
      ready_for_local_init_op_(std::move(options.ready_for_local_init_op)),
      local_init_op_(options.local_init_op),
      local_init_feed_dict_(std::move(options.local_init_feed_dict)),
      summary_op_(std::move(options.summary_op)),
      saver_(std::move(options.saver)),
      graph_(options.graph) {
  // copy_from_scaffold fills only what was left unset. TensorFlow also checks the argument is
  // a Scaffold (TypeError); the C++ type does that here.
  if (const Scaffold* from = options.copy_from_scaffold) {
    if (init_op_ == nullptr) init_op_ = from->init_op_;
    if (init_feed_dict_.empty()) init_feed_dict_ = from->init_feed_dict_;
    // The *user's* function: BoundInitFn() binds it to this scaffold, not to `from`.
    if (!init_fn_) init_fn_ = from->init_fn_;
    if (!ready_op_) ready_op_ = from->ready_op_;
    if (!ready_for_local_init_op_) ready_for_local_init_op_ = from->ready_for_local_init_op_;
    if (local_init_op_ == nullptr) local_init_op_ = from->local_init_op_;
    if (local_init_feed_dict_.empty()) local_init_feed_dict_ = from->local_init_feed_dict_;
    if (!summary_op_) summary_op_ = from->summary_op_;
    if (!saver_) saver_ = from->saver_;
  }
  if (graph_ == nullptr) graph_ = GraphOfAPiece();
  if (graph_ == nullptr && options.copy_from_scaffold != nullptr) {
    graph_ = options.copy_from_scaffold->graph_;
  }
}

Graph* Scaffold::GraphOfAPiece() const {
  for (const Operation* op : {init_op_, local_init_op_}) {
    if (op != nullptr) return op->graph();
  }
  for (const std::optional<Output>* output :
       {&ready_op_, &ready_for_local_init_op_, &summary_op_}) {
    if (output->has_value()) return (*output)->op()->graph();
  }
  return nullptr;
}

// [mts:scaffold-finalize]
Scaffold& Scaffold::Finalize() {
  if (graph_ == nullptr) graph_ = &GetDefaultGraph();
  Graph& g = *graph_;
  // The standard builders (GlobalVariablesInitializer, NoOp, Group, ...) add to the default
  // graph; make it ours while they run, whatever thread the creator calls from.
  DefaultGraphScope as_default(g);

  // Once finalized, every piece that can exist is set (only summary_op may be missing, and
  // then the graph has no summaries), so a second call skips straight to the end: it must
  // not try to add ops to the now read-only graph.
  if (!finalized_) {
    if (init_op_ == nullptr) {
      init_op_ = GetOrDefault<Operation*>(g, GraphKeys::kInitOp, "an Operation*", [&] {
        return Group({VariablesInitializer(GlobalVariables(&g), "init")}, "group_deps");
      });
    }
    if (!ready_op_) {
      ready_op_ = GetOrDefault<Output>(g, GraphKeys::kReadyOp, "an Output", [&] {
        std::vector<Variable> all = GlobalVariables(&g);
        for (const Variable& v : LocalVariables(&g)) all.push_back(v);
        return ReportUninitializedVariables(all);
      });
    }
    if (!ready_for_local_init_op_) {
      ready_for_local_init_op_ =
          GetOrDefault<Output>(g, GraphKeys::kReadyForLocalInitOp, "an Output",
                               [&] { return ReportUninitializedVariables(GlobalVariables(&g)); });
    }
    if (local_init_op_ == nullptr) {
      local_init_op_ = GetOrDefault<Operation*>(g, GraphKeys::kLocalInitOp, "an Operation*",
                                                [&] { return DefaultLocalInitOp(&g); });
    }
    if (!summary_op_) {
      // Not GetOrDefault: with no summaries there is nothing to record.
      summary_op_ = OnlyItemOf<Output>(g, GraphKeys::kSummaryOp, "an Output");
      if (!summary_op_) {
        summary_op_ = MergeAllSummaries(&g);
        if (summary_op_) g.AddToCollection(GraphKeys::kSummaryOp, *summary_op_);
      }
    }
    if (!saver_) saver_ = GetSaverOrDefault(&g);
  }

  g.Finalize(
      "when the session was created, by Scaffold::Finalize (a MonitoredSession's or "
      "MonitoredTrainingSession's session creator calls it)");
  finalized_ = true;
  MTS_LOG(INFO) << "Graph was finalized.";
  return *this;
}
// [mts:scaffold-finalize-end]

std::function<void(SessionInterface&)> Scaffold::BoundInitFn() const {
  if (!init_fn_) return nullptr;
  return [this](SessionInterface& session) { init_fn_(*this, session); };
}

Operation* Scaffold::DefaultLocalInitOp(Graph* graph) {
  Graph& g = graph != nullptr ? *graph : GetDefaultGraph();
  DefaultGraphScope as_default(g);
  Operation* local_variables = VariablesInitializer(LocalVariables(&g), "init");
  const std::vector<Operation*> tables = g.GetCollection<Operation*>(GraphKeys::kTableInitializers);
  Operation* all_tables =
      tables.empty() ? NoOp("init_all_tables") : Group(tables, "init_all_tables");
  return Group({local_variables, all_tables}, "group_deps");
}

}  // namespace mts
