#!/usr/bin/python3
"""No target of a stage's tests builds anything of a higher stage.

    reach_up_test.py PACKAGE GRAPH

PACKAGE is a package of a stage's tests (tests/03_hooked/hooks); its stage is the NN of
tests/NN_stage (tests/platform is stage 0, below stage 01). GRAPH is what the package's
:reach_up_graph genquery wrote (tools/build_defs/reach_up.bzl): the package's targets and
everything they depend on, one `"A" -> "B"` line per dependency. Each package of src/ has
a stage the same way (src/NN_stage/..., src/platform is 0). The test fails if a target of
PACKAGE reaches a package of src/ of a higher stage, and names, for each such target and
package, the shortest path from one to the other: the dependency to cut.
"""

import collections
import re
import sys

NODE = re.compile(r'^\s*"([^"]+)"\s*$')
EDGE = re.compile(r'^\s*"([^"]+)"\s*->\s*"([^"]+)"\s*$')


def stage(path):
    """The stage of a package path under tests/ or src/, or None if it belongs to none."""
    match = re.match(r"^(?:src|tests)/(?:(\d\d)_[^/]+|(platform))(?:/|$)", path)
    if match is None:
        return None
    return 0 if match.group(2) else int(match.group(1))


def package_of(label):
    """//src/04_coordinated:coordinator -> src/04_coordinated."""
    return label[2:].split(":", 1)[0]


def read_graph(path):
    """The nodes and the edges (node -> the nodes it depends on) of a genquery graph."""
    nodes, edges = set(), collections.defaultdict(list)
    with open(path, encoding="utf-8") as f:
        for line in f:
            edge = EDGE.match(line)
            if edge:
                nodes.update(edge.groups())
                edges[edge.group(1)].append(edge.group(2))
                continue
            node = NODE.match(line)
            if node:
                nodes.add(node.group(1))
    return nodes, edges


def paths_up(root, edges, limit):
    """For each src package above stage `limit` that `root` reaches: the shortest path."""
    parent = {root: None}
    queue = collections.deque([root])
    found = {}
    while queue:
        node = queue.popleft()
        if node.startswith("//src/"):
            package = package_of(node)
            node_stage = stage(package)
            if node_stage is not None and node_stage > limit and package not in found:
                path = [node]
                while parent[path[-1]] is not None:
                    path.append(parent[path[-1]])
                found[package] = list(reversed(path))
        for dep in edges.get(node, []):
            if dep not in parent:
                parent[dep] = node
                queue.append(dep)
    return found


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: reach_up_test.py PACKAGE GRAPH")
    package, graph = argv[1], argv[2]
    limit = stage(package)
    if limit is None or not package.startswith("tests/"):
        sys.exit("reach_up_test.py: %s is not a package of a stage's tests (tests/NN_stage/..., "
                 "tests/platform/...)" % package)
    nodes, edges = read_graph(graph)
    roots = sorted(n for n in nodes if package_of(n) == package)
    if not roots:
        sys.exit("reach_up_test.py: the graph %s holds no target of //%s; is it the package's "
                 ":reach_up_graph?" % (graph, package))

    failures = []
    for root in roots:
        for reached, path in sorted(paths_up(root, edges, limit).items()):
            failures.append("%s reaches //%s (stage %02d, above this package's %02d):\n    %s"
                            % (root, reached, stage(reached), limit, "\n    -> ".join(path)))
    if failures:
        print("reach_up_test: //%s builds code of a higher stage:\n" % package)
        print("\n\n".join(failures))
        print("\nA test of stage %02d may build stages %02d and below only. Cut the first "
              "dependency that leaves the stage: move the code the test needs down to the "
              "lowest stage it needs (a test double in tests/testing split in two, say), or "
              "the test up to the stage it really tests." % (limit, limit))
        return 1
    highest = max((stage(package_of(n)) for n in nodes
                   if n.startswith("//src/") and stage(package_of(n)) is not None), default=None)
    print("reach_up_test: the %d targets and files of //%s reach no stage above %02d (the "
          "highest they reach: %s)" % (len(roots), package, limit,
                                       "none" if highest is None else "%02d" % highest))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
