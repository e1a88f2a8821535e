"""The MLIR text of scripts/gen-pipelines.py's programs, parsed for
scripts/pipeline_torch.py: the one func.func's arguments, ops (regions kept
as their lines) and returns, region bodies, tensor types and constants.
The generator's grammar is small and regular; a line it does not write is
reported as Untranslatable, never guessed."""
import collections
import re
import struct

FLOAT = ("f16", "bf16", "f32", "f64")
WIDTH = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "f16": 16,
         "bf16": 16, "f32": 32, "f64": 64}

Op = collections.namedtuple("Op", "results name head sig body")


class Untranslatable(Exception):
    """An op without a faithful torch form; the message is the reason
    (stable wording: the sweep counts programs by it)."""


# -- parsing ------------------------------------------------------------------
TYPE_RE = re.compile(r"tensor<((?:[?\d]+x)*)(\w+)>")
NAME_RE = re.compile(r"%([\w$.-]+)")


def parse_type(t):
    """(element type, dims) of a tensor type, dims None for a scalar."""
    m = TYPE_RE.fullmatch(t.strip())
    if not m:
        return t.strip(), None
    dims = [None if d == "?" else int(d) for d in m.group(1).split("x")[:-1]]
    return m.group(2), dims


def split_top(s, sep):
    """s split at each `sep` outside () [] <>."""
    out, depth, cur, i = [], 0, "", 0
    while i < len(s):
        if depth == 0 and s.startswith(sep, i):
            out.append(cur)
            cur, i = "", i + len(sep)
            continue
        if s.startswith("->", i):  # not a closing bracket
            cur, i = cur + "->", i + 2
            continue
        c = s[i]
        depth += c in "([<"
        depth -= c in ")]>"
        cur, i = cur + c, i + 1
    return out + [cur]


def parse(text):
    """(args [(name, type)], ops [Op], returns [name]) of the one
    func.func in text; regions are kept as their stripped lines."""
    lines = [l.strip() for l in text.splitlines()]
    lines = [l for l in lines if l and not l.startswith("//")]
    args, ops, rets, i = None, [], None, 0
    while i < len(lines):
        l = lines[i]
        i += 1
        if l.startswith("func.func"):
            inner = l[l.index("(") + 1:l.index(") ->")]
            args = [(a.split(":")[0].strip()[1:], a.split(":", 1)[1].strip())
                    for a in split_top(inner, ", ") if a.strip()]
        elif l.startswith("return"):
            rets = NAME_RE.findall(split_top(l, " : ")[0])
        elif l == "}":
            continue
        else:
            m = re.match(r"((?:%[\w$.-]+, )*%[\w$.-]+) = ([\w.]+)\s*(.*)$", l)
            if not m:
                raise Untranslatable(f"unparsed line: {l[:60]}")
            res, name, rest = NAME_RE.findall(m.group(1)), m.group(2), \
                m.group(3)
            body = None
            if rest.endswith("{"):
                rest, body = rest[:-1].rstrip(), []
                while lines[i] != "}":
                    body.append(lines[i])
                    i += 1
                i += 1
            if name == "arith.constant":
                head, _, sig = rest.partition(" : ")
            else:
                parts = split_top(" " + rest, " : ")
                head, sig = parts[0], " : ".join(parts[1:])
            ops.append(Op(res, name, head.strip(), sig.strip(), body))
    if args is None or rets is None:
        raise Untranslatable("no func.func with a return")
    return args, ops, rets


def parse_body(body):
    """(block arg names, [(results, op name, operands, pred, types)],
    yields) of a region's lines."""
    m = re.match(r"\^\w+\((.*)\):$", body[0])
    blk = [a.split(":")[0].strip()[1:] for a in split_top(m.group(1), ", ")
           if a.strip()] if m else []
    ops, yields = [], []
    for l in body[1:]:
        l = re.sub(r" fastmath<[^>]*>", "", l)
        if l.startswith("fuse.yield"):
            yields = NAME_RE.findall(l.split(" : ")[0])
            continue
        m = re.match(r"((?:%[\w$.-]+, )*%[\w$.-]+) = ([\w.]+)\s*(.*)$", l)
        if not m:
            raise Untranslatable(f"unparsed body line: {l[:60]}")
        head, _, typ = m.group(3).rpartition(" : ")
        if m.group(2) == "arith.constant":
            head, _, typ = m.group(3).partition(" : ")
        words = head.split()
        pred = words[0].rstrip(",") if words and not words[0].startswith(
            "%") else None
        ops.append((NAME_RE.findall(m.group(1)), m.group(2),
                    NAME_RE.findall(head), pred if m.group(2) !=
                    "arith.constant" else head.strip(), typ.strip()))
    return blk, ops, yields


# -- constants ----------------------------------------------------------------
def const_value(text, dt):
    """A constant's literal as a Python value of dt (hex floats are bit
    patterns; integers wrap to the width, as signed)."""
    text = text.strip()
    if dt == "i1":
        return text in ("true", "1", "-1")
    if dt in FLOAT:
        if not text.lower().startswith("0x"):
            return float(text)
        bits = int(text, 16)
        if dt == "bf16":
            bits, dt = bits << 16, "f32"
        fmt = {"f16": "<e", "f32": "<f", "f64": "<d"}[dt]
        ufmt = {"f16": "<H", "f32": "<I", "f64": "<Q"}[dt]
        return struct.unpack(fmt, struct.pack(ufmt, bits))[0]
    w = WIDTH.get(dt, 64)
    v = int(text, 0) % (1 << w)
    return v - (1 << w) if v >= 1 << (w - 1) else v


def py_literal(v):
    if isinstance(v, float) and v != v:
        return 'float("nan")'
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return f'float("{v}")'
    return repr(v)
