"""pycheck.py - questions about the stacks `capfile.py folded` prints
("frame;frame;... WEIGHT", root first; Python frames as
"py:QUALNAME:LINE@FILE", native ones as their module's file name), for
run.sh. Each prints its answer; "weight" is the sum of matching stacks.

  pycheck.py shares FILE NAME...     each NAME's percentage of the weight
                                     of stacks holding any of the NAMEs
  pycheck.py hotline FILE NAME       the line of NAME's frames with most
                                     weight
  pycheck.py lines FILE NAME         NAME's distinct lines, sorted
  pycheck.py depth FILE NAME         the most NAME frames in one stack
  pycheck.py below FILE NAME MODULE  weight of stacks with a MODULE* frame
                                     leafward of a NAME frame
  pycheck.py through FILE A B        weight of stacks with a native frame
                                     between a frame of A and one of B
                                     (leafward), with no Python frame between
  pycheck.py first FILE NAME         weight of stacks whose rootmost Python
                                     frame is NAME
  pycheck.py total FILE              all the weight; then the weight of
                                     stacks with a Python frame
"""
import sys


def stacks(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            stack, _, w = line.rstrip("\n").rpartition(" ")
            if stack:
                yield stack.split(";"), int(w)


def py(frame):
    """(qualname, line) of a Python frame, else None."""
    if not frame.startswith("py:"):
        return None
    qual, line = frame[3:].split("@", 1)[0].rsplit(":", 1)
    return qual, int(line)


def is_name(frame, name):
    p = py(frame)
    return p is not None and p[0] == name


def main(argv):
    cmd, path, args = argv[1], argv[2], argv[3:]
    data = list(stacks(path))
    if cmd == "shares":
        w = {n: sum(v for s, v in data if any(is_name(f, n) for f in s)) for n in args}
        total = sum(w.values()) or 1
        print(" ".join("%s %.1f" % (n, 100.0 * w[n] / total) for n in args))
    elif cmd in ("hotline", "lines"):
        by_line = {}
        for s, v in data:
            for ln in {py(f)[1] for f in s if is_name(f, args[0])}:
                by_line[ln] = by_line.get(ln, 0) + v
        if cmd == "lines":
            print(" ".join(str(ln) for ln in sorted(by_line)))
        elif by_line:
            print(max(by_line, key=by_line.get))
    elif cmd == "depth":
        print(max([sum(is_name(f, args[0]) for f in s) for s, _ in data] or [0]))
    elif cmd == "below":
        w = 0
        for s, v in data:
            at = [i for i, f in enumerate(s) if is_name(f, args[0])]
            if at and any(f.startswith(args[1]) for f in s[at[-1] + 1 :]):
                w += v
        print(w)
    elif cmd == "through":
        w = 0
        for s, v in data:
            for i, f in enumerate(s):
                if not is_name(f, args[0]):
                    continue
                j = i + 1
                while j < len(s) and py(s[j]) is None:
                    j += 1
                if j > i + 1 and j < len(s) and is_name(s[j], args[1]):
                    w += v
                    break
        print(w)
    elif cmd == "first":
        print(sum(v for s, v in data if next((py(f)[0] for f in s if py(f)), None) == args[0]))
    elif cmd == "total":
        print(sum(v for _, v in data), sum(v for s, v in data if any(py(f) for f in s)))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
