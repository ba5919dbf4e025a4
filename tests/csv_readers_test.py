#!/usr/bin/env python3
"""Every CSV the goldens hold (tests/golden/*/*.csv: `mgsim run --format csv`
and `mgsim sweep`), read as default readers read it: Python's csv.DictReader
and the sqlite3 shell's `.import --csv`, both of which take the first line as
the header. Each must find the same columns, all named, the version columns
last, every row complete. A file in the old format 1 (a "# mgsim VERSION
format 1" line first) must be refused by the same checks.

    usage: csv_readers_test.py GOLDEN_DIR
"""
import csv
import pathlib
import subprocess
import sys
import tempfile


def read_with_csv(path):
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = list(reader)
    return header, rows


def read_with_sqlite(path):
    """The columns, the row count and the first complaint (or "") of the sqlite3 shell's `.import`."""
    query = "select name from pragma_table_info('t') order by cid; select count(*) from t;"
    done = subprocess.run(["sqlite3", "-batch", ":memory:", "-cmd", f".import --csv '{path}' t", query],
                          capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    return lines[:-1], int(lines[-1]), (done.stderr.splitlines() or [""])[0]


def problems(path):
    """What a default reader trips on in the CSV at `path` ([] when nothing)."""
    header, rows = read_with_csv(path)
    found = []
    if len(set(header)) != len(header) or any(not name or name.startswith("#") for name in header):
        found.append(f"header is not a list of distinct column names: {header[:3]}...")
    if header[-2:] != ["mgsim_version", "format_version"]:
        found.append(f"the last two columns are {header[-2:]}, not mgsim_version, format_version")
    short = [i + 2 for i, row in enumerate(rows) if len(row) != len(header)]
    if short:
        found.append(f"line {short[0]} has another number of fields than the header ({len(header)})")
    if rows and {row[-1] for row in rows if row} != {"2"}:
        found.append("format_version is not 2 in every row")
    columns, count, complaint = read_with_sqlite(path)
    if complaint:
        found.append(f"sqlite3 .import: {complaint}")
    if columns != header or count != len(rows):
        found.append(f"sqlite3 .import reads {len(columns)} columns and {count} rows, "
                     f"csv reads {len(header)} columns and {len(rows)} rows")
    return found


def main():
    files = sorted(pathlib.Path(sys.argv[1]).glob("*/*.csv"))
    if not files:
        print(f"FAIL no CSV in {sys.argv[1]}/*/")
        return 1
    failed = 0
    for path in files:
        for problem in problems(path):
            print(f"FAIL {path}: {problem}")
            failed += 1
    print(f"{len(files)} CSVs read with csv and sqlite3 .import")
    # The checks can fail: format 1's first line is refused.
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as old:
        old.write("# mgsim 0.1.0 format 1\n" + files[0].read_text())
    if not problems(old.name):
        print("FAIL a CSV with a '# mgsim VERSION format 1' first line passes the checks")
        failed += 1
    pathlib.Path(old.name).unlink()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
