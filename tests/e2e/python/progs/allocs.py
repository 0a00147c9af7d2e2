# 2000 x 100 kB kept: 200 MB allocated on one line.
def make_lists():
    keep = []
    for _ in range(2000):
        keep.append(bytearray(100000))  # ALLOC_LINE
    return keep


kept = make_lists()
