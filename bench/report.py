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

The records of bench/extra_suite.py (workloads named in EXTRA, or records
with "suite": "extra") leave the nine's table and sections as they were
and get a section of their own, "Beyond the nine": a table of every
implementation (fuse, torch eager, torch.compile, CUB through
cuda.compute; "skipped" records say which peer was not measured and why),
the best peer, fuse's ratio to it and to the copy ceiling of the same
element type (the best passing copy_<dtype> row of the same run), then
each row against its targets (EXTRA_RULES: fuse at least 0.95x the best
peer and at least 85% of the copy, every one of these workloads being
memory-bound; the issue's GiB/s where it names one; the function-combiner
reductions at least 90% of fuse's built-in reduction of the same bytes)
and every row that misses one, with the gap and its recorded cause.
The exit status is 0 when a report was made (failed checks and missed
targets are in it), 1 when the files hold no results.
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

# bench/extra_suite.py's workloads, in table order: (element type, the
# issue's GiB/s target or None, the built-in reduction fuse is held to or
# None). The copy_* rows are the ceilings of their element type (uint32
# takes float32's: the same 4-byte elements).
EXTRA = {
    "argmax_f32": ("f32", None, "max_f32"),
    "argmin_f32": ("f32", None, "max_f32"),
    "minmax_f32": ("f32", None, "max_f32"),
    "max_f32": ("f32", None, None),
    "affine_reduce_u32": ("u32", None, "max_f32"),
    "affine_scan_u32": ("u32", 2900, None),
    "cumsum_f32": ("f32", None, None),
    "sumsq_bf16": ("bf16", 3600, None),
    "chain_bf16": ("bf16", None, None),
    "softmax_rows_bf16": ("bf16", 3600, None),
    "sumsq_f16": ("f16", None, None),
    "chain_f16": ("f16", None, None),
    "softmax_rows_f16": ("f16", None, None),
    "layernorm_rows_f32": ("f32", None, None),
    "softmax_rank3_f32": ("f32", None, None),
    "layernorm_rows_bf16": ("bf16", 3600, None),
    "softmax_rank3_bf16": ("bf16", None, None),
    "column_stats_65536x4096": ("f32", None, None),
    "column_stats_4194304x64": ("f32", None, None),
    "column_stats_16777216x16": ("f32", None, None),
    "copy_f32": ("f32", None, None),
    "copy_bf16": ("bf16", None, None),
    "copy_f16": ("f16", None, None),
}
# The rules for them: fuse / best peer, fuse / copy ceiling of the
# element type (every one is memory-bound), fuse / fuse's built-in.
EXTRA_RULES = {"peer": 0.95, "copy": 0.85, "builtin": 0.90}
EXTRA_PEERS = ["torch-eager", "torch-compile", "cuda.compute"]


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
    return with_notes(lines, notes, "Rows under their target or the best "
                      "peer, with the measured gap:", "No row is under its "
                      "target or under a peer measured in the run.")


def with_notes(lines, notes, head, none):
    """A table's lines, then its notes under `head` (or `none`)."""
    out = "\n".join(lines)
    if notes:
        return out + "\n\n" + head + "\n\n" + "\n".join(notes)
    return out + "\n\n" + none


def load(paths, skipped=None):
    """The records of the files; a record of a peer not measured ("skipped":
    why, bench/extra_suite.py's) goes to the list skipped (if given)."""
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
                    if isinstance(r, dict) and "skipped" in r and \
                            "workload" in r and "impl" in r:
                        if skipped is not None:
                            skipped.append(r)
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


def is_extra(r):
    """A record of bench/extra_suite.py."""
    return r["workload"] in EXTRA or r.get("suite") == "extra"


def extra_rank(w):
    """The place of an extra workload in the tables (EXTRA's order)."""
    return list(EXTRA).index(w) if w in EXTRA else len(EXTRA)


def extra_dtype(w, row):
    """The element type of an extra workload: EXTRA's, else its records'."""
    if w in EXTRA:
        return EXTRA[w][0]
    return next((r.get("dtype") for r in row.values() if r.get("dtype")), "")


def copy_ceiling(by, dtype):
    """(GiB/s, "copy_<t>") of the best passing copy of the element type
    (uint32: float32's), or None when the run has none."""
    key = "copy_" + ("f32" if dtype == "u32" else dtype)
    vals = [r["gib_s"] for r in by.get(key, {}).values()
            if r["ok"] and r["gib_s"] > 0]
    return (max(vals), key) if vals else None


def extra_rules(w, by):
    """Extra workload w against each of its targets: {"fuse": GiB/s or
    None, "failed": why fuse has no passing result or None, "rules":
    {name: (cell text, met: True/False/None (nothing to hold it to), the
    gap in words)}}, names as in EXTRA_HEADS."""
    row = by[w]
    dtype = extra_dtype(w, row)
    target, builtin = (EXTRA[w][1], EXTRA[w][2]) if w in EXTRA else (None, None)
    fuse = fuse_record(row)
    out = {"fuse": value(fuse) if fuse else None, "failed": None, "rules": {}}
    if fuse is None:
        bad = [r for i, r in row.items() if i.startswith("fuse")]
        out["failed"] = ("fuse raised: " + str(bad[0]["error"])
                         if bad and bad[0].get("error") else
                         "fuse FAILED its check" if bad else "no fuse result")
        return out
    fv = out["fuse"]
    rules = out["rules"]
    best = best_peer(row, False)
    if best and best[0] > 0:
        ratio, lim = fv / best[0], EXTRA_RULES["peer"]
        rules["peer"] = (f"{ratio:.3f}x {best[1]}", ratio >= lim,
                         f"{(1 - ratio) * 100:.1f}% slower than {best[1]} "
                         f"({fv:.0f} against {best[0]:.0f} GiB/s; the target "
                         f"is {lim:.2f}x)")
    else:
        rules["peer"] = ("no peer measured", None, "")
    ceil = copy_ceiling(by, dtype)
    lim = EXTRA_RULES["copy"]
    if ceil:
        share = fv / ceil[0]
        rules["copy"] = (f"{share * 100:.1f}% of {ceil[1]}", share >= lim,
                         f"{share * 100:.1f}% of {ceil[1]} ({fv:.0f} against "
                         f"{ceil[0]:.0f} GiB/s; the target is "
                         f"{lim * 100:.0f}%)")
    else:
        rules["copy"] = ("no copy measured", None,
                         f"no passing copy of its element type ({dtype}) in "
                         f"the run, so the {lim * 100:.0f}% rule is unchecked")
    if target is not None:
        d = (fv - target) / target
        rules["target"] = (f">= {target:g}: {d * 100:+.1f}%", d >= 0,
                           f"{-d * 100:.1f}% under the target ({fv:.0f} GiB/s "
                           f"against {target:g})")
    if builtin is not None:
        ref = fuse_record(by.get(builtin, {}))
        lim = EXTRA_RULES["builtin"]
        if ref and value(ref) > 0:
            share = fv / value(ref)
            rules["builtin"] = (f"{share * 100:.1f}% of {builtin}",
                                share >= lim,
                                f"{share * 100:.1f}% of fuse's {builtin} "
                                f"({fv:.0f} against {value(ref):.0f} GiB/s; "
                                f"the target is {lim * 100:.0f}%)")
        else:
            rules["builtin"] = (f"no fuse {builtin}", None,
                                f"no passing fuse {builtin} in the run, so "
                                f"the {lim * 100:.0f}% rule is unchecked")
    return out


EXTRA_HEADS = {
    "peer": f"fuse / best peer (>= {EXTRA_RULES['peer']:.2f}x)",
    "copy": f"of the copy (>= {EXTRA_RULES['copy'] * 100:.0f}%)",
    "target": "the issue's GiB/s",
    "builtin": f"of fuse's built-in (>= {EXTRA_RULES['builtin'] * 100:.0f}%)"}


def extra_cell(r):
    if r.get("error"):
        return "FAILED (raised)"
    return shown(value(r), False) + ("" if r["ok"] else " (FAILED check)")


def extra_table(by, skipped):
    """Markdown: every implementation of every extra workload, the best
    peer, fuse's ratio to it and its share of the copy ceiling; the copy
    ceilings; the peers not measured, by reason."""
    impls = ["fuse"] + EXTRA_PEERS
    ws = sorted((w for w in by if not w.startswith("copy_")), key=extra_rank)
    for w in ws:
        impls += [i for i in by[w] if i not in impls]
    lines = ["| workload | " + " | ".join(impls) +
             " | best peer | fuse / best | fuse / copy |",
             "|---" * (len(impls) + 4) + "|"]
    for w in ws:
        row = by[w]
        cells = [extra_cell(row[i]) if i in row else "-" for i in impls]
        best = best_peer(row, False)
        fuse = fuse_record(row)
        ceil = copy_ceiling(by, extra_dtype(w, row))
        ratio = (f"{value(fuse) / best[0]:.2f}x" if best and best[0] > 0
                 and fuse else "-")
        share = (f"{value(fuse) / ceil[0] * 100:.0f}% ({ceil[1]})"
                 if ceil and fuse else "-")
        lines.append(f"| {w} | " + " | ".join(cells) +
                     f" | {best[1] if best else '-'} | {ratio} | {share} |")
    out = "\n".join(lines) if ws else ""
    copies = []
    for w in sorted((w for w in by if w.startswith("copy_")), key=extra_rank):
        cells = ", ".join(f"{i} {extra_cell(r)}"
                          for i, r in sorted(by[w].items()))
        ceil = copy_ceiling(by, w[len("copy_"):])
        copies.append(f"- {w}: " + (f"{ceil[0]:.0f}" if ceil else
                                    "no passing copy") + f" ({cells})")
    if copies:
        out += ("\n\n" if out else "") + (
            "Copy ceilings (the best passing copy of 2^28 elements of each "
            "type, GiB/s of the bytes read and written):\n\n" +
            "\n".join(copies))
    reasons = {}
    for r in skipped:
        ws_ = reasons.setdefault(f"{r['impl']}: {r['skipped']}", [])
        if r["workload"] not in ws_:
            ws_.append(r["workload"])
    if reasons:
        out += ("\n\nNot measured (a peer that is missing, not a "
                "failure):\n\n" + "\n".join(
                    f"- {k}: " + ", ".join(sorted(v, key=extra_rank))
                    for k, v in reasons.items()))
    return out


def extra_targets(by, diag):
    """Markdown: each extra workload against its targets, then every row
    that misses one (or has nothing to hold it to), with the gap and the
    recorded cause."""
    ws = sorted((w for w in by if not w.startswith("copy_")), key=extra_rank)
    lines = ["| workload | fuse | " + " | ".join(EXTRA_HEADS.values()) +
             " | verdict |", "|---" * (len(EXTRA_HEADS) + 3) + "|"]
    notes = []
    mark = {True: "met", False: "**missed**", None: "unchecked"}
    for w in ws:
        st = extra_rules(w, by)
        if st["failed"]:
            lines.append(f"| {w} | - | " + " | ".join(
                "-" for _ in EXTRA_HEADS) + f" | **{st['failed']}** |")
            notes.append(f"- **{w}**: {st['failed']}.")
            continue
        rules = st["rules"]
        cells = ["-" if k not in rules else rules[k][0]
                 if rules[k][1] is None and k == "peer" else
                 f"{rules[k][0]} ({mark[rules[k][1]]})" for k in EXTRA_HEADS]
        # No peer is no gap (torch and CUB have no such operation); a
        # missing copy or built-in row leaves a rule unchecked.
        missed = [g for k, (_, met, g) in rules.items() if met is False]
        unchecked = [g for k, (_, met, g) in rules.items()
                     if met is None and k != "peer"]
        verdict = ("**missed**" if missed else
                   "unchecked" if unchecked else "met")
        lines.append(f"| {w} | {st['fuse']:.0f} | " + " | ".join(cells) +
                     f" | {verdict} |")
        if missed or unchecked:
            notes.append(f"- **{w}**: " + "; ".join(missed + unchecked) +
                         ". " + cause_text(diag, w))
    return with_notes(lines, notes, "Rows under a target (or with one "
                      "unchecked), with the measured gap:",
                      "Every row meets its targets.")


def extra_section(recs, skipped, diag):
    """Markdown: the "Beyond the nine" table and its targets."""
    by = {}
    for r in recs:
        by.setdefault(r["workload"], {})[r["impl"]] = r
    md = ("Beyond the nine (bench/extra_suite.py, one run; GiB/s of the "
          "bytes each job must move):\n\n" + extra_table(by, skipped))
    if any(not w.startswith("copy_") for w in by):
        md += ("\n\nTargets beyond the nine: fuse at least "
               f"{EXTRA_RULES['peer']:.2f}x the best peer, at least "
               f"{EXTRA_RULES['copy'] * 100:.0f}% of the copy ceiling of its "
               "element type (every one is memory-bound), the issue's GiB/s "
               "where it names one, and the function-combiner reductions at "
               f"least {EXTRA_RULES['builtin'] * 100:.0f}% of fuse's built-in "
               "max of the same bytes:\n\n" + extra_targets(by, diag))
    return md


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
    skipped = []
    recs = load(a.files, skipped)
    if not recs:
        sys.exit("report: no results")
    recs = merge_rounds(recs)
    # The nine (and their other shapes) as before; bench/extra_suite.py's
    # workloads in a section of their own.
    extra = [r for r in recs if is_extra(r)]
    recs = [r for r in recs if not is_extra(r)]
    diag = load_diagnoses(a.diagnoses)
    md = by = impls = None
    if recs:
        md, by, impls = table(recs)
        rounds = sorted({r["rounds"] for r in recs})
        if rounds != [1]:
            md += ("\n\nEach cell: the median of the interleaved rounds' medians "
                   "(most rounds of an implementation: "
                   + ", ".join(f"{i}: {max(r['rounds'] for r in recs if r['impl'] == i)}"
                               for i in impls) + ").")
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
    if extra:
        ex = extra_section(extra, skipped, diag)
        md = md + "\n\n" + ex if md else ex
    print(md)
    if a.md:
        with open(a.md, "w") as f:
            f.write(md + "\n")
    if a.png and by:
        chart(by, impls, a.png)


if __name__ == "__main__":
    main()
