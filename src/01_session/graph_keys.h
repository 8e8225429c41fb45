// graph_keys.h: the names of the standard graph collections.
//
//   Session  <-- a Graph keeps collections; every stage above reads or fills some of them
//
// Collections are how the layers find what a model declared without being handed it:
// the Scaffold (stage 02) finds variables and savers, the CoordinatedSession (stage 04)
// finds queue runners, the hooks (stage 03) find the global step and summaries.
//
// TensorFlow: tf.GraphKeys (tensorflow/python/framework/ops.py); the strings are TensorFlow's.
#ifndef MTS_SRC_01_SESSION_GRAPH_KEYS_H_
#define MTS_SRC_01_SESSION_GRAPH_KEYS_H_

namespace mts {

/// Standard collection names, spelled as TensorFlow spells them.
struct GraphKeys {
  static constexpr const char* kGlobalVariables = "variables";            ///< Every saved variable.
  static constexpr const char* kTrainableVariables = "trainable_variables";  ///< Optimised ones.
  static constexpr const char* kLocalVariables = "local_variables";  ///< Per-process, not saved.
  static constexpr const char* kModelVariables = "model_variables";  ///< Used by the model.
  static constexpr const char* kGlobalStep = "global_step";          ///< The step counter.
  static constexpr const char* kSummaries = "summaries";             ///< Summary ops.
  static constexpr const char* kQueueRunners = "queue_runners";      ///< Input threads.
  static constexpr const char* kInitOp = "init_op";                  ///< Scaffold's init op.
  static constexpr const char* kLocalInitOp = "local_init_op";       ///< Local init op.
  static constexpr const char* kReadyOp = "ready_op";                ///< Model-ready check.
  static constexpr const char* kReadyForLocalInitOp = "ready_for_local_init_op";  ///< Check.
  static constexpr const char* kSummaryOp = "summary_op";            ///< Merged summaries.
  static constexpr const char* kSavers = "savers";                   ///< Savers.
  static constexpr const char* kTrainOp = "train_op";                ///< The train op.
  static constexpr const char* kLosses = "losses";                   ///< Loss tensors.
  static constexpr const char* kUpdateOps = "update_ops";            ///< Extra updates.
  static constexpr const char* kTableInitializers = "table_initializer";  ///< Table inits.
  /// Cache of the global-step read tensor the built-in hooks share.
  static constexpr const char* kGlobalStepReadOpCache = "global_step_read_op_cache";
};

}  // namespace mts

#endif  // MTS_SRC_01_SESSION_GRAPH_KEYS_H_
