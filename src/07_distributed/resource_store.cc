#include "src/07_distributed/resource_store.h"

#include <utility>
#include <vector>

#include "src/07_distributed/tensor_coding.h"
#include "src/platform/errors.h"

namespace mts {
namespace {

AttrMap DecodeAttrs(const google::protobuf::Map<std::string, distributed::AttrProto>& attrs) {
  AttrMap decoded;
  for (const auto& [name, attr] : attrs) decoded[name] = DecodeAttr(attr);
  return decoded;
}

}  // namespace

std::shared_ptr<SharedResource> ResourceStore::FindOrCreate(const distributed::ResourceSpec& spec,
                                                            const std::string& op_name) {
  if (spec.name().empty()) {
    throw InvalidArgumentError("A shared resource on the wire has no name; the message is damaged.",
                               op_name);
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = resources_.find(spec.name());
  if (it != resources_.end()) {
    if (it->second.type != spec.type()) {
      throw InvalidArgumentError("On the parameter server, " + spec.name() + " is a " +
                                     it->second.type + ", but " + op_name + " uses it as a " +
                                     spec.type() + "; all tasks must build the same model.",
                                 op_name);
    }
    return it->second.resource;
  }
  SharedResourceFactory factory = FindSharedResourceType(spec.type());
  if (factory == nullptr) {
    throw NotFoundError("The parameter server knows no shared resource of type '" + spec.type() +
                            "' (for " + op_name + "); link its library into the ps binary.",
                        op_name);
  }
  std::shared_ptr<SharedResource> resource = factory(spec.name(), DecodeAttrs(spec.attrs()));
  if (closed_) resource->Close();
  resources_[spec.name()] = {spec.type(), resource};
  return resource;
}

// [mts:resource-store-run]
distributed::RunResourceOpResponse ResourceStore::Run(
    const distributed::RunResourceOpRequest& request, const std::function<bool()>& cancelled) {
  if (request.incarnation() != incarnation_) {
    throw AbortedError(
        "The parameter server restarted and lost its shared resources: it is "
        "incarnation " +
        std::to_string(incarnation_) + ", the session was made against incarnation " +
        std::to_string(request.incarnation()) + ". Re-create the session.");
  }
  std::shared_ptr<SharedResource> resource = FindOrCreate(request.resource(), request.op_name());
  std::vector<Tensor> inputs;
  for (const auto& proto : request.inputs()) inputs.push_back(DecodeTensor(proto));
  const WaitLimit wait{cancelled, request.max_wait_secs() > 0 ? request.max_wait_secs() : -1};
  std::optional<std::vector<Tensor>> outputs = resource->RunOp(
      request.op_type(), request.op_name(), inputs, DecodeAttrs(request.attrs()), wait);
  distributed::RunResourceOpResponse response;
  if (!outputs) {
    response.set_timed_out(true);
    return response;
  }
  for (const Tensor& t : *outputs) EncodeTensor(t, response.add_outputs());
  return response;
}
// [mts:resource-store-run-end]

void ResourceStore::CloseAll() {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  for (auto& [name, entry] : resources_) entry.resource->Close();
}

std::shared_ptr<SharedResource> ResourceStore::Find(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = resources_.find(name);
  return it == resources_.end() ? nullptr : it->second.resource;
}

int ResourceStore::num_resources() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(resources_.size());
}

}  // namespace mts
