#!/bin/bash
# Function size report over src/ and lammps_plugin/ (C, C++, OpenCL .cl/.clh)
# with lizard from PyPI (cached venv $STREAMCL_CACHE/venv-lizard, rebuilt only
# when the pinned version changes). Fails when a function is over the house
# limits and not on the allow-list .ci/complexity-allow.txt:
#   length > 120: lines from the function's first line to its last, comments
#                 and blank lines included (lizard's "length", not its NLOC,
#                 so a long function cannot hide behind comments)
#   CCN    > 40:  cyclomatic complexity (lizard's CCN)
# The allow-list holds "path:function  reason" lines, for what cannot be
# split now; an entry no longer over the limits is reported as stale (remove
# it) but does not fail, so splitting a function never breaks CI.
#   .ci/complexity.sh [--top N]     (prints the N largest by length and CCN)
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${STREAMCL_CACHE:-/var/cache/streamcl}
venv=$cache/venv-lizard
want="lizard==1.24.3"
if ! [ -x "$venv/bin/python" ] || [ "$(cat "$venv/lizard-ok" 2>/dev/null)" != "$want" ]; then
    mkdir -p "$cache"
    rm -rf "$venv"
    python3 -m venv "$venv"
    timeout 600 "$venv/bin/python" -m pip install -q --disable-pip-version-check "$want" >&2
    echo "$want" > "$venv/lizard-ok"
fi
top=10
[ "${1:-}" = "--top" ] && top=$2
exec "$venv/bin/python" - "$top" <<'PY'
import sys
from lizard_languages.clike import CLikeReader
# OpenCL C is C to lizard; it only needs to know the endings
CLikeReader.ext += ["cl", "clh"]
import lizard

MAX_LENGTH, MAX_CCN = 120, 40
top = int(sys.argv[1])
allow = {}
with open(".ci/complexity-allow.txt") as f:
    for n, line in enumerate(f, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, _, reason = line.partition(" ")
        if not reason.strip():
            sys.exit(f".ci/complexity-allow.txt:{n}: '{key}' has no reason")
        allow[key] = reason.strip()

funcs = []
for fi in lizard.analyze(["src", "lammps_plugin"]):
    for fn in fi.function_list:
        funcs.append((fi.filename, fn))
print(f"lizard: {len(funcs)} functions in src/ and lammps_plugin/; "
      f"limits: length {MAX_LENGTH} lines, CCN {MAX_CCN}")
print(f"largest by length (lines) and by CCN, top {top}:")
for label, key in (("length", lambda f: f[1].length),
                   ("CCN", lambda f: f[1].cyclomatic_complexity)):
    for path, fn in sorted(funcs, key=key, reverse=True)[:top]:
        print(f"  {label:6} {path}:{fn.start_line} {fn.name}: length {fn.length}, "
              f"NLOC {fn.nloc}, CCN {fn.cyclomatic_complexity}, {fn.parameter_count} params")

over, allowed, seen = [], [], set()
for path, fn in funcs:
    if fn.length <= MAX_LENGTH and fn.cyclomatic_complexity <= MAX_CCN:
        continue
    key = f"{path}:{fn.name}"
    row = f"{key} (line {fn.start_line}): length {fn.length}, CCN {fn.cyclomatic_complexity}"
    if key in allow:
        seen.add(key)
        allowed.append(f"{row}  [allowed: {allow[key]}]")
    else:
        over.append(row)
for row in allowed:
    print("allowed: " + row)
for key in sorted(set(allow) - seen):
    print(f"stale allow-list entry (within the limits now, remove it): {key}")
for row in over:
    print("OVER THE LIMITS: " + row)
print(f"complexity: {len(over)} over the limits, {len(allowed)} allowed, "
      f"{len(set(allow) - seen)} stale allow-list entries")
sys.exit(1 if over else 0)
PY
