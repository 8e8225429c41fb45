#include "src/01_session/resource_mgr.h"

#include <vector>

namespace mts {

ResourceBase* ResourceMgr::LookupOrCreate(const Operation& owner, ResourceFactoryFn factory) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = resources_[&owner];
  if (slot == nullptr) slot = factory(owner);
  return slot.get();
}

ResourceBase* ResourceMgr::Find(const Operation& owner) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = resources_.find(&owner);
  return it == resources_.end() ? nullptr : it->second.get();
}

void ResourceMgr::CloseAll() {
  std::vector<std::shared_ptr<ResourceBase>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [op, resource] : resources_) all.push_back(resource);
  }
  // Close outside the lock: a resource's Close may wake kernels that call back into us.
  for (auto& resource : all) resource->Close();
}

}  // namespace mts
