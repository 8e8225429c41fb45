#include "src/07_distributed/remote_session.h"

#include <algorithm>
#include <cstddef>
#include <unordered_set>
#include <utility>
#include <vector>

#include "src/01_session/execution_plan.h"
#include "src/01_session/op_def.h"
#include "src/01_session/resource_mgr.h"
#include "src/01_session/session_factory.h"
#include "src/01_session/variable_resource.h"
#include "src/01_session/variables.h"
#include "src/07_distributed/replica_device_setter.h"
#include "src/07_distributed/server.h"
#include "src/07_distributed/tensor_coding.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {
namespace {

constexpr char kPrefix[] = "grpc://";

std::string TaskName(int task) { return "/job:ps/task:" + std::to_string(task); }

// A run's signature: what it fetches, feeds and runs, by op id.
std::string SignatureKey(const std::vector<Output>& fetches, const FeedDict& feeds,
                         const std::vector<Operation*>& targets) {
  std::string key;
  for (const Output& f : fetches)
    key += std::to_string(f.op()->id()) + ":" + std::to_string(f.index()) + ",";
  key += "|";
  for (const auto& [f, value] : feeds)
    key += std::to_string(f.op()->id()) + ":" + std::to_string(f.index()) + ",";
  key += "|";
  for (const Operation* t : targets) key += std::to_string(t->id()) + ",";
  return key;
}

std::unique_ptr<Session> MakeRemoteSession(Graph* graph, const SessionOptions& options) {
  // A Server's target gives the server's options to every session made on it, as
  // TensorFlow's Server(config=...) gives its default ConfigProto.
  RemoteSessionOptions remote;
  if (const std::optional<ServerOptions> server = ServerOptionsForTarget(options.target)) {
    remote.rpc_timeout_secs = server->rpc_timeout_secs;
  }
  return std::make_unique<RemoteSession>(graph, options, ClusterOfTarget(options.target), remote);
}

// [mts:register-grpc-factory]
// Linking this library is what makes "grpc://..." masters distributed (session_factory.h).
const bool registered = [] {
  RegisterSessionFactory(kPrefix, MakeRemoteSession);
  return true;
}();
// [mts:register-grpc-factory-end]

}  // namespace

ClusterSpec ClusterOfTarget(const std::string& target) {
  if (target.compare(0, sizeof(kPrefix) - 1, kPrefix) != 0) {
    throw InvalidArgumentError(
        "A distributed session target must look like grpc://host:port, got '" + target +
        "'; write the ps or master address after grpc://.");
  }
  if (std::optional<ClusterSpec> cluster = ClusterForTarget(target)) return *cluster;
  return ClusterSpec({{"ps", {target.substr(sizeof(kPrefix) - 1)}}});
}

RemoteSession::RemoteSession(Graph* graph, SessionOptions options, ClusterSpec cluster,
                             RemoteSessionOptions remote_options)
    : Session(graph, std::move(options)), cluster_(std::move(cluster)) {
  (void)registered;
  placement_ = PsPlacement(*this->graph());
  const size_t num_global = GlobalVariables(this->graph()).size();
  if (placement_.empty() && num_global > 0) {
    // Legal (a job may keep everything local), but almost always a ReplicaDeviceSetter
    // forgotten or still open: each task would then train a copy of its own, silently.
    MTS_LOG(WARNING) << "The session for " << target() << " finds none of the " << num_global
                     << " global variables placed on a ps task, so every task trains its own "
                        "copy. Build the model inside a ReplicaDeviceSetter scope, and let the "
                        "scope close, before making the session.";
  }
  for (const auto& [variable, task] : placement_) {
    if (clients_.count(task)) continue;
    const std::string& address = cluster_.task_address("ps", task);
    clients_[task] =
        std::make_unique<PsClient>(TaskName(task), address, remote_options.rpc_timeout_secs);
  }
  for (auto& [task, client] : clients_) incarnations_[task] = client->GetIncarnation();
}

uint64_t RemoteSession::incarnation(int task) const {
  auto it = incarnations_.find(task);
  return it == incarnations_.end() ? 0 : it->second;
}

std::string RemoteSession::variables_incarnation() const {
  std::string text;
  for (const auto& [task, client] : clients_) {
    text += (text.empty() ? "" : ", ") + client->task() + " at " + client->address() +
            " (incarnation " + std::to_string(incarnations_.at(task)) + ")";
  }
  return text;
}

int64_t RemoteSession::num_rpcs() const {
  std::lock_guard<std::mutex> lock(stats_mu_);
  return num_rpcs_;
}

