"""folded.py - arithmetic on folded stacks ("frame;frame;leaf VALUE" lines,
what stackfold and memtimeline --leaks/--peak-stacks print) for run.sh.

  folded.py total FILE               the sum of all values
  folded.py share FILE NAME...       for each NAME: the percentage of the
                                     total in stacks with a frame NAME
                                     ("NAME PCT"), then "total T"
  folded.py within FILE NAME WANT_PCT TOL_PCT ...
                                     exit 0 when every NAME's share is within
                                     TOL_PCT points of WANT_PCT; prints the
                                     shares either way
  folded.py leaf FILE NAME           the sum of values of stacks whose leaf
                                     (last frame) is NAME, and how many lines
  folded.py roots FILE               the distinct root (first) frames, one a
                                     line
  folded.py has FILE NAME            exit 0 when some stack has a frame NAME
"""
import sys


def lines(path):
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            stack, _, value = line.rpartition(" ")
            out.append((stack.split(";"), int(value)))
    return out


def shares(rows, names):
    total = sum(v for _, v in rows)
    got = {}
    for name in names:
        part = sum(v for frames, v in rows if name in frames)
        got[name] = 100.0 * part / total if total else 0.0
    return got, total


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, path = argv[1], argv[2]
    rows = lines(path)
    if cmd == "total":
        print(sum(v for _, v in rows))
    elif cmd == "share":
        got, total = shares(rows, argv[3:])
        for name in argv[3:]:
            print("%s %.1f" % (name, got[name]))
        print("total %d" % total)
    elif cmd == "within":
        args = argv[3:]
        names = args[0::3]
        got, total = shares(rows, names)
        ok = total > 0
        words = []
        for i in range(0, len(args), 3):
            name, want, tol = args[i], float(args[i + 1]), float(args[i + 2])
            words.append("%s %.1f%%" % (name, got[name]))
            if abs(got[name] - want) > tol:
                ok = False
        print(" ".join(words))
        return 0 if ok else 1
    elif cmd == "leaf":
        hits = [v for frames, v in rows if frames[-1] == argv[3]]
        print(sum(hits), len(hits))
    elif cmd == "roots":
        for root in sorted({frames[0] for frames, _ in rows}):
            print(root)
    elif cmd == "has":
        return 0 if any(argv[3] in frames for frames, _ in rows) else 1
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
