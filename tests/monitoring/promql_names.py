"""The metric and label names a PromQL expression uses, by its tokens (no full parser: promtool
parses the expressions; this only has to tell names apart)."""
import re

TOKEN = re.compile(r'\s+|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|`[^`]*`|[0-9][0-9a-zA-Z.]*'
                   r'|[a-zA-Z_:][a-zA-Z0-9_:]*|=~|!~|!=|==|>=|<=|[-+*/%^(){}\[\],=<>@]')
GROUPING = {"by", "without", "on", "ignoring", "group_left", "group_right"}
# Aggregators may be followed by a grouping clause instead of "(".
AGGREGATORS = {"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk",
               "topk", "quantile", "limitk", "limit_ratio"}
KEYWORDS = GROUPING | AGGREGATORS | {"bool", "and", "or", "unless", "offset", "atan2", "start", "end", "inf", "nan"}
MATCH_OPS = {"=", "!=", "=~", "!~"}


def tokens(expr):
    out, pos = [], 0
    while pos < len(expr):
        m = TOKEN.match(expr, pos)
        if not m:
            raise ValueError(f"cannot read {expr[pos:]!r} in {expr!r}")
        if not m.group().isspace():
            out.append(m.group())
        pos = m.end()
    return out


def names(expr):
    """(metric names, label names) used in expr."""
    metrics, labels = set(), set()
    toks = tokens(expr)
    in_braces = in_brackets = False
    i = 0
    while i < len(toks):
        t = toks[i]
        nxt = toks[i + 1] if i + 1 < len(toks) else ""
        ident = re.fullmatch(r"[a-zA-Z_:][a-zA-Z0-9_:]*", t) is not None
        if t == "{":
            in_braces = True
        elif t == "}":
            in_braces = False
        elif t == "[":
            in_brackets = True
        elif t == "]":
            in_brackets = False
        elif in_brackets:
            pass
        elif in_braces:
            if ident and nxt in MATCH_OPS:
                labels.add(t)
        elif t.lower() in GROUPING and nxt == "(":
            j = i + 2
            while j < len(toks) and toks[j] != ")":
                if toks[j] != ",":
                    labels.add(toks[j])
                j += 1
            i = j
        elif ident and nxt != "(" and t.lower() not in KEYWORDS:
            metrics.add(t)
        i += 1
    return metrics, labels
