#!/usr/bin/env python3
"""Runs a GPU kernel function of pt2c on the CPU, from its MLIR after
pt2c-lower-fused-ops-to-gpu in generic form (`pt2c-opt ... --mlir-print-op-generic`):
every thread of every block is a Python generator that yields at gpu.barrier (all threads
of the block wait there) and at gpu.shuffle (the lanes of a 32-lane warp meet), so that
barriers and shuffles behave as on the GPU. It checks the kernels' index arithmetic,
staging, synchronization and numerics on a machine without a GPU; it is slow (some
hundred thousand ops a second), so the problems it is given are small.

Only the ops the fused kernels use are known (arith, math.exp, memref.load/store on
function arguments and workgroup memory, scf.for/if/yield, gpu.launch/barrier/shuffle
xor/terminator, func.return) and only f32 data; any other op is an error.

    gpu_interpreter.py KERNEL.mlir --function NAME ARG.npy... --out OUT.npy [--reverse]

ARG.npy are the function's memref arguments but the last, in order (the last, the
result, is allocated and written to OUT.npy). test_gpu_interpreted.py uses run_kernel.
"""
import argparse
import math
import re
import sys

import numpy as np

WARP = 32

OP = re.compile(r'^\s*(?:(%[\w]+)(?::(\d+))? = )?"([\w.]+)"\((.*?)\)(.*)$')
BLOCK = re.compile(r'^\s*\^bb\d+(?:\((.*)\))?:\s*$')


class Op:
    def __init__(self, name, results, operands, rest):
        self.name, self.results, self.operands, self.rest = name, results, operands, rest
        self.regions = []


def parse(lines, i):
    """Parses ops from lines[i] until a region's end; returns (blocks, next line)."""
    blocks = [([], [])]  # (block args, ops)
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped:
            i += 1
            continue
        if stripped.startswith("})") or stripped.startswith("}, {") or stripped == "}":
            return blocks, i
        m = BLOCK.match(line)
        if m:
            args = re.findall(r"(%[\w]+):", m.group(1) or "")
            if blocks[-1][1] or blocks[-1][0]:
                blocks.append((args, []))
            else:
                blocks[-1] = (args, [])
            i += 1
            continue
        m = OP.match(line)
        if not m:
            raise SyntaxError("line %d: %s" % (i + 1, line))
        name, count = m.group(1), m.group(2)
        results = ([name] if count is None else ["%s#%d" % (name, k) for k in range(int(count))]
                   if name else [])
        operands = [o.strip() for o in m.group(4).split(",") if o.strip()]
        op = Op(m.group(3), results, operands, m.group(5))
        blocks[-1][1].append(op)
        i += 1
        op.header = lines[i] if i < len(lines) else ""  # a region's block arguments
        if m.group(5).rstrip().endswith("({"):
            while True:
                region, i = parse(lines, i)
                op.regions.append(region)
                if lines[i].strip().startswith("}, {"):
                    i += 1
                    continue
                i += 1  # the "}) : ..." line
                break
    return blocks, i


def attr(op, key):
    m = re.search(key + r" = ([^,}>]+)", op.rest)
    return m.group(1).strip() if m else None


def constant(op):
    text = attr(op, "value")
    value, _, kind = text.partition(":")
    value, kind = value.strip(), kind.strip()
    if kind == "f32":
        if value.startswith("0x"):
            return np.frombuffer(int(value, 16).to_bytes(4, "little"), np.float32)[0]
        return np.float32(float(value))
    if value in ("true", "false"):
        return value == "true"
    return int(value)


CMPI = {0: lambda a, b: a == b, 1: lambda a, b: a != b, 6: lambda a, b: a < b,
        7: lambda a, b: a <= b, 8: lambda a, b: a > b, 9: lambda a, b: a >= b,
        2: lambda a, b: a < b, 3: lambda a, b: a <= b, 4: lambda a, b: a > b,
        5: lambda a, b: a >= b}
