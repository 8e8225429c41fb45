#include "src/01_session/session.h"

#include <cstdio>
#include <optional>

#include "src/01_session/op_kernel_context.h"

namespace mts {

namespace {

// The cache key of a run signature, written into `key`: feeds, fetches and targets as op
// ids and indices. Feeds come from a std::map, so their order is already canonical.
void SignatureKey(const std::vector<Output>& feeds, const std::vector<Output>& fetches,
                  const std::vector<Operation*>& targets, std::string& key) {
  key.clear();
  auto add = [&key](int id, int index) {
    char digits[32];
    key.append(digits, std::snprintf(digits, sizeof(digits), "%d:%d,", id, index));
  };
  for (const Output& f : feeds) add(f.op()->id(), f.index());
  key += '|';
  for (const Output& f : fetches) add(f.op()->id(), f.index());
  key += '|';
  for (const Operation* t : targets) add(t->id(), -1);
}

}  // namespace

// Lends a run the scratch of a finished one (or a new one) and takes it back, emptied of
// values, when the run ends, normally or by an exception.
class Session::ScratchLease {
 public:
  explicit ScratchLease(Session& session) : session_(session) {
    std::lock_guard<std::mutex> lock(session_.scratch_mu_);
    if (!session_.free_scratch_.empty()) {
      scratch_ = std::move(session_.free_scratch_.back());
      session_.free_scratch_.pop_back();
    }
    if (scratch_ == nullptr) scratch_ = std::make_unique<RunScratch>();
  }
  ~ScratchLease() {
    // Drop this run's values now (keeping the slots), so no buffer outlives its run here.
    // After a run that finished only the fetched slots still hold one; the test skips the
    // call for the empty rest.
    for (Tensor& value : scratch_->values) {
      if (value.IsInitialized()) value = Tensor();
    }
    std::lock_guard<std::mutex> lock(session_.scratch_mu_);
    session_.free_scratch_.push_back(std::move(scratch_));
  }
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;
  RunScratch& operator*() { return *scratch_; }

