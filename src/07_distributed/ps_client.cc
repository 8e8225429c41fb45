#include "src/07_distributed/ps_client.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <sstream>
#include <string>
#include <utility>

#include "src/platform/errors.h"

namespace mts {
namespace {

// A duration as people write it: "0.2", "5", not std::to_string's "0.200000".
std::string Seconds(double secs) {
  std::ostringstream out;
  out << secs;
  return out.str();
}

}  // namespace

PsClient::PsClient(std::string task, std::string address, double rpc_timeout_secs)
    : task_(std::move(task)), address_(std::move(address)), rpc_timeout_secs_(rpc_timeout_secs) {
  grpc::ChannelArguments args;
  // A channel of our own, retrying connections quickly: a restarted server is found again
  // within a fraction of a second, not after gRPC's default backoff of up to two minutes.
  // (The minimum *connect* timeout stays at gRPC's 20 s: a slow machine must still be able
  // to connect; the RPC's own deadline bounds the wait.)
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  args.SetMaxReceiveMessageSize(-1);
  stub_ = distributed::ParameterServer::NewStub(
      grpc::CreateCustomChannel(address_, grpc::InsecureChannelCredentials(), args));
}

PsClient::~PsClient() = default;

void PsClient::SetDeadline(grpc::ClientContext& context) const {
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::microseconds(static_cast<int64_t>(rpc_timeout_secs_ * 1e6)));
}

void PsClient::Raise(const grpc::Status& status, const char* rpc) const {
  const std::string where = std::string(rpc) + " to " + task_ + " at " + address_;
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      throw UnavailableError(
          where + " failed: the parameter server is unavailable (" + status.error_message() +
          "). Check that the ps process is running and listening at " + address_ + ".");
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      // A server that does not answer in time is treated as gone: recovery applies.
      throw UnavailableError(where + " got no answer within " + Seconds(rpc_timeout_secs_) +
                             " s (deadline exceeded). Check that the ps process is running and "
                             "not stuck, or allow more time with rpc_timeout_secs "
                             "(ServerOptions, RemoteSessionOptions).");
    default:
      ThrowOpError(static_cast<ErrorCode>(status.error_code()),
                   where + ": " + status.error_message());
  }
}

uint64_t PsClient::GetIncarnation() {
  grpc::ClientContext context;
  SetDeadline(context);
  distributed::GetStatusRequest request;
  distributed::GetStatusResponse response;
  const grpc::Status status = stub_->GetStatus(&context, request, &response);
  if (!status.ok()) Raise(status, "GetStatus");
  return response.incarnation();
}

distributed::ReadVariablesResponse PsClient::Read(
    const distributed::ReadVariablesRequest& request) {
  grpc::ClientContext context;
  SetDeadline(context);
  distributed::ReadVariablesResponse response;
  const grpc::Status status = stub_->ReadVariables(&context, request, &response);
  if (!status.ok()) Raise(status, "ReadVariables");
  return response;
}

void PsClient::Apply(const distributed::ApplyUpdatesRequest& request) {
  grpc::ClientContext context;
  SetDeadline(context);
  distributed::ApplyUpdatesResponse response;
  const grpc::Status status = stub_->ApplyUpdates(&context, request, &response);
  if (!status.ok()) Raise(status, "ApplyUpdates");
}

distributed::RunResourceOpResponse PsClient::RunResourceOp(
    const distributed::RunResourceOpRequest& request, grpc::ClientContext& context) {
  if (request.max_wait_secs() > 0) {
    const double secs = request.max_wait_secs() + rpc_timeout_secs_;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::microseconds(static_cast<int64_t>(secs * 1e6)));
  }
  distributed::RunResourceOpResponse response;
  const grpc::Status status = stub_->RunResourceOp(&context, request, &response);
  if (!status.ok()) Raise(status, "RunResourceOp");
  return response;
}

}  // namespace mts
