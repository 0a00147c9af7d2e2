"""A small MLP's forward and backward passes, for comparing a stackcap capture
with torch.profiler's view of the same program (README, "Python programs").

    stackcap -o mlp.stackcap /usr/bin/python3 samples/python/mlp.py
    /usr/bin/python3 samples/python/mlp.py --torch-profiler mlp.torch.txt

The second form runs the same steps under torch.profiler (with_stack=True)
and writes its export_stacks file (self CPU time, us).

On a GPU (--device cuda) one warm-up step runs first, then the steps inside
torch.cuda.profiler.start()/stop(), which `stackcap --capture-range
cuda-profiler-api` records; --torch-trace FILE profiles the same steps with
torch.profiler (CPU and CUDA) and writes its Chrome trace instead.
"""
import argparse

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


def setup(device):
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = MLP().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(256, 512).to(device)
    y = torch.randint(0, 10, (256,)).to(device)
    return model, opt, x, y


def main(steps=30):
    model, opt, x, y = setup("cpu")
    for _ in range(steps):
        train_step(model, opt, x, y)


def main_cuda(steps, trace=None):
    model, opt, x, y = setup("cuda")
    train_step(model, opt, x, y)  # warm-up: cuBLAS handles, workspaces
    torch.cuda.synchronize()
    if trace:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(steps):
                train_step(model, opt, x, y)
            torch.cuda.synchronize()
        prof.export_chrome_trace(trace)
        return
    torch.cuda.profiler.start()
    for _ in range(steps):
        train_step(model, opt, x, y)
    torch.cuda.synchronize()
    torch.cuda.profiler.stop()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--torch-profiler", metavar="FILE", help="export_stacks of a CPU run")
    ap.add_argument("--torch-trace", metavar="FILE", help="Chrome trace of a CUDA run")
    args = ap.parse_args()
    if args.device == "cuda":
        main_cuda(args.steps, args.torch_trace)
    elif args.torch_profiler:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU], with_stack=True) as prof:
            main(args.steps)
        prof.export_stacks(args.torch_profiler, "self_cpu_time_total")
    else:
        main(args.steps)
