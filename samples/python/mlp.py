"""A small MLP's forward and backward passes, for comparing a stackcap capture
with torch.profiler's view of the same program (README, "Python programs").

    stackcap -o mlp.stackcap /usr/bin/python3 samples/python/mlp.py
    /usr/bin/python3 samples/python/mlp.py --torch-profiler mlp.torch.txt

The second form runs the same steps under torch.profiler (with_stack=True)
and writes its export_stacks file (self CPU time, us).
"""
import sys

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.linear = nn.Linear(width, width)
        self.act = nn.GELU()

    def forward(self, x):
        return self.act(self.linear(x))


class MLP(nn.Module):
    def __init__(self, width=512, depth=4):
        super().__init__()
        self.blocks = nn.Sequential(*[Block(width) for _ in range(depth)])
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        return self.head(self.blocks(x))


def train_step(model, opt, x, y):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss


def main(steps=30):
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = MLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(256, 512), torch.randint(0, 10, (256,))
    for _ in range(steps):
        train_step(model, opt, x, y)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--torch-profiler":
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU], with_stack=True) as prof:
            main()
        prof.export_stacks(sys.argv[2], "self_cpu_time_total")
    else:
        main()
