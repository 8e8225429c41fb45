#!/usr/bin/python3
"""Writes the book's API reference: one page per stage, the stage's classes in stack order.

    api_pages.py OUT_DIR HEADER...

Each page (OUT_DIR/<stage>.md) lists the public headers of one package, lowest first: a
header comes after every header of the same package it includes, so a page reads the way
its chapter builds the layer, from the pieces up to the class the stage is named after.
For each header the page shows the comment the header opens with (where it sits in the
stack, which TensorFlow class it stands for), then the Doxygen documentation of its public
classes and functions. Private members and the `internal` namespace are left out: a reader
looks up what a class promises, not how it keeps its promise.

The pages are generated during the book's build from the headers themselves, so a new
class appears in the reference without anyone remembering to add it.
"""

import os
import re
import sys

# (page, package, title, chapter): in the order of the book.
STAGES = [
    ("platform", "src/platform", "platform: files, clocks, logging, errors", None),
    ("01_session", "src/01_session", "01 · The Session", "/chapters/01_session/index"),
    ("01_session_learning", "src/01_session/learning", "01 · A graph that learns",
     "/chapters/01_session/learning"),
    ("02_chief_worker_checkpoint", "src/02_chief_worker/checkpoint",
     "02 · The checkpoint format and state file", "/chapters/02_chief_worker/index"),
    ("02_chief_worker", "src/02_chief_worker", "02 · Chief and Worker",
     "/chapters/02_chief_worker/index"),
    ("03_hooked", "src/03_hooked", "03 · Hooks: the HookedSession", "/chapters/03_hooked/index"),
    ("03_hooked_hooks", "src/03_hooked/hooks", "03 · The built-in hooks",
     "/chapters/03_hooked/index"),
    ("03_hooked_events", "src/03_hooked/events", "03 · Event files", "/chapters/03_hooked/index"),
    ("04_coordinated", "src/04_coordinated", "04 · The CoordinatedSession",
     "/chapters/04_coordinated/index"),
    ("04_coordinated_queue", "src/04_coordinated/queue", "04 · The FIFO queue",
     "/chapters/04_coordinated/index"),
    ("05_recoverable", "src/05_recoverable", "05 · The RecoverableSession",
     "/chapters/05_recoverable/index"),
    ("06_monitored", "src/06_monitored", "06 · MonitoredSession and MonitoredTrainingSession",
     "/chapters/06_monitored/index"),
    ("07_distributed", "src/07_distributed", "07 · Parameter servers and workers over gRPC",
     "/chapters/07_distributed/index"),
    ("07_distributed_sync_replicas", "src/07_distributed/sync_replicas",
     "07 · Synchronous replicas", "/chapters/07_distributed/index"),
    ("testing", "tests/testing", "tests/testing: the helpers the tests share", None),
    ("tracing", "tools/tracing", "tools/tracing: the book's call tracer",
     "/chapters/03_hooked/index"),
]

INCLUDE = re.compile(r'^#include "([^"]+\.h)"', re.M)
# A class or struct defined at namespace level (not a forward declaration, not nested).
CLASS = re.compile(r"^(?:template <[^>]*>\s*)?(class|struct) (\w+)\b(?!::|<)[^;]*$", re.M)


def opening_comment(text):
    """The header's opening comment, without its first line's file name."""
    lines = []
    for line in text.splitlines():
        if not line.startswith("//"):
            break
        lines.append(line[3:] if line.startswith("// ") else line[2:])
    if lines:
        lines[0] = re.sub(r"^\S+\.h:\s*", "", lines[0])
    return "\n".join(lines).strip()


def stack_order(headers):
    """Headers of one package, each after the headers of the package it includes."""
    texts = {h: open(h, encoding="utf-8").read() for h in headers}
    ordered, placed = [], set()

    def place(header, seen):
        if header in placed or header in seen:
            return
        seen.add(header)
        for dep in INCLUDE.findall(texts[header]):
            if dep in texts:
                place(dep, seen)
        placed.add(header)
        ordered.append(header)

    for header in sorted(headers):
        place(header, set())
    return ordered, texts


def public_classes(text):
    """(kind, name) of the classes and structs a header defines at namespace level,
    outside `internal`."""
    names = []
    for match in CLASS.finditer(text):
        before = text[: match.start()]
        if before.rfind("namespace internal {") > before.rfind("}  // namespace internal"):
            continue
        names.append((match.group(1), match.group(2)))
    return names


def page(stage, headers):
    name, package, title, chapter = stage
    ordered, texts = stack_order(headers)
    out = [f"# {title}", ""]
    where = f"`{package}/`"
    if chapter:
        out.append(f"The public headers of {where}, lowest first. The chapter "
                   f"{{doc}}`{chapter}` explains why each looks the way it does.")
    else:
        out.append(f"The public headers of {where}, lowest first.")
    out.append("")
    for header in ordered:
        text = texts[header]
        out += [f"## `{os.path.basename(header)}`", ""]
        comment = opening_comment(text)
        if comment:
            out += ["```text", comment, "```", ""]
        classes = public_classes(text)
        for kind, cls in classes:
            out += [f"```{{doxygen{kind}}} mts::{cls}", ":members:", "```", ""]
        # Free functions, enums and constants of the header (its classes are above).
        out += [f"```{{doxygenfile}} {header}",
                ":sections: func enum typedef var define", "```", ""]
    return "\n".join(out)


def main(argv):
    out_dir, headers = argv[1], argv[2:]
    os.makedirs(out_dir, exist_ok=True)
    for stage in STAGES:
        package = stage[1]
        mine = [h for h in headers if os.path.dirname(h) == package]
        if not mine:
            sys.exit(f"api_pages.py: no headers given for {package}")
        with open(os.path.join(out_dir, stage[0] + ".md"), "w", encoding="utf-8") as f:
            f.write(page(stage, mine))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
