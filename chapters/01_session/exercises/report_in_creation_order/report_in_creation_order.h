// report_in_creation_order.h: chapter 01's exercise on variables and their readiness.
//
//   Chief / Worker   a worker polls this report until the chief has initialised the model
//     Session        <-- holds the values the report asks about
//
// ReportUninitializedVariables(list) names the unset variables in the order of the list it
// was given. Collections keep insertion order, but a list assembled by hand (or merged from
// two collections, global then local) may not follow the order in which the model declared
// its variables, and a log that lists them out of order is harder to read. Here you write a
// report that always follows creation order, and decide what an empty list asks for.
#ifndef MTS_CHAPTERS_01_SESSION_EXERCISES_REPORT_IN_CREATION_ORDER_REPORT_IN_CREATION_ORDER_H_
#define MTS_CHAPTERS_01_SESSION_EXERCISES_REPORT_IN_CREATION_ORDER_REPORT_IN_CREATION_ORDER_H_

#include <vector>

#include "src/01_session/variables.h"

namespace mts {

// [mts:report-order-api]
/// An op like ReportUninitializedVariables(variables), except that the names come out in
/// the order the variables were created in the graph, whatever the order of `variables`,
/// and a variable listed twice is reported once. An empty list stands for the default, as
/// TensorFlow 1's var_list=None does: the global and local variables of the default graph;
/// and when both collections are empty, every variable op of that graph (TensorFlow 1's
/// fallback for a graph whose variables are in no collection, such as one imported
/// without them). A ready op that checks nothing would let a worker start at once.
Output ReportUninitializedInCreationOrder(const std::vector<Variable>& variables);
// [mts:report-order-api-end]

}  // namespace mts

#endif  // MTS_CHAPTERS_01_SESSION_EXERCISES_REPORT_IN_CREATION_ORDER_REPORT_IN_CREATION_ORDER_H_
