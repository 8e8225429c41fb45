#include "src/07_distributed/server.h"

#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
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

namespace {

// The write end of the pipe JoinUntilSignal's watcher thread reads, or -1. A signal handler
// may do little that is safe; writing a byte to a pipe is.
std::atomic<int> g_stop_pipe{-1};

void WriteStopByte(int sig) {
  const int fd = g_stop_pipe.load();
  const unsigned char byte = static_cast<unsigned char>(sig);
  if (fd >= 0) (void)!write(fd, &byte, 1);
}

}  // namespace

// [mts:server-join-until-signal]
int Server::JoinUntilSignal(const std::function<void()>& ready) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    throw InternalError(std::string("JoinUntilSignal: pipe failed: ") + std::strerror(errno));
  }
  g_stop_pipe = fds[1];
  struct sigaction stop = {};
  struct sigaction old_term = {};
  struct sigaction old_int = {};
  stop.sa_handler = WriteStopByte;
  sigemptyset(&stop.sa_mask);
  sigaction(SIGTERM, &stop, &old_term);
  sigaction(SIGINT, &stop, &old_int);
  auto restore = [&] {
    sigaction(SIGTERM, &old_term, nullptr);
    sigaction(SIGINT, &old_int, nullptr);
    g_stop_pipe = -1;
    close(fds[0]);
    close(fds[1]);
  };
  try {
    if (ready) ready();  // A signal from now on waits in the pipe.
  } catch (...) {
    restore();
    throw;
  }
  // A signal's byte (its number) wakes the watcher, which stops the server; Join returns.
  int received = 0;
  std::thread watcher([&] {
    unsigned char byte = 0;
    while (read(fds[0], &byte, 1) < 0 && errno == EINTR) {
    }
    received = byte;
    if (received != 0) Stop();
  });
  Join();
  WriteStopByte(0);  // Stopped from elsewhere: a zero byte ends the watcher (after any signal's).
  watcher.join();
  restore();
  return received;
}
// [mts:server-join-until-signal-end]

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
