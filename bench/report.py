"""Summarise benchmark JSON lines into a markdown table (and a PNG chart).

    python3 bench/report.py results/*.jsonl [--md out.md] [--png chart.png]
                            [--compile-times compile-times.txt]

For each workload: GiB/s of every implementation (us/call for
sumsq_small), the best non-fuse implementation, and fuse's ratio to it
(> 1 means fuse is faster). Failed checks are marked and never count as best.
When the files hold several records of one (workload, implementation) --
scripts/gpu/run-bench.sh's interleaved rounds -- the record with the median
value stands for it (of an even count's middle two, the worse), a failed check
in any round marks it failed, and the table says how many rounds it had.
With --compile-times (scripts/gpu/prepare-bench.sh's file: "name
process_ms [in_process_ms]" per line, '#' comments), a second table puts
fuse-compile's median wall time next to torch.compile's first call
(`compile_s` of the torch-compile records) and checks the 100 ms bar
against the process's wall time (in-process where a file has only that);
a header ending in "(...)" says where the times were measured
(scripts/gpu/run-compile-times.sh: "GPU machine, N cores, N runs"), and
the table's caption repeats it.

Then the targets (the benchmark issue's, TARGETS below) and every row that
is under its target or under the best peer, with the measured gap and the
cause recorded for it in the diagnoses file (--diagnoses, default
diagnoses.json beside this script: {"workload": {"since": "date",
"cause": "text"}, ..., "compile_time": {...}}); a row with a gap and no
recorded cause says so. The compile table's pipelines over 100 ms are
listed the same way, under "compile_time".
With --png, a chart of GiB/s per workload and implementation against the
copy line (needs matplotlib; without it a note, and the rest stands).
"""
import argparse
import json
import os
import sys

ORDER = ["copy", "sumsq", "dot", "chain", "scan", "select", "softmax_rows",
         "variance", "logsumexp_rows", "sumsq_small"]


# The benchmark issue's targets: (bound, unit); GiB/s at least, or us per
# call at most for sumsq_small.
TARGETS = {"sumsq": 4000, "dot": 4000, "chain": 3600, "scan": 2900,
           "select": 2500, "softmax_rows": 3500, "variance": 3900,
           "logsumexp_rows": 3800, "sumsq_small": 4.0}
COMPILE_BAR_MS = 100


def load_diagnoses(path):
    """{key: (since, cause)} from the diagnoses file; {} (with a note) when
    it cannot be read."""
    if not path:
        return {}
    try:
        with open(path) as f:
            raw = json.load(f)
    except (OSError, ValueError) as e:
        print(f"report: no diagnoses ({e}: {path})", file=sys.stderr)
        return {}
    out = {}
    if isinstance(raw, dict):
        for k, v in raw.items():
            if isinstance(v, dict) and isinstance(v.get("cause"), str):
                out[k] = (str(v.get("since", "")), v["cause"])
    return out


def cause_text(diag, key):
    if key in diag:
        since, cause = diag[key]
        return f"Cause ({'diagnosed ' + since if since else 'diagnosis'}): {cause}"
    return "Cause: no diagnosis recorded."


def gaps(by, diag):
    """Markdown: the targets table and one entry per row under its target
    or under the best peer (measured gap, recorded cause)."""
    lines = ["| workload | target | fuse | against the target | fuse / best peer |",
             "|---|---|---|---|---|"]
    notes = []
    for w in sorted(by, key=lambda w: ORDER.index(w) if w in ORDER else 99):
        small = w == "sumsq_small"
        row = by[w]
        fuse = fuse_record(row)
        if fuse is None:
            continue
        fv = value(fuse)
        unit = " us" if small else " GiB/s"
        best = best_peer(row, small)
        why = []
        target = TARGETS.get(w)
        tcell = vcell = "-"
        if target is not None:
            tcell = f"<= {target:g} us" if small else f">= {target:g}"
            # Relative distance, positive when the target is met.
            d = (target - fv) / target if small else (fv - target) / target
            vcell = ("met" if d >= 0 else "missed") + f" ({d * 100:+.1f}%)"
            if d < 0:
                if small:
                    why.append(f"{-d * 100:.1f}% over the target ({fv:.2f} us "
                               f"against {target:g})")
                else:
                    why.append(f"{-d * 100:.1f}% under the target ({fv:.0f} "
                               f"GiB/s against {target:g})")
        rcell = "-"
        if best:
            ratio = best[0] / fv if small else fv / best[0]
            rcell = f"{ratio:.3f}x {best[1]}"
            if ratio < 1:
                num = (lambda v: f"{v:.2f}") if small else (lambda v: f"{v:.0f}")
                why.append(f"{(1 - ratio) * 100:.1f}% slower than {best[1]} "
                           f"({num(fv)} against {num(best[0])}{unit})")
        if target is not None:
            lines.append(f"| {w} | {tcell} | {shown(fv, small)} | {vcell} | {rcell} |")
        if why:
            # A row at another shape ("softmax_rows 2080892x129") has
            # causes of its own: its exact name only.
            notes.append(f"- **{w}**: " + "; ".join(why) + ". " +
                         cause_text(diag, w))
    out = "\n".join(lines)
    if notes:
        out += ("\n\nRows under their target or the best peer, with the "
                "measured gap:\n\n" + "\n".join(notes))
    else:
        out += "\n\nNo row is under its target or under a peer measured in the run."
    return out