 private:
  Session& session_;
  std::unique_ptr<RunScratch> scratch_;
};

Session::Session(Graph* graph, SessionOptions options)
    : graph_(graph != nullptr ? graph : &GetDefaultGraph()),
      options_(std::move(options)),
      clock_(options_.clock != nullptr ? options_.clock : RealClock()) {}

Session::~Session() { Close(); }

void Session::Close() {
  if (closed_.exchange(true)) return;
  resources_.CloseAll();
}

int Session::num_cached_plans() const {
  std::lock_guard<std::mutex> lock(plans_mu_);
  return static_cast<int>(plans_.size());
}

void Session::CheckFeedsAndFetches(const FeedDict& feeds, const std::vector<Output>& fetches,
                                   const std::vector<Operation*>& targets) const {
  for (const Output& f : fetches) {
    if (f.op() == nullptr) throw ValueError("Fetch argument is a null Output.");
    if (f.graph() != graph_) {
      throw ValueError("Fetch argument '" + f.name() +
                       "' cannot be interpreted as a Tensor. (Tensor '" + f.name() +
                       "' is not an element of this graph: the tensor's graph is different "
                       "from the session's graph.) Fetch only tensors of the graph this "
                       "Session runs.");
    }
  }
  for (const Operation* t : targets) {
    if (t == nullptr) throw ValueError("Target is a null Operation.");
    if (t->graph() != graph_) {
      throw ValueError("Fetch argument '" + t->name() +
                       "' cannot be interpreted as an Operation. (Operation '" + t->name() +
                       "' is not an element of this graph: the op's graph is different from "
                       "the session's graph.) Run only ops of the graph this Session runs.");
    }
  }
  for (const auto& [tensor, value] : feeds) {
    if (tensor.op() == nullptr) throw ValueError("Feed key is a null Output.");
    if (tensor.graph() != graph_) {
      throw ValueError("Cannot interpret feed_dict key '" + tensor.name() +
                       "' as a Tensor: the tensor's graph is different from the session's "
                       "graph. Feed only tensors of the graph this Session runs.");
    }
    if (!value.IsInitialized()) {
      throw ValueError("Cannot feed an uninitialized Tensor for '" + tensor.name() + "'.");
    }
    if (value.dtype() != tensor.dtype()) {
      throw TypeError(std::string("Cannot feed value of dtype ") + DataTypeName(value.dtype()) +
                      " for Tensor '" + tensor.name() + "', which has dtype " +
                      DataTypeName(tensor.dtype()) + ". Feed a value of dtype " +
                      DataTypeName(tensor.dtype()) + " instead.");
    }
    if (!tensor.shape().IsCompatibleWith(value.shape())) {
      throw ValueError("Cannot feed value of shape " + value.shape().ToString() + " for Tensor '" +
                       tensor.name() + "', which has shape " + tensor.shape().ToString() +
                       ". Feed a value of that shape instead.");
    }
  }
}

std::shared_ptr<const ExecutionPlan> Session::GetOrBuildPlan(
    const std::string& key, const std::vector<Output>& feeds, const std::vector<Output>& fetches,
    const std::vector<Operation*>& targets) {
  {
    std::lock_guard<std::mutex> lock(plans_mu_);
    auto it = plans_.find(key);
    if (it != plans_.end()) return it->second;
  }
  // Plan outside the lock: two threads may both plan a new signature; the first one stored
  // wins and the other's work is dropped, which is cheaper than serialising every run.
  auto plan = std::make_shared<const ExecutionPlan>(
      ExecutionPlan::Build(feeds, fetches, targets, resources_));
  std::lock_guard<std::mutex> lock(plans_mu_);
  return plans_.emplace(key, std::move(plan)).first->second;
}

// [mts:session-run]
void Session::Run(const std::vector<Output>& fetches, const FeedDict& feeds,
                  const std::vector<Operation*>& targets, const RunOptions& options,
                  RunMetadata* run_metadata, std::vector<Tensor>* outputs) {
  // [mts:lab 01_session]
  if (closed()) {
    throw RuntimeError("Attempted to use a closed Session. Make a new session to run again.");
  }
  if (graph_->num_ops() == 0) {
    throw RuntimeError(
        "The Session graph is empty.  Add operations to the graph before calling run().");
  }
  CheckFeedsAndFetches(feeds, fetches, targets);

  // The working memory of a finished run, reused: at steady state a run allocates nothing
  // (the results go into the caller's vector, whose storage the caller keeps).
  ScratchLease lease(*this);
  RunScratch& scratch = *lease;
  scratch.fed.clear();
  for (const auto& [tensor, value] : feeds) scratch.fed.push_back(tensor);
  SignatureKey(scratch.fed, fetches, targets, scratch.key);
  std::shared_ptr<const ExecutionPlan> plan =
      GetOrBuildPlan(scratch.key, scratch.fed, fetches, targets);

  // One value slot per tensor of the plan; feeds go straight into theirs.
  std::vector<Tensor>& values = scratch.values;
  values.resize(plan->num_slots);
  int i = 0;
  for (const auto& [tensor, value] : feeds) values[plan->feed_slots[i++]] = value;

  // TensorFlow refills run_metadata in place: a reused one describes only this run.
  if (run_metadata != nullptr) *run_metadata = RunMetadata();
  const bool trace = options.trace_level == RunOptions::TraceLevel::kFullTrace;
  std::optional<RunDeadline> deadline;
  if (options.timeout_in_ms > 0) {
    deadline = RunDeadline{clock_, clock_->NowMicros() + options.timeout_in_ms * 1000};
  }
  Execute(*plan, scratch, trace ? run_metadata : nullptr, deadline ? &*deadline : nullptr);

  // clear() keeps the capacity, and reserve() is free when it suffices: a vector reused
  // from run to run is not reallocated.
  outputs->clear();
  outputs->reserve(fetches.size());
  for (size_t k = 0; k < fetches.size(); ++k) {
    const Tensor& value = values[plan->fetch_slots[k]];
    // Only a variable's own output can be unset; fetching it directly (not through a reader,
    // which the executor checks) must fail as reading it would.
    if (!value.IsInitialized()) {
      throw FailedPreconditionError(
          "Attempting to use uninitialized value " + fetches[k].op()->name(),
          fetches[k].op()->name());
    }
    outputs->push_back(value);
  }
  // [mts:lab-end]
}
// [mts:session-run-end]

std::vector<Tensor> Session::Run(const std::vector<Output>& fetches, const FeedDict& feeds,
                                 const std::vector<Operation*>& targets, const RunOptions& options,
                                 RunMetadata* run_metadata) {
  std::vector<Tensor> results;
  Run(fetches, feeds, targets, options, run_metadata, &results);
  return results;
}

// [mts:session-execute]
void Session::Execute(const ExecutionPlan& plan, RunScratch& scratch, RunMetadata* metadata,
                      const RunDeadline* deadline) {
  // [mts:lab 01_session]
  std::vector<Tensor>& values = scratch.values;
  // Input pointers for every node, resolved once per run against this run's value array.
  std::vector<const Tensor*>& inputs = scratch.inputs;
  inputs.resize(plan.input_slots.size());
  for (size_t k = 0; k < inputs.size(); ++k) inputs[k] = &values[plan.input_slots[k]];

  for (const PlanNode& node : plan.nodes) {
    const Operation& op = *node.op;
    // RunOptions::timeout_in_ms: checked between ops; blocking kernels watch it too.
    if (deadline != nullptr && deadline->clock->NowMicros() >= deadline->micros) {
      throw DeadlineExceededError(kRunTimedOutMessage);
    }
    for (int i : node.check_initialized) {
      if (!inputs[node.input_offset + i]->IsInitialized()) {
        throw FailedPreconditionError(
            "Attempting to use uninitialized value " + op.input(i).op()->name(), op.name());
      }
    }
    // A traced op's start is calendar time, as a timeline shows it; its duration is
    // measured on the monotonic time of the same clock.
    const int64_t start_wall = metadata != nullptr ? clock_->WallTimeMicros() : 0;
    const int64_t start = metadata != nullptr ? clock_->NowMicros() : 0;
    OpKernelContext ctx(op, inputs.data() + node.input_offset, values.data() + node.output_base,
                        node.resource, node.ref_resources.data(), this, node.forwardable_inputs);
    ctx.set_deadline(deadline);
    try {
      node.kernel(ctx);
    } catch (const OpError& e) {
      if (!e.op_name().empty()) throw;
      ThrowOpError(e.code(), e.message(), op.name());  // Name the op the kernel forgot to.
    }
    if (metadata != nullptr) {
      metadata->step_stats.push_back({op.name(), start_wall, clock_->NowMicros() - start});
    }
    // Dead values go now, so an update later in this run can reuse a variable's buffer.
    for (int slot : node.release) values[slot] = Tensor();
  }
  // [mts:lab-end]
}
// [mts:session-execute-end]

Tensor Eval(const Output& tensor, Session& session, const FeedDict& feeds) {
  return session.Run(tensor, feeds);
}

}  // namespace mts
