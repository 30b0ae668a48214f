#!/usr/bin/env python3
"""Check a file against the Prometheus text exposition format (0.0.4):
every sample's metric has one HELP and one TYPE line before it, names and
labels are well formed, values are numbers, counters end in _total and are
not negative, and a metric's samples are contiguous. A histogram's series
(_bucket, _sum, _count) each have an le label on every bucket, bounds
rising to +Inf, cumulative counts, and the +Inf bucket equal to _count."""
import re
import sys

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*"'
SAMPLE = re.compile(r"^(%s)(\{(?:%s(?:,%s)*)?\})? (\S+)$" % (NAME, LABEL, LABEL))
HELP = re.compile(r"^# HELP (%s) (.*)$" % NAME)
TYPE = re.compile(r"^# TYPE (%s) (counter|gauge|histogram|summary|untyped)$" % NAME)


HIST_SUFFIXES = ("_bucket", "_sum", "_count")


def family(name, types):
    """The metric a sample belongs to: a histogram's for its series."""
    for suffix in HIST_SUFFIXES:
        base = name[:-len(suffix)]
        if name.endswith(suffix) and types.get(base) == "histogram":
            return base
    return name


def labels_of(text):
    return re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\.)*)"',
                      text or "")


def check_histograms(series):
    """series: {(family, labels without le): {"buckets": [(le, v)], ...}}"""
    for (name, labels), s in series.items():
        where = "%s%s" % (name, dict(labels))
        buckets = s.get("buckets", [])
        if not buckets or buckets[-1][0] != float("inf"):
            return "%s: no +Inf bucket last" % where
        for (le0, v0), (le1, v1) in zip(buckets, buckets[1:]):
            if le1 <= le0:
                return "%s: le %s after %s" % (where, le1, le0)
            if v1 < v0:
                return "%s: bucket le=%s below the one before" % (where, le1)
        if "count" not in s or "sum" not in s:
            return "%s: lacks _sum or _count" % where
        if s["count"] != buckets[-1][1]:
            return "%s: _count %s, +Inf bucket %s" % (where, s["count"],
                                                       buckets[-1][1])
    return None


def check(text):
    helps, types, done = {}, {}, set()
    series = {}
    current = None
    if not text.endswith("\n"):
        return "no final newline"
    for n, line in enumerate(text.splitlines(), 1):
        m = HELP.match(line)
        if m:
            if m.group(1) in helps:
                return "line %d: second HELP for %s" % (n, m.group(1))
            helps[m.group(1)] = m.group(2)
            continue
        m = TYPE.match(line)
        if m:
            if m.group(1) in types:
                return "line %d: second TYPE for %s" % (n, m.group(1))
            types[m.group(1)] = m.group(2)
            continue
        if line.startswith("#"):
            return "line %d: malformed comment" % n
        m = SAMPLE.match(line)
        if not m:
            return "line %d: malformed sample %r" % (n, line)
        name, value = m.group(1), m.group(3)
        metric = family(name, types)
        if metric not in helps or metric not in types:
            return "line %d: %s lacks HELP or TYPE before it" % (n, name)
        if metric != current:
            if metric in done:
                return "line %d: samples of %s are not contiguous" % (n, metric)
            if current:
                done.add(current)
            current = metric
        try:
            v = float(value)
        except ValueError:
            return "line %d: value %r is not a number" % (n, value)
        if types[metric] == "counter":
            if not name.endswith("_total"):
                return "line %d: counter %s does not end in _total" % (n, name)
            if v < 0:
                return "line %d: negative counter" % n
        if types[metric] == "histogram":
            problem = note_histogram(series, metric, name[len(metric):],
                                     labels_of(m.group(2)), v)
            if problem:
                return "line %d: %s" % (n, problem)
    if current is None:
        return "no samples"
    return check_histograms(series)


def note_histogram(series, metric, suffix, labels, v):
    if suffix not in HIST_SUFFIXES:
        return "%s is not a histogram series" % (metric + suffix)
    le = [value for key, value in labels if key == "le"]
    rest = tuple((key, value) for key, value in labels if key != "le")
    s = series.setdefault((metric, rest), {})
    if suffix != "_bucket":
        if le:
            return "le label on %s" % (metric + suffix)
        s[suffix[1:]] = v
        return None
    if len(le) != 1:
        return "a bucket without one le label"
    try:
        bound = float(le[0])
    except ValueError:
        return "le %r is not a number" % le[0]
    s.setdefault("buckets", []).append((bound, v))
    return None


def main():
    with open(sys.argv[1]) as f:
        problem = check(f.read())
    if problem:
        print("%s: %s" % (sys.argv[1], problem), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
