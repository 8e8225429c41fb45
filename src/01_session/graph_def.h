// graph_def.h: a Graph as TensorFlow's GraphDef, the form TensorBoard draws.
//
//   FileWriter::AddGraph, CheckpointSaverHook   write it (a graph event, graph.pbtxt)
//     AsGraphDef                                <-- this file
//       Graph                                   the ops, their inputs and attributes
//
// TensorFlow users look at their graph in TensorBoard's Graphs tab, which reads the
// `graph_def` event of a log directory, and in `graph.pbtxt`, which CheckpointSaverHook
// leaves in the checkpoint directory. Both hold a tensorflow.GraphDef (graph_def.proto, with
// TensorFlow's field numbers). AsGraphDef makes one from a Graph:
//   - one NodeDef per op, in creation order (every input before its consumers): name, op
//     (the op type), input ("op" for output 0, "op:i" for output i, then "^op" for each
//     control input), device (always "": mts ops carry no device);
//   - the op's attributes, converted kind by kind (a double becomes AttrValue.f, a float,
//     as TensorFlow's attributes are; a constant's value a TensorProto with its raw elements
//     in tensor_content, strings in string_val, as TensorFlow writes them);
//   - the attributes TensorFlow's nodes carry and mts's do not: "T", the element type, for
//     an op whose data inputs all share one dtype; "dtype" for a Const; and
//     "_output_shapes", the static shape of every output, which is what
//     `as_graph_def(add_shapes=True)` adds and what TensorBoard labels the edges with.
//   - versions.producer = 26, the GraphDef version TensorFlow 1.8 wrote (as in the real
//     event file tests/testdata/tfevents/tfdist-tf1.8-*.tfevents).
// TensorFlow's other attributes (Tidx, N, use_locking, container, ...) exist only where an
// mts op has them.
//
// Example:
//   tensorflow::GraphDef def = AsGraphDef(graph);
//   std::string bytes = SerializeGraphDef(def);   // an Event's graph_def
//   std::string text = GraphDefToText(def);       // what graph.pbtxt holds
//
// Thread safety: AsGraphDef reads the graph under its lock (Graph::operations) and the ops
// without one (they never change), so it may run while other threads run the graph.
//
// TensorFlow: tf.Graph.as_graph_def (tensorflow/python/framework/ops.py) and
// tf.io.write_graph (tensorflow/python/framework/graph_io.py).
#ifndef MTS_SRC_01_SESSION_GRAPH_DEF_H_
#define MTS_SRC_01_SESSION_GRAPH_DEF_H_

#include <string>

#include "src/01_session/graph.h"
#include "src/01_session/graph_def.pb.h"

namespace mts {

/// The GraphDef producer version written: the one TensorFlow 1.8 wrote.
inline constexpr int kGraphDefProducer = 26;

/// TensorFlow's enum number for `dtype` (DT_FLOAT, DT_INT64, ...).
tensorflow::DataType DataTypeToProto(DataType dtype);

/// `shape` as a TensorShapeProto: unknown_rank, or a dim per dimension (-1 when unknown).
tensorflow::TensorShapeProto TensorShapeToProto(const TensorShape& shape);

/// `tensor` as a TensorProto: dtype, shape, and every element (tensor_content for numbers
/// and bools, string_val for strings). An uninitialized tensor gives only the dtype.
tensorflow::TensorProto TensorToProto(const Tensor& tensor);

/// `graph` as a GraphDef, with "T", "dtype" (Const) and "_output_shapes" added (see the
/// file comment): TensorFlow's `graph.as_graph_def(add_shapes=True)`.
tensorflow::GraphDef AsGraphDef(const Graph& graph);

/// `graph_def` serialized with its attribute maps in key order, so that the same graph
/// always gives the same bytes (protobuf's default map order is unspecified).
std::string SerializeGraphDef(const tensorflow::GraphDef& graph_def);

/// `graph_def` in protobuf text format, as `tf.io.write_graph(..., as_text=True)` writes it
/// (graph.pbtxt).
std::string GraphDefToText(const tensorflow::GraphDef& graph_def);

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_GRAPH_DEF_H_
