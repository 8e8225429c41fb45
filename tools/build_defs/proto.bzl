"""mts_proto_library: C++ code from .proto files with Debian's protoc (and gRPC plugin).

Bazel 4's native proto rules would download protobuf's sources; this macro calls the
system `protoc` through a genrule instead, so later stages (summaries in 01_session,
RPCs in 07_distributed) generate code offline.

    mts_proto_library(
        name = "summary_proto",
        srcs = ["summary.proto"],
    )

gives a cc_library `summary_proto` whose header is `<package>/summary.pb.h`; with
`grpc = True` it also gives the service stubs in `<package>/<file>.grpc.pb.h`.
"""

def mts_proto_library(name, srcs, grpc = False, deps = [], visibility = None):
    outs = []
    for src in srcs:
        if not src.endswith(".proto"):
            fail("mts_proto_library: %s is not a .proto file" % src)
        base = src[:-len(".proto")]
        outs += [base + ".pb.h", base + ".pb.cc"]
        if grpc:
            outs += [base + ".grpc.pb.h", base + ".grpc.pb.cc"]

    grpc_flags = ""
    if grpc:
        grpc_flags = "--grpc_out=$(GENDIR) --plugin=protoc-gen-grpc=/usr/bin/grpc_cpp_plugin "

    native.genrule(
        name = name + "_protoc",
        srcs = srcs + [d + "_srcs" for d in deps],
        outs = outs,
        cmd = "/usr/bin/protoc --proto_path=. --cpp_out=$(GENDIR) " + grpc_flags +
              " ".join(["$(location %s)" % s for s in srcs]),
    )
    # The .proto files and, through the deps' own filegroups, every file they import: protoc
    # reads the whole chain (event.proto imports summary.proto, which imports graph_def.proto).
    native.filegroup(
        name = name + "_srcs",
        srcs = srcs + [d + "_srcs" for d in deps],
        visibility = visibility,
    )
    native.cc_library(
        name = name,
        srcs = [o for o in outs if o.endswith(".cc")],
        hdrs = [o for o in outs if o.endswith(".h")],
        # Generated code is not ours: keep -Werror off it.
        copts = ["-Wno-error", "-w"],
        deps = deps + ["@grpc//:protobuf"] + (["@grpc//:grpc++"] if grpc else []),
        visibility = visibility,
    )
