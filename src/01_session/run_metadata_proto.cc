#include "src/01_session/run_metadata_proto.h"

namespace mts {

tensorflow::RunMetadata RunMetadataToProto(const RunMetadata& run_metadata) {
  tensorflow::RunMetadata out;
  if (run_metadata.step_stats.empty()) return out;
  tensorflow::DeviceStepStats* device = out.mutable_step_stats()->add_dev_stats();
  device->set_device(kLocalCpuDevice);
  for (const NodeExecStats& stats : run_metadata.step_stats) {
    tensorflow::NodeExecStats* node = device->add_node_stats();
    node->set_node_name(stats.node_name);
    node->set_all_start_micros(stats.all_start_micros);
    // mts times the whole op; TensorFlow's op_* times exclude scheduling, which is nil here.
    node->set_op_start_rel_micros(0);
    node->set_op_end_rel_micros(stats.all_end_rel_micros);
    node->set_all_end_rel_micros(stats.all_end_rel_micros);
  }
  return out;
}

}  // namespace mts
