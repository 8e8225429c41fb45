// tsan_suppressions.cc: what ThreadSanitizer must not report in programs that use gRPC.
//
//   07_distributed   <-- linked into every binary that uses Debian's gRPC (server, ps_client)
//
// Debian's gRPC, abseil and protobuf libraries are not compiled with -fsanitize=thread, so
// TSan cannot see their internal synchronisation (abseil's Mutex, gRPC's completion queues)
// and reports races inside them that are not there. These patterns suppress reports with a
// frame in those libraries or in gRPC's C++ wrappers (grpc::internal, inlined from its
// headers). The price: a race in mts code called from a gRPC handler thread
// (VariableStore::Read, Apply) would be hidden too; the store does all its work under one
// mutex for that reason. TSan looks this function up by name at start-up, in the executable
// only: link it statically (cc_binary does; a cc_test needs linkstatic = True).
extern "C" const char* __tsan_default_suppressions() {
  return "race:grpc::internal::\n"
         "race:grpc_core::\n"
         "race:libgrpc\n"
         "race:libgpr\n"
         "race:libabsl_\n"
         "race:libupb\n"
         "race:libprotobuf\n"
         "called_from_lib:libgrpc.so\n"
         "called_from_lib:libgpr.so\n"
         "called_from_lib:libabsl_graphcycles_internal.so\n"
         "called_from_lib:libabsl_synchronization.so\n";
}