std::shared_ptr<const RemoteSession::StepPlan> RemoteSession::GetStepPlan(
    const std::vector<Output>& fetches, const FeedDict& feeds,
    const std::vector<Operation*>& targets) {
  const std::string key = SignatureKey(fetches, feeds, targets);
  {
    std::lock_guard<std::mutex> lock(plans_mu_);
    auto it = plans_.find(key);
    if (it != plans_.end()) return it->second;
  }

  auto plan = std::make_shared<StepPlan>();
  std::unordered_set<Output> fed;
  for (const auto& [tensor, value] : feeds) fed.insert(tensor);
  std::map<const Operation*, bool> memo;
  for (const Operation* op : NeededOps(fed, fetches, targets)) {
    auto placed = placement_.find(op->name());
    if (op->type() == "VariableV2" && placed != placement_.end()) {
      plan->reads[placed->second].push_back(op);
      continue;
    }
    if (op->def().num_ref_inputs == 1 &&
        FindSharedResourceType(op->input(0).op()->type()) != nullptr) {
      PlanSharedResourceOp(*op, *plan, memo);
      continue;
    }
    const int num_refs = op->def().num_ref_inputs;
    if (num_refs == 0) continue;
    // An op that changes state through references: does it change a placed variable?
    int task = -1;
    int num_placed = 0;
    for (int i = 0; i < num_refs; ++i) {
      auto it = placement_.find(op->input(i).op()->name());
      if (it == placement_.end() || op->input(i).op()->type() != "VariableV2") continue;
      if (num_placed++ > 0 && it->second != task) {
        throw UnimplementedError("Op " + op->name() +
                                     " updates variables on two ps tasks; "
                                     "place a variable and its slots on one task.",
                                 op->name());
      }
      task = it->second;
    }
    if (num_placed == 0) continue;  // Updates worker-local state only.
    if (num_placed != num_refs) {
      throw UnimplementedError("Op " + op->name() +
                                   " updates variables both on the worker and "
                                   "on a ps task; build the whole model inside the "
                                   "ReplicaDeviceSetter scope.",
                               op->name());
    }
    plan->writers.push_back({op, task, static_cast<int>(plan->extra_fetches.size())});
    for (int i = num_refs; i < op->num_inputs(); ++i) plan->extra_fetches.push_back(op->input(i));
  }
  std::lock_guard<std::mutex> lock(plans_mu_);
  return plans_.emplace(key, std::move(plan)).first->second;
}

// [mts:remote-read]
void RemoteSession::ReadPlaced(const StepPlan& plan) {
  for (const auto& [task, variables] : plan.reads) {
    distributed::ReadVariablesRequest request;
    request.set_incarnation(incarnations_.at(task));
    for (const Operation* v : variables) EncodeVariableSpec(*v, request.add_variables());
    const distributed::ReadVariablesResponse response = clients_.at(task)->Read(request);
    {
      std::lock_guard<std::mutex> lock(stats_mu_);
      ++num_rpcs_;
    }
    if (response.values_size() != static_cast<int>(variables.size())) {
      throw DataLossError("ReadVariables from " + TaskName(task) + " returned " +
                          std::to_string(response.values_size()) + " values for " +
                          std::to_string(variables.size()) + " variables.");
    }
    // The local copy of each variable becomes the server's value, or unset.
    for (size_t i = 0; i < variables.size(); ++i) {
      Tensor decoded = DecodeVariableValue(response.values(static_cast<int>(i)), *variables[i]);
      auto& var = *static_cast<VariableResource*>(
          resources().LookupOrCreate(*variables[i], VariableResource::Create));
      std::lock_guard<std::mutex> lock(var.mu);
      var.value = std::move(decoded);
    }
  }
}
// [mts:remote-read-end]

// [mts:remote-update]
void RemoteSession::SendUpdates(const StepPlan& plan, const std::vector<Tensor>& results,
                                size_t offset) {
  std::map<int, distributed::ApplyUpdatesRequest> requests;
  for (const StepPlan::Writer& writer : plan.writers) {
    distributed::ApplyUpdatesRequest& request = requests[writer.task];
    request.set_incarnation(incarnations_.at(writer.task));
    const Operation& op = *writer.op;
    const auto first =
        results.begin() + static_cast<std::ptrdiff_t>(offset + writer.first_extra_fetch);
    const int num_values = op.num_inputs() - op.def().num_ref_inputs;
    EncodeUpdate(op, std::vector<Tensor>(first, first + num_values), request.add_updates());
  }
  for (const auto& [task, request] : requests) {
    clients_.at(task)->Apply(request);
    std::lock_guard<std::mutex> lock(stats_mu_);
    ++num_rpcs_;
  }
}
// [mts:remote-update-end]

// [mts:remote-run]
void RemoteSession::Run(const std::vector<Output>& fetches, const FeedDict& feeds,
                        const std::vector<Operation*>& targets, const RunOptions& options,
                        RunMetadata* run_metadata, std::vector<Tensor>* outputs) {
  if (closed()) {
    throw RuntimeError("Attempted to use a closed Session. Make a new session to run again.");
  }
  std::shared_ptr<const StepPlan> plan = GetStepPlan(fetches, feeds, targets);
  if (plan->reads.empty() && plan->writers.empty()) {
    Session::Run(fetches, feeds, targets, options, run_metadata, outputs);  // Worker-local.
    return;
  }
  std::unique_lock<std::mutex> step(step_mu_);
  StepLockScope waits_may_unlock(&step);  // See CallOwnerTask.
  ReadPlaced(*plan);  // 1. one RPC per task
  std::vector<Output> all_fetches = fetches;
  all_fetches.insert(all_fetches.end(), plan->extra_fetches.begin(), plan->extra_fetches.end());
  Session::Run(all_fetches, feeds, targets, options, run_metadata, outputs);  // 2. locally
  SendUpdates(*plan, *outputs, fetches.size());                               // 3. one RPC per task
  RunDeferred(*plan, *outputs, fetches.size());  // 4. shared-resource ops after the updates
  outputs->resize(fetches.size());
}
// [mts:remote-run-end]

}  // namespace mts
