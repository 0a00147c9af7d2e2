# A small model's forward for 1 s of CPU: its Python frames (train_step,
# Module._call_impl, Block.forward, Linear.forward) above libtorch's.
import time

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(256, 256)
        self.act = nn.GELU()

    def forward(self, x):
        return self.act(self.linear(x))


def train_step(model, x):
    with torch.no_grad():
        return model(x)


torch.set_num_threads(1)
model = Block()
x = torch.randn(256, 256)
end = time.thread_time() + 1.0
while time.thread_time() < end:
    train_step(model, x)