def load(paths):
    recs = []
    for p in paths:
        with open(p) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    try:
                        r = json.loads(line)
                    except json.JSONDecodeError:
                        continue
                    if not isinstance(r, dict) or "workload" not in r or \
                            "impl" not in r or \
                            not isinstance(value(r), (int, float)):
                        print(f"report: {p}: a line without workload, impl "
                              "or its value (gib_s, us_per_call for "
                              "sumsq_small) is left out", file=sys.stderr)
                        continue
                    r.setdefault("ok", False)
                    recs.append(r)
    return recs


def value(r):
    return r.get("us_per_call") if r["workload"] == "sumsq_small" else r.get("gib_s")


def merge_rounds(recs):
    """One record per (workload, impl): the round with the median value
    (GiB/s, or us per call; of two middle rounds the worse), 'ok' only if
    every round passed, and 'rounds' the number of records merged."""
    groups = {}
    for r in recs:
        groups.setdefault((r["workload"], r["impl"]), []).append(r)
    out = []
    for rs in groups.values():
        # Worst first: of an even count's two middle rounds, the worse.
        small = rs[0]["workload"] == "sumsq_small"
        ranked = sorted(rs, key=value, reverse=small)
        pick = dict(ranked[(len(ranked) - 1) // 2])
        pick["ok"] = all(r["ok"] for r in rs)
        pick["rounds"] = len(rs)
        out.append(pick)
    return out


def better(a, b, small):
    return a < b if small else a > b


def shown(v, small):
    """A table cell's value: us per call for sumsq_small, else GiB/s."""
    return f"{v:.2f} us" if small else f"{v:.0f}"


def fuse_record(row):
    """fuse's record of a workload's row whose check passed, or None."""
    return next((r for i, r in row.items()
                 if i.startswith("fuse") and r["ok"]), None)


def best_peer(row, small):
    """(value, impl) of the best non-fuse implementation of a workload's
    row whose check passed, or None."""
    best = None
    for i, r in row.items():
        if not i.startswith("fuse") and r["ok"]:
            v = value(r)
            if best is None or better(v, best[0], small):
                best = (v, i)
    return best


def table(recs):
    impls = []
    for r in recs:
        if r["impl"] not in impls:
            impls.append(r["impl"])
    impls.sort(key=lambda i: (not i.startswith("fuse"), i))
    by = {}
    for r in recs:
        by.setdefault(r["workload"], {})[r["impl"]] = r
    lines = ["| workload | " + " | ".join(impls) + " | best peer | fuse / best |",
             "|---" * (len(impls) + 3) + "|"]
    summary = []
    for w in sorted(by, key=lambda w: ORDER.index(w) if w in ORDER else 99):
        small = w == "sumsq_small"
        row = by[w]
        cells = []
        for i in impls:
            r = row.get(i)
            if not r:
                cells.append("-")
                continue
            cell = shown(value(r), small)
            if not r["ok"]:
                cell += " (FAILED check)"
            cells.append(cell)
        best = best_peer(row, small)
        fuse = fuse_record(row)
        ratio = "-"
        if best and fuse:
            fv = value(fuse)
            ratio = f"{(best[0] / fv) if small else (fv / best[0]):.2f}x"
            summary.append((w, ratio))
        best_s = f"{best[1]}" if best else "-"
        lines.append(f"| {w} | " + " | ".join(cells) + f" | {best_s} | {ratio} |")
    return "\n".join(lines), by, impls


def compile_table(path, recs):
    """Markdown table of compile times (ms) against torch.compile's first
    call, and where they were measured (the text in parentheses closing
    the file's header, e.g. "GPU machine, 16 cores, 9 runs"; None if
    absent); (None, None) when the file has no entries."""
    fuse = {}  # name -> (process ms or None, in-process ms or None)
    two = False  # files without the header hold in-process times only
    where = None  # the header's closing "(...)": the machine measured on
    try:
        f = open(path)
    except OSError as e:
        print(f"report: no compile-time table ({e.strerror}: {path})",
              file=sys.stderr)
        return None, None, []
    with f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[0].startswith("#"):
                two = two or "process wall" in line
                head = line.strip()
                if where is None and head.endswith(")") and "(" in head:
                    where = head[head.rindex("(") + 1:-1]
                continue
            try:
                vals = [float(v) for v in parts[1:3]]
            except ValueError:
                continue
            if vals:
                fuse[parts[0]] = ((vals[0], vals[1] if len(vals) > 1 else None)
                                  if two else (None, vals[0]))
    if not fuse:
        return None, None, []
    torch = {r["workload"]: r["compile_s"] * 1000.0 for r in recs
             if r.get("impl") == "torch-compile" and "compile_s" in r}
    over = []
    lines = ["| pipeline | fuse-compile (ms, process) | in-process (ms) | "
             "torch.compile first call (ms) | torch / fuse | <= 100 ms |",
             "|---|---|---|---|---|---|"]
    def ms(v):
        return f"{v:.0f}" if v is not None else "-"

    for w in sorted(fuse, key=lambda w: ORDER.index(w) if w in ORDER else 99):
        proc, inproc = fuse[w]
        wall = proc if proc is not None else inproc  # the process's when known
        t = torch.get(w)
        ratio = f"{t / wall:.1f}x" if t is not None and wall > 0 else "-"
        bar = "yes" if wall <= COMPILE_BAR_MS else "no"
        if wall > COMPILE_BAR_MS:
            over.append((w, wall))
        lines.append(f"| {w} | {ms(proc)} | {ms(inproc)} | {ms(t)} | {ratio} | {bar} |")
    return "\n".join(lines), where, over


def chart(by, impls, path):
    try:
        import matplotlib
    except ImportError:
        print("report: no chart (matplotlib is not installed)", file=sys.stderr)
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ws = [w for w in ORDER if w in by and w not in ("sumsq_small", "copy")]
    fig, ax = plt.subplots(figsize=(12, 5.5))
    width = 0.8 / max(1, len(impls))
    for k, i in enumerate(impls):
        vals = [by[w][i]["gib_s"] if i in by[w] and by[w][i]["ok"] else 0 for w in ws]
        ax.bar([x + k * width for x in range(len(ws))], vals, width, label=i)
    copy = by.get("copy", {})
    if copy:
        c = max(r["gib_s"] for r in copy.values() if r["ok"])
        ax.axhline(c, color="k", linestyle="--", linewidth=1, label=f"copy {c:.0f} GiB/s")
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(ws))])
    ax.set_xticklabels(ws, rotation=20)
    ax.set_ylabel("GiB/s (fewest bytes the job must move)")
    gpu = next(iter(next(iter(by.values())).values())).get("gpu", "")
    ax.set_title(f"fuse and peers, {gpu}")
    # Below the axes: inside, it hides the tallest bars.
    ax.legend(fontsize=8, ncol=6, loc="upper center",
              bbox_to_anchor=(0.5, -0.2))
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--md")
    ap.add_argument("--png")
    ap.add_argument("--compile-times")
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "diagnoses.json")
    ap.add_argument("--diagnoses", default=here if os.path.exists(here) else None)
    a = ap.parse_args()
    recs = load(a.files)
    if not recs:
        sys.exit("report: no results")
    recs = merge_rounds(recs)
    md, by, impls = table(recs)
    rounds = sorted({r["rounds"] for r in recs})
    if rounds != [1]:
        md += ("\n\nEach cell: the median of the interleaved rounds' medians "
               "(most rounds of an implementation: "
               + ", ".join(f"{i}: {max(r['rounds'] for r in recs if r['impl'] == i)}"
                           for i in impls) + ").")
    diag = load_diagnoses(a.diagnoses)
    md += "\n\nTargets (the benchmark issue's):\n\n" + gaps(by, diag)
    if a.compile_times:
        ct, where, over = compile_table(a.compile_times, recs)
        if ct:
            md += ("\n\nCompile time (median wall" +
                   (f"; {where}" if where else "") + "):\n\n" + ct)
            if over:
                md += ("\n\nOver the " + f"{COMPILE_BAR_MS} ms bar: " +
                       ", ".join(f"{w} {t:.0f} ms (+{t - COMPILE_BAR_MS:.0f})"
                                 for w, t in over) + ". " +
                       cause_text(diag, "compile_time"))
    print(md)
    if a.md:
        with open(a.md, "w") as f:
            f.write(md + "\n")
    if a.png:
        chart(by, impls, a.png)


if __name__ == "__main__":
    main()
