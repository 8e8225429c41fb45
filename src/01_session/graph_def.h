// graph_def.h: a Graph as TensorFlow's GraphDef, the form TensorBoard draws.
//
//   FileWriter::AddGraph, CheckpointSaverHook   write it (a graph event, graph.pbtxt)
//     AsGraphDef                                <-- this file, over a Graph
//
// One NodeDef per op in creation order, inputs spelled "op", "op:i" and "^op", device "";
// the op's attributes converted kind by kind, plus "T", a Const's "dtype" and
// "_output_shapes" as TensorFlow's nodes carry them; versions.producer = 26. Thread safety:
// it may run while other threads run the graph.
//
// Example: std::string text = GraphDefToText(AsGraphDef(graph));   // graph.pbtxt
//
// TensorFlow: tf.Graph.as_graph_def (framework/ops.py) and tf.io.write_graph (graph_io.py).
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
