#!/usr/bin/env python3
"""Runs every ```sh block of the given Markdown files (default: README.md and
docs/*.md), so a documented command that stops working fails the test.

Each file's blocks run in order, with `bash -eo pipefail`, in one sandbox of
its own: a temporary folder holding copies of the shipped data (configs/,
traces/, validation/, scripts/, results/, docs/, tests/data/), the binary as
build/src/mgsim and as `mgsim` on PATH, and the stand-ins of
tests/doc_standins/ for the files a reader brings (my-cluster.json,
all_reduce_perf.txt...). Outputs land in the sandbox, never in the tree.

A block that cannot run here (it builds, installs, needs a GPU, a cluster,
the network or minutes) is marked on the line before its fence:

    <!-- doc-test: skip needs a GPU -->

and reported as SKIP with that reason. Prints PASS/FAIL/SKIP FILE:LINE per
block; exit status 1 when a block failed.

    usage: doc_commands_test.py MGSIM ROOT [FILE.md...]
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

SHIPPED = ["configs", "traces", "validation", "scripts", "results", "docs", "tests/data"]
SKIP = re.compile(r"<!--\s*doc-test:\s*skip\s+(.*?)\s*-->")
TIMEOUT_S = 120


def blocks(path):
    """(line of the fence, skip reason or None, text) of each ```sh block."""
    lines = path.read_text().split("\n")
    found = []
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```sh":
            before = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
            marker = SKIP.search(before)
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            found.append((i + 1, marker.group(1) if marker else None, "\n".join(lines[i + 1:end])))
            i = end
        i += 1
    return found


def sandbox(mgsim, root):
    """A temporary folder laid out as the source tree for the blocks, and its PATH."""
    box = pathlib.Path(tempfile.mkdtemp(prefix="mgsim-doc-commands."))
    for part in SHIPPED:
        if (root / part).exists():
            shutil.copytree(root / part, box / part, symlinks=True)
    for standin in (root / "tests/doc_standins").glob("*"):
        if standin.name != "README.md":
            shutil.copy(standin, box / standin.name)
    (box / "build/src").mkdir(parents=True)
    (box / "build/src/mgsim").symlink_to(mgsim)
    (box / "bin").mkdir()
    (box / "bin/mgsim").symlink_to(mgsim)
    return box, f"{box / 'bin'}:{os.environ['PATH']}"


def run_file(mgsim, root, path):
    """Runs the blocks of one file; the number that failed."""
    failed = 0
    box, search_path = sandbox(mgsim, root)
    env = dict(os.environ, PATH=search_path, HOME=str(box))
    name = path.relative_to(root) if path.is_relative_to(root) else path.name
    try:
        for line, skip, text in blocks(path):
            if skip:
                print(f"SKIP {name}:{line} ({skip})")
                continue
            try:
                done = subprocess.run(["bash", "-eo", "pipefail", "-c", text], cwd=box, env=env, timeout=TIMEOUT_S,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                ok, why = done.returncode == 0, f"exit {done.returncode}: {done.stderr.strip()[-400:]}"
            except subprocess.TimeoutExpired:
                ok, why = False, f"still running after {TIMEOUT_S} s (mark it: <!-- doc-test: skip takes minutes -->)"
            print(f"{'PASS' if ok else 'FAIL'} {name}:{line}" + ("" if ok else f"\n  {text}\n  -> {why}"))
            failed += 0 if ok else 1
    finally:
        shutil.rmtree(box, ignore_errors=True)
    return failed


def main():
    mgsim, root = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
    files = [pathlib.Path(f).resolve() for f in sys.argv[3:]] or [root / "README.md", *sorted(root.glob("docs/*.md"))]
    failed = sum(run_file(mgsim, root, path) for path in files)
    print(f"{failed} documented block(s) failed" if failed else "every documented block ran")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