CMPF = {1: lambda a, b: a == b, 2: lambda a, b: a > b, 3: lambda a, b: a >= b,
        4: lambda a, b: a < b, 5: lambda a, b: a <= b, 6: lambda a, b: a != b}
BINARY = {
    "arith.addi": lambda a, b: a + b, "arith.muli": lambda a, b: a * b,
    "arith.subi": lambda a, b: a - b, "arith.divui": lambda a, b: a // b,
    "arith.remui": lambda a, b: a % b, "arith.minui": min, "arith.maxui": max,
    # Signed division truncates toward zero, Python's // floors.
    "arith.divsi": lambda a, b: abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1),
    "arith.remsi": lambda a, b: abs(a) % abs(b) * (-1 if a < 0 else 1),
    "arith.andi": lambda a, b: a and b, "arith.ori": lambda a, b: a or b,
    "arith.addf": lambda a, b: np.float32(a + b), "arith.mulf": lambda a, b: np.float32(a * b),
    "arith.subf": lambda a, b: np.float32(a - b), "arith.divf": lambda a, b: np.float32(a / b),
    "arith.maximumf": lambda a, b: np.float32(max(a, b)),
}


class Thread:
    def __init__(self, memory):
        self.env, self.memory = {}, memory

    def run(self, blocks, args):
        """Runs a region's first block with `args`; yields at barriers and shuffles;
        returns the values of its terminator."""
        block_args, ops = blocks[0]
        for name, value in zip(block_args, args):
            self.env[name] = value
        env = self.env
        for op in ops:
            n = op.name
            if n == "arith.constant":
                env[op.results[0]] = constant(op)
            elif n in BINARY:
                env[op.results[0]] = BINARY[n](env[op.operands[0]], env[op.operands[1]])
            elif n == "arith.cmpi":
                env[op.results[0]] = CMPI[int(attr(op, "predicate").split(":")[0])](
                    env[op.operands[0]], env[op.operands[1]])
            elif n == "arith.cmpf":
                env[op.results[0]] = CMPF[int(attr(op, "predicate").split(":")[0])](
                    env[op.operands[0]], env[op.operands[1]])
            elif n == "arith.select":
                c, a, b = (env[o] for o in op.operands)
                env[op.results[0]] = a if c else b
            elif n == "arith.index_cast":
                env[op.results[0]] = env[op.operands[0]]
            elif n == "math.exp":
                env[op.results[0]] = np.float32(math.exp(env[op.operands[0]])
                                                if env[op.operands[0]] != -np.inf else 0.0)
            elif n == "memref.load":
                buffer = self.memory[op.operands[0]]
                env[op.results[0]] = buffer[tuple(env[o] for o in op.operands[1:])]
            elif n == "memref.store":
                buffer = self.memory[op.operands[1]]
                buffer[tuple(env[o] for o in op.operands[2:])] = env[op.operands[0]]
            elif n == "scf.for":
                lb, ub, step = (env[o] for o in op.operands[:3])
                carried = [env[o] for o in op.operands[3:]]
                for iv in range(lb, ub, step):
                    carried = yield from self.run(op.regions[0], [iv] + carried)
                for name, value in zip(op.results, carried):
                    env[name] = value
            elif n == "scf.if":
                region = op.regions[0] if env[op.operands[0]] else (
                    op.regions[1] if len(op.regions) > 1 else None)
                values = []
                if region is not None and region[0][1]:
                    values = yield from self.run(region, [])
                for name, value in zip(op.results, values):
                    env[name] = value
            elif n in ("scf.yield", "gpu.terminator", "func.return"):
                return [env[o] for o in op.operands]
            elif n == "gpu.barrier":
                yield ("barrier",)
            elif n == "gpu.shuffle":
                if "xor" not in op.rest:
                    raise NotImplementedError("gpu.shuffle other than xor")
                value, offset, width = (env[o] for o in op.operands)
                result = yield ("shuffle", value, offset, width)
                env[op.results[0]], env[op.results[1]] = result, True
            else:
                raise NotImplementedError(n)
        return []


