#include "src/07_distributed/server.h"

#include <grpcpp/grpcpp.h>

#include <map>
#include <mutex>
#include <utility>

#include "src/07_distributed/parameter_server.grpc.pb.h"
#include "src/platform/errors.h"
#include "src/platform/logging.h"

namespace mts {

// The gRPC service: each handler calls the store and turns an OpError into a gRPC status
// with the same canonical code (TensorFlow's codes are gRPC's).
class ParameterServerService final : public distributed::ParameterServer::Service {
 public:
  ParameterServerService(VariableStore* store, ResourceStore* resources, std::string address)
      : store_(store), resources_(resources), address_(std::move(address)) {}

  grpc::Status GetStatus(grpc::ServerContext*, const distributed::GetStatusRequest*,
                         distributed::GetStatusResponse* response) override {
    response->set_incarnation(store_->incarnation());
    response->set_address(address_);
    return grpc::Status::OK;
  }

  grpc::Status ReadVariables(grpc::ServerContext*, const distributed::ReadVariablesRequest* request,
                             distributed::ReadVariablesResponse* response) override {
    return Guard([&] { *response = store_->Read(*request); });
  }

  grpc::Status ApplyUpdates(grpc::ServerContext*, const distributed::ApplyUpdatesRequest* request,
                            distributed::ApplyUpdatesResponse*) override {
    return Guard([&] { store_->Apply(*request); });
  }

  // An op that waits stops waiting when the caller cancels or the server shuts down.
  grpc::Status RunResourceOp(grpc::ServerContext* context,
                             const distributed::RunResourceOpRequest* request,
                             distributed::RunResourceOpResponse* response) override {
    return Guard(
        [&] { *response = resources_->Run(*request, [context] { return context->IsCancelled(); }); });
  }

 private:
  template <typename F>
  static grpc::Status Guard(F&& f) {
    try {
      f();
      return grpc::Status::OK;
    } catch (const OpError& e) {
      return grpc::Status(static_cast<grpc::StatusCode>(e.code()), e.message());
    } catch (const std::exception& e) {
      return grpc::Status(grpc::StatusCode::INTERNAL, e.what());
    }
  }

  VariableStore* store_;
  ResourceStore* resources_;
  std::string address_;
};

namespace {

struct TargetRegistry {
  struct Entry {
    ClusterSpec cluster;
    ServerOptions options;
  };
  std::mutex mu;
  std::map<std::string, Entry> servers;  // Guarded by mu.
};

TargetRegistry& Targets() {
  static TargetRegistry* registry = new TargetRegistry;
  return *registry;
}

std::string HostOf(const std::string& address) { return address.substr(0, address.rfind(':')); }

}  // namespace

std::optional<ClusterSpec> ClusterForTarget(const std::string& target) {
  TargetRegistry& registry = Targets();
  std::lock_guard<std::mutex> lock(registry.mu);
  auto it = registry.servers.find(target);
  if (it == registry.servers.end()) return std::nullopt;
  return it->second.cluster;
}

std::optional<ServerOptions> ServerOptionsForTarget(const std::string& target) {
  TargetRegistry& registry = Targets();
  std::lock_guard<std::mutex> lock(registry.mu);
  auto it = registry.servers.find(target);
  if (it == registry.servers.end()) return std::nullopt;
  return it->second.options;
}

Server::Server(ClusterSpec cluster, std::string job_name, int task_index, bool start,
               ServerOptions options)
    : cluster_(std::move(cluster)),
      options_(options),
      job_name_(std::move(job_name)),
      task_index_(task_index),
      store_(std::make_unique<VariableStore>()),
      resources_(std::make_unique<ResourceStore>(store_->incarnation())) {
  cluster_.task_address(job_name_, task_index_);  // Validates the task.
  if (start) Start();
}

Server::~Server() { Stop(); }

void Server::Start() {
  if (server_ != nullptr) return;
  const std::string address = cluster_.task_address(job_name_, task_index_);
  service_ = std::make_unique<ParameterServerService>(store_.get(), resources_.get(), address);
  grpc::ServerBuilder builder;
  // gRPC binds with SO_REUSEPORT by default, so a second server on a port that a first still
  // holds would bind too, and the kernel would deal connections between the two: a worker
  // would see two incarnations alternate. One task, one port: a taken port is refused.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port_);
  builder.RegisterService(service_.get());
  server_ = builder.BuildAndStart();
  if (server_ == nullptr || port_ == 0) {
    server_.reset();
    throw UnavailableError("Server /job:" + job_name_ + "/task:" + std::to_string(task_index_) +
                           " cannot listen on " + address +
                           " (is another process using the port? Stop it, or give this task "
                           "another port in the cluster spec).");
  }
  // With port 0 the cluster learns the real port, so target() and the spec agree.
  std::map<std::string, std::vector<std::string>> jobs;
  for (const std::string& job : cluster_.jobs()) {
    for (int i = 0; i < cluster_.num_tasks(job); ++i) {
      jobs[job].push_back(cluster_.task_address(job, i));
    }
  }
  jobs[job_name_][task_index_] = HostOf(address) + ":" + std::to_string(port_);
  cluster_ = ClusterSpec(std::move(jobs));
  registered_target_ = target();
  {
    TargetRegistry& registry = Targets();
    std::lock_guard<std::mutex> lock(registry.mu);
    registry.servers[*registered_target_] = {cluster_, options_};
  }
  MTS_LOG(INFO) << "Started server /job:" << job_name_ << "/task:" << task_index_ << " at "
                << target() << ", incarnation " << store_->incarnation();
}

void Server::Join() {
  if (server_ != nullptr) server_->Wait();
}

void Server::Stop() {
  if (registered_target_) {
    TargetRegistry& registry = Targets();
    std::lock_guard<std::mutex> lock(registry.mu);
    registry.servers.erase(*registered_target_);
    registered_target_.reset();
  }
  if (server_ != nullptr && !shut_down_.exchange(true)) {
    resources_->CloseAll();  // Handlers waiting on a shared resource return at once.
    server_->Shutdown(std::chrono::system_clock::now());
  }
}

std::string Server::target() const {
  return "grpc://" + cluster_.task_address(job_name_, task_index_);
}

}  // namespace mts
