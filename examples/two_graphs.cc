// two_graphs: two graphs, one session, and what happens when a fetch crosses graphs.
//
//   Session  <-- this example runs the bottom layer only
//
// The C++ form of the classic TensorFlow 1.x snippet:
//
//   g1 = tf.Graph()
//   with g1.as_default():  c1 = tf.constant(4.0)
//   g2 = tf.Graph()
//   with g2.as_default():  c2 = tf.constant(20.0)
//   with tf.Session(graph=g2) as sess:
//       sess.run(c2)     # 20.0
//       sess.run(c1)     # error: c1 belongs to g1
//
// Chapter 01_session shows this program's real output.
#include <iostream>

#include "src/01_session/array_ops.h"
#include "src/01_session/graph.h"
#include "src/01_session/learning/math_ops.h"
#include "src/01_session/session.h"

int main(int argc, char** argv) {
  using namespace mts;
  if (argc > 1) {  // It takes none: an argument meant as a flag must not pass unnoticed.
    std::cerr << "two_graphs: unexpected argument '" << argv[1] << "': this program takes none.\n";
    return 2;
  }

  // [mts:two-graphs-build]
  Graph g1;
  Output c1;
  {
    DefaultGraphScope as_default(g1);  // Python: with g1.as_default():
    c1 = Mul(Constant(2.0f, "a"), Constant(2.0f, "b"), "c1");
  }

  Graph g2;
  Output c2;
  {
    DefaultGraphScope as_default(g2);
    c2 = Mul(Constant(4.0f, "a"), Constant(5.0f, "b"), "c2");
  }
  // [mts:two-graphs-build-end]

  std::cout << "g1 holds " << g1.num_ops() << " ops, g2 holds " << g2.num_ops() << " ops\n";
  std::cout << "c1 is " << c1.name() << " in g1; c2 is " << c2.name() << " in g2\n";

  // [mts:two-graphs-run]
  Session session_on_g2(&g2);
  std::cout << "session on g2 runs c2: " << session_on_g2.Run(c2) << "\n";
  try {
    session_on_g2.Run(c1);
  } catch (const ValueError& e) {
    std::cout << "session on g2 runs c1: ValueError: " << e.what() << "\n";
  }

  Session session_on_g1(&g1);
  std::cout << "session on g1 runs c1: " << session_on_g1.Run(c1) << "\n";
  try {
    session_on_g1.Run(c2);
  } catch (const ValueError& e) {
    std::cout << "session on g1 runs c2: ValueError: " << e.what() << "\n";
  }
  // [mts:two-graphs-run-end]
  return 0;
}
