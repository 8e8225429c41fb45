// run_metadata_proto.h: a traced run's RunMetadata as TensorFlow's RunMetadata proto.
//
// Stage 01, for ProfilerHook's tagged_run_metadata events (stage 03). Every op goes on one
// device, "/job:localhost/replica:0/task:0/device:CPU:0", with its start and duration
// (op_start_rel_micros 0, op_end_rel_micros = all_end_rel_micros); no memory, outputs or
// thread ids. A pure function.
//
// Example: tensorflow::RunMetadata proto = RunMetadataToProto(run_metadata);
//
// TensorFlow: step_stats.proto and RunMetadata in tensorflow/core/protobuf/config.proto.
#ifndef MTS_SRC_01_SESSION_RUN_METADATA_PROTO_H_
#define MTS_SRC_01_SESSION_RUN_METADATA_PROTO_H_

#include "src/01_session/session_interface.h"
#include "src/01_session/step_stats.pb.h"

namespace mts {

/// The device every op of an mts Session runs on, named as TensorFlow names a local CPU.
inline constexpr char kLocalCpuDevice[] = "/job:localhost/replica:0/task:0/device:CPU:0";

/// `run_metadata` as TensorFlow's RunMetadata: one DeviceStepStats (kLocalCpuDevice) holding
/// a NodeExecStats per executed op, in execution order. No stats gives no device.
tensorflow::RunMetadata RunMetadataToProto(const RunMetadata& run_metadata);

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_RUN_METADATA_PROTO_H_
