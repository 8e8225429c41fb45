#!/usr/bin/python3
"""The slowest actions of a Bazel build, from its JSON profile (`bazel build --profile=F`).

    tools/slowest_actions.py PROFILE.gz [N]

Prints a markdown table of the N (default 12) longest actions: seconds, mnemonic-like
category and what the action did (the file it compiled or linked), then the seconds spent
per kind of action. Used by tools/time_build.sh to say where a cold build's time goes.
"""

import collections
import gzip
import json
import sys


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__)
        return 2
    if len(sys.argv) == 3 and not (sys.argv[2].isdigit() and int(sys.argv[2]) > 0):
        print("slowest_actions: N must be a positive whole number, not %r" % sys.argv[2])
        return 2
    opener = gzip.open if sys.argv[1].endswith(".gz") else open
    try:
        with opener(sys.argv[1], "rt") as f:
            events = json.load(f)
    except (OSError, EOFError, ValueError) as e:
        print("slowest_actions: cannot read %s as a Bazel JSON profile (%s); give the file "
              "`bazel build --profile=FILE` wrote, or the output base's command.profile.gz"
              % (sys.argv[1], e))
        return 2
    events = events.get("traceEvents", events) if isinstance(events, dict) else events
    actions = [e for e in events
               if e.get("ph") == "X" and e.get("cat") == "action processing"]
    n = int(sys.argv[2]) if len(sys.argv) == 3 else 12
    print("| seconds | action |")
    print("| ---: | --- |")
    for e in sorted(actions, key=lambda e: -e.get("dur", 0))[:n]:
        print("| %.1f | %s |" % (e["dur"] / 1e6, e.get("name", "?").replace("|", "/")))
    kinds = collections.Counter()
    for e in actions:
        kinds[e.get("name", "?").split(" ")[0]] += e.get("dur", 0) / 1e6
    print()
    print("Seconds of action time by kind (summed over both cores): " + ", ".join(
        "%s %.0f" % (k, v) for k, v in kinds.most_common(6)) + ".")
    return 0


if __name__ == "__main__":
    sys.exit(main())