def run_block(launch, base_env, memory, block_ids, grid, threads, reverse):
    """Runs one block of `launch` to the end, its threads in lockstep at barriers and,
    per warp, at shuffles; between those, one thread after another, the last first when
    `reverse` (a race between threads then shows as a difference between the orders)."""
    shared = {}
    block_args = launch.regions[0][0][0]
    workgroup = block_args[12:]
    for name in workgroup:
        size = int(re.search(re.escape(name) + r": memref<(\d+)x", launch.header).group(1))
        shared[name] = np.full(size, np.nan, np.float32)  # uninitialized: NaN shows reads
    gens = []
    for t in range(threads):
        thread = Thread({**memory, **shared})
        thread.env.update(base_env)
        ids = list(block_ids) + [t, 0, 0] + list(grid) + [threads, 1, 1] + [None] * len(workgroup)
        gens.append(thread.run(launch.regions[0], ids))
    states = [None] * threads  # where each thread waits: ("barrier",) or ("shuffle", ...)
    pending = [None] * threads  # what each thread gets when resumed
    alive, runnable = set(range(threads)), list(range(threads))
    while True:
        for t in (reversed(runnable) if reverse else runnable):
            try:
                states[t] = gens[t].send(pending[t])
            except StopIteration:
                alive.discard(t)
            pending[t] = None
        if not alive:
            return
        if all(states[t][0] == "barrier" for t in alive):
            runnable = sorted(alive)
            continue
        runnable = []
        for warp in range(0, threads, WARP):
            lanes = [t for t in range(warp, warp + WARP) if t in alive]
            if len(lanes) != WARP or any(states[t][0] != "shuffle" for t in lanes):
                continue
            for t in lanes:
                offset = states[t][2]
                pending[t] = states[warp + ((t - warp) ^ offset)][1]
            runnable += lanes
        if not runnable:
            raise RuntimeError("block %s: threads wait at barriers and shuffles that never "
                               "complete" % (block_ids,))


def run_kernel(text, function, arrays, reverse=False):
    """Runs kernel function `function` of the generic-form MLIR `text` on `arrays` (its
    memref arguments but the result, in order); returns the result, NaN where nothing
    was stored."""
    lines = text.splitlines()
    blocks, _ = parse(lines, 0)
    module = blocks[0][1][0]
    func = next(op for op in module.regions[0][0][1]
                if op.name == "func.func" and 'sym_name = "%s"' % function in op.rest)
    func_args, body = func.regions[0][0]
    result_shape = re.findall(r"memref<([\dx]+)xf32>", func.rest)[-1]
    result = np.full([int(d) for d in result_shape.split("x")], np.nan, np.float32)
    memory = dict(zip(func_args, [np.asarray(a, np.float32) for a in arrays] + [result]))
    env = {}
    for op in body:
        if op.name == "arith.constant":
            env[op.results[0]] = constant(op)
        elif op.name == "gpu.launch":
            gx, gy, gz, bx, _, _ = (env[o] for o in op.operands)
            for z in range(gz):
                for y in range(gy):
                    for x in range(gx):
                        run_block(op, env, memory, (x, y, z), (gx, gy, gz), bx, reverse)
        elif op.name == "func.return":
            break
        else:
            raise NotImplementedError("outside the launch: " + op.name)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kernel")
    parser.add_argument("--function", required=True)
    parser.add_argument("args", nargs="*")
    parser.add_argument("--out", required=True)
    parser.add_argument("--reverse", action="store_true",
                        help="run the threads between synchronizations last first")
    options = parser.parse_intermixed_args()
    arrays = [np.load(path) for path in options.args]
    result = run_kernel(open(options.kernel).read(), options.function, arrays, options.reverse)
    np.save(options.out, result)


if __name__ == "__main__":
    sys.exit(main())
