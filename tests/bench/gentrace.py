#!/usr/bin/env python3
"""Writes a synthetic torch Chrome/Kineto trace of about BYTES bytes to
stdout, shaped like kineto's own output (one event per line, its key order
and args): training steps of Python frames, nested aten ops, kernel
launches with their kernels and ac2g flows, and [memory] events. Times are
ns-resolution decimals relative to baseTimeNanoseconds. Used by bench.sh
only (make bench): a stand-in for the 1-2 GB traces users have.

Usage: gentrace.py BYTES
"""
import sys

target = int(sys.argv[1])
out = sys.stdout
KERNEL = ("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<"
          "at::native::CUDAFunctor_add<float> >(at::TensorIteratorBase&, "
          "at::native::CUDAFunctor_add<float> const&)::{lambda(int)#1}>(int, "
          "at::native::gpu_kernel_impl<at::native::CUDAFunctor_add<float> >("
          "at::TensorIteratorBase&, at::native::CUDAFunctor_add<float> const&)::{lambda(int)#1})")
GEMM = "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas"
PID, TID = 1102, 1102

head = ('{\n  "schemaVersion": 1,\n  "deviceProperties": [\n    {"id": 0, "name": "NVIDIA H100", '
        '"totalGlobalMem": 85045395456, "computeMajor": 9, "computeMinor": 0, "numSms": 132}\n  ],\n'
        '  "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8},\n'
        '  "record_shapes": 1,\n  "profile_memory": 1,\n  "with_stack": 1,\n'
        '  "traceEvents": [\n')
out.write(head)
written = len(head)
ts = 95777561663102  # ns
corr = 1000
ext = 1
step = 0
first = True


def x(cat, name, pid, tid, t, dur, args):
    return ('  {\n    "ph": "X", "cat": "%s", "name": "%s", "pid": %s, "tid": %s,\n'
            '    "ts": %d.%03d, "dur": %d.%03d,\n    "args": {\n%s\n    }\n  }'
            % (cat, name, pid, tid, t // 1000, t % 1000, dur // 1000, dur % 1000, args))


while written < target:
    lines = []
    t0 = ts
    lines.append(x("user_annotation", "ProfilerStep#%d" % step, PID, TID, t0, 900000,
                   '      "External id": %d, "Record function id": 0, "Ev Idx": %d' % (ext, ext)))
    t = t0 + 1000
    for layer in range(8):
        py = x("python_function", "torch/nn/modules/linear.py(116): forward", PID, TID, t, 100000,
               '      "Python parent id": %d, "Python id": %d, "Ev Idx": %d' % (ext, ext + 1, ext + 2))
        lines.append(py)
        for k, (op, kname) in enumerate((("aten::linear", GEMM), ("aten::add", KERNEL))):
            ext += 1
            corr += 1
            ot = t + 1000 + k * 45000
            lines.append(x("cpu_op", op, PID, TID, ot, 40000,
                           '      "External id": %d, "Record function id": 0, "Ev Idx": %d,\n'
                           '      "Input Dims": [[64, 1024], [1024, 1024], [1024]],\n'
                           '      "Input type": ["float", "float", "float"],\n'
                           '      "Input Strides": [[1024, 1], [1, 1024], [1]],\n'
                           '      "Concrete Inputs": ["", "", ""]' % (ext, ext)))
            lines.append(x("cuda_runtime", "cudaLaunchKernel", PID, TID, ot + 5000, 7123,
                           '      "External id": %d, "cbid": 211, "correlation": %d' % (ext, corr)))
            lines.append('  {\n    "ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %d.%03d,\n'
                         '    "cat": "ac2g", "name": "ac2g"\n  }' % (corr, PID, TID, (ot + 5000) // 1000, (ot + 5000) % 1000))
            kt = ot + 20000
            lines.append(x("kernel", kname, 0, 7, kt, 33417,
                           '      "External id": %d, "queued": 0, "device": 0, "context": 1,\n'
                           '      "stream": 7, "correlation": %d, "registers per thread": 168,\n'
                           '      "shared memory": 213248, "blocks per SM": 0.484848, "warps per SM": 1.939394,\n'
                           '      "grid": [64, 1, 1], "block": [384, 1, 1], "est. achieved occupancy %%": 3'
                           % (ext, corr)))
            lines.append('  {\n    "ph": "f", "id": %d, "pid": 0, "tid": 7, "ts": %d.%03d,\n'
                         '    "cat": "ac2g", "name": "ac2g", "bp": "e"\n  }' % (corr, kt // 1000, kt % 1000))
            lines.append('  {\n    "ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",\n'
                         '    "pid": %d, "tid": %d,\n    "ts": %d.%03d,\n    "args": {\n'
                         '      "Total Reserved": 1910505472, "Total Allocated": 795438592, "Bytes": 262144, '
                         '"Addr": %d, "Device Id": 0, "Device Type": 1, "Ev Idx": %d\n    }\n  }'
                         % (PID, TID, (ot + 2000) // 1000, (ot + 2000) % 1000, 139620000000000 + ext * 4096, ext))
        t += 110000
        ext += 3
    text = (",\n" if not first else "") + ",\n".join(lines)
    first = False
    out.write(text)
    written += len(text)
    ts += 1000000
    step += 1
tail = '\n  ],\n  "traceName": "bench.pt.trace.json",\n  "displayTimeUnit": "ms",\n  "baseTimeNanoseconds": 1727740800000000000\n}\n'
out.write(tail)
