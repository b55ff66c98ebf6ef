"""Parse a LAMMPS log (29Sep2021 format): thermo values per step (thermo_style
multi or one/custom), loop time, the MPI task timing breakdown, and the device
time blocks of lj/charmm/coul/long/ocl and of the GPU package."""
import math
import re

_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?nan|[-+]?inf"
_MULTI_STEP = re.compile(r"^-+ Step\s+(\d+) -+")
_KV = re.compile(r"(\w+)\s*=\s*(" + _NUM + r")")
_LOOP = re.compile(r"^Loop time of (\S+) on (\d+) procs for (\d+) steps with (\d+) atoms")
_BREAK = re.compile(r"^(Pair|Bond|Kspace|Neigh|Comm|Output|Modify|Other)\s*\|(.*)$")


def _num(s):
    return float(s)


def parse(text):
    """Return dict: thermo {step: {name: value}}, runs [ {loop, procs, steps,
    atoms, breakdown {section: avg seconds}} ], device [text blocks]."""
    thermo, runs, device = {}, [], []
    lines = text.splitlines()
    header = None
    step = None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _MULTI_STEP.match(line)
        if m:
            step = int(m.group(1))
            thermo.setdefault(step, {})
            header = None
            i += 1
            continue
        if step is not None and _KV.search(line) and "=" in line and not line.startswith("Loop"):
            for k, v in _KV.findall(line):
                thermo[step][k] = _num(v)
            i += 1
            continue
        step = None if not line.strip() or line.startswith("Loop") else step
        if line.strip().startswith("Step ") or line.strip().startswith("Step"):
            cols = line.split()
            if cols and cols[0] == "Step" and len(cols) > 1 and not _KV.search(line):
                header = cols
                i += 1
                continue
        if header:
            parts = line.split()
            if len(parts) == len(header) and re.fullmatch(r"\d+", parts[0]):
                try:
                    vals = [float(p) for p in parts]
                    thermo[int(parts[0])] = dict(zip(header, vals))
                    i += 1
                    continue
                except ValueError:
                    pass
            header = None
        m = _LOOP.match(line)
        if m:
            runs.append({"loop": float(m.group(1)), "procs": int(m.group(2)),
                         "steps": int(m.group(3)), "atoms": int(m.group(4)), "breakdown": {}})
        m = _BREAK.match(line)
        if m and runs:
            cols = [c.strip() for c in m.group(2).split("|")]
            try:
                runs[-1]["breakdown"][m.group(1)] = float(cols[1])  # avg time
            except (IndexError, ValueError):
                pass
        if "Device Time Info" in line:
            block = [lines[i - 1]] if i > 0 else []
            j = i
            while j < len(lines) and (j == i or not lines[j].startswith("---") or j < i + 2):
                block.append(lines[j])
                j += 1
            while j < len(lines) and lines[j].strip() and not lines[j].startswith("Loop"):
                block.append(lines[j])
                if lines[j].startswith("---") and len(block) > 4:
                    break
                j += 1
            device.append("\n".join(block))
        i += 1
    return {"thermo": thermo, "runs": runs, "device": device}


def parse_file(path):
    with open(path, errors="replace") as f:
        return parse(f.read())


def device_times(block):
    """Seconds per phase from a device block (ours or the GPU package's)."""
    out = {}
    for line in block.splitlines():
        m = re.match(r"^\s*([A-Za-z][A-Za-z ()/+.-]*?):\s+(" + _NUM + r")\s*(s\b)?", line)
        if m:
            out[m.group(1).strip()] = float(m.group(2))
    return out


def rel_diff(a, b):
    """|a-b|/|b|; inf if either is not finite (NaN never passes)."""
    if a is None or b is None or not (math.isfinite(a) and math.isfinite(b)):
        return math.inf
    if b == 0.0:
        return 0.0 if a == 0.0 else math.inf
    return abs(a - b) / abs(b)
