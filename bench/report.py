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
"""
import argparse
import json
import sys

ORDER = ["copy", "sumsq", "dot", "chain", "scan", "select", "softmax_rows",
         "variance", "logsumexp_rows", "sumsq_small"]


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
            v = value(r)
            cell = f"{v:.2f} us" if small else f"{v:.0f}"
            if not r["ok"]:
                cell += " (FAILED check)"
            cells.append(cell)
        peers = [(value(r), i) for i, r in row.items()
                 if not i.startswith("fuse") and r["ok"]]
        best = None
        for v, i in peers:
            if best is None or better(v, best[0], small):
                best = (v, i)
        fuse = [r for i, r in row.items() if i.startswith("fuse") and r["ok"]]
        ratio = "-"
        if best and fuse:
            fv = value(fuse[0])
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
        return None, None
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
        return None, None
    torch = {r["workload"]: r["compile_s"] * 1000.0 for r in recs
             if r.get("impl") == "torch-compile" and "compile_s" in r}
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
        bar = "yes" if wall <= 100 else "no"
        lines.append(f"| {w} | {ms(proc)} | {ms(inproc)} | {ms(t)} | {ratio} | {bar} |")
    return "\n".join(lines), where


def chart(by, impls, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ws = [w for w in ORDER if w in by and w not in ("sumsq_small", "copy")]
    fig, ax = plt.subplots(figsize=(12, 5))
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
    ax.legend(fontsize=8, ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--md")
    ap.add_argument("--png")
    ap.add_argument("--compile-times")
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
    if a.compile_times:
        ct, where = compile_table(a.compile_times, recs)
        if ct:
            md += ("\n\nCompile time (median wall" +
                   (f"; {where}" if where else "") + "):\n\n" + ct)
    print(md)
    if a.md:
        with open(a.md, "w") as f:
            f.write(md + "\n")
    if a.png:
        chart(by, impls, a.png)


if __name__ == "__main__":
    main()
