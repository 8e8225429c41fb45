// run_metadata_proto.h: a traced run's RunMetadata as TensorFlow's RunMetadata proto.
//
//   ProfilerHook -> FileWriter::AddRunMetadata   a tagged_run_metadata event (stage 03)
//     RunMetadataToProto                         <-- this file
//       Session::Run                             fills mts's RunMetadata under kFullTrace
//
// mts's RunMetadata is a plain struct (session_interface.h): one NodeExecStats per executed
// op, with its start time and duration. TensorBoard reads TensorFlow's proto
// (step_stats.proto): it joins each NodeExecStats to the graph node of the same name and
// colours the Graphs tab by compute time. The conversion puts every op on one device,
// "/job:localhost/replica:0/task:0/device:CPU:0", the name TensorFlow gives the CPU of a
// local session, since an mts Session runs every op on the CPU of its process; TensorBoard
// takes the stats of a device only if its name ends in "device:<type>:<n>". mts times
// an op as a whole, so op_start_rel_micros is 0 and op_end_rel_micros equals
// all_end_rel_micros; memory, outputs and thread ids are not recorded.
//
// Example:
//   tensorflow::RunMetadata proto = RunMetadataToProto(run_metadata);
//   writer.AddRunMetadata(run_metadata, "step_100");   // which calls this
//
// Thread safety: a pure function.
//
// TensorFlow: tensorflow/core/framework/step_stats.proto and RunMetadata in
// tensorflow/core/protobuf/config.proto.
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
