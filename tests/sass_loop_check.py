#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Local-memory accesses inside the loops of named device functions, read from the SASS that
ptxas made (docs/gpu.md "Top-p over a sorted scratch", "Reading the SASS").

A loop here is a backward branch: the instructions from its target to the branch. An LDL or STL
inside a loop is a stack-frame access at every iteration; in a sequential loop (top_p's walk,
thread 0 alone while 1023 threads evict the L1 with their own frames) each one can cost an L2
round trip an iteration, which no count of the emulator sees. The check fails when a loop of a
function whose symbol contains FUNCTION holds one, or when no such function is found. FUNCTION
may be several parts joined by '*', which the symbol must contain in that order: an out-of-line
function's symbol in the listing is its kernel's, '$', then its own, so that
'FastSamplingSlicesKernel*SumBeforeProposals' names one kernel's copy of a function that
another kernel, with fewer registers, compiles too.

The cubin is the sm_<arch> image nvcc embedded in the CUDA runner's object (read as
kernel_occupancy_check.py reads it); nvdisasm -c disassembles it. CUDA 13's nvdisasm reads that
image as it is; an older one (Debian's nvidia-cuda-toolkit 11.8, non-free) refuses CUDA 12.8+'s
ELF header, which --old-header rewrites to the CUDA 11 form (OS/ABI 0x33, ABI version 7,
e_flags sm | 0x500 | sm << 16) in a temporary copy; the code is unchanged.

Usage: sass_loop_check.py OBJECT FUNCTION [--arch 90] [--nvdisasm PATH] [--old-header] [--list]
       sass_loop_check.py --sass FILE FUNCTION [--list]   (a listing already made by nvdisasm -c)
  --list: print every loop of the matching functions (always printed on a failure).
Exit 0 when no loop of a matching function touches local memory, 1 otherwise, 2 on a usage
error or when nvdisasm fails.
"""
import os
import re
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernel_occupancy_check import cubins  # noqa: E402

LOCAL = re.compile(r"\b(LDL|STL)\b")
INSTRUCTION = re.compile(r"/\*[0-9a-f]+\*/\s+(.*?)\s*;")
LABEL = re.compile(r"^\s*(\.L_x_\d+):")
FUNCTION_LABEL = re.compile(r"^(\$?[_A-Za-z0-9$.]*_Z[_A-Za-z0-9$.]*):\s*$")
BRANCH = re.compile(r"\bBRA\b.*`\((\.L_x_\d+)\)")


def functions(sass):
    """{symbol: [instruction or label + ':']} for every function of an nvdisasm -c listing."""
    out, current = {}, None
    for line in sass.splitlines():
        m = FUNCTION_LABEL.match(line)
        if m:
            current = out.setdefault(m.group(1), [])
            continue
        if line.startswith("//---"):  # a new section: its function label follows
            current = None
            continue
        if current is None:
            continue
        m = LABEL.match(line)
        if m:
            current.append(m.group(1) + ":")
            continue
        m = INSTRUCTION.search(line)
        if m:
            current.append(m.group(1))
    return out


def loops(body):
    """[(first, last, instructions)] for every backward branch of one function."""
    labels, instructions = {}, []
    for item in body:
        if item.endswith(":"):
            labels[item[:-1]] = len(instructions)
        else:
            instructions.append(item)
    found = []
    for i, ins in enumerate(instructions):
        m = BRANCH.search(ins)
        if m and m.group(1) in labels and labels[m.group(1)] <= i:
            first = labels[m.group(1)]
            found.append((first, i, instructions[first:i + 1]))
    return found


def matches(name, function):
    """Whether the symbol holds FUNCTION's '*'-joined parts, in order."""
    at = 0
    for part in function.split("*"):
        at = name.find(part, at)
        if at < 0:
            return False
        at += len(part)
    return True


def check_sass(sass, function, listing=False, out=sys.stdout):
    """The problems (empty: no loop of a matching function touches local memory)."""
    matching = {name: body for name, body in functions(sass).items() if matches(name, function)}
    if not matching:
        return [f"no function whose symbol contains {function!r} in the listing"]
    problems, lines = [], []
    for name, body in sorted(matching.items()):
        for first, last, xs in loops(body):
            local = [x for x in xs if LOCAL.search(x)]
            lines.append(f"  {name[-80:]}: loop {first}-{last}, {len(xs)} instructions, "
                         f"{len(local)} local-memory accesses")
            if local:
                problems.append(f"{name}: loop {first}-{last} accesses local memory: " + "; ".join(local[:4]))
    if listing or problems:
        print(f"{len(matching)} functions match {function!r}:", file=out)
        for line in lines:
            print(line, file=out)
    return problems


def old_header(image):
    """The image with the CUDA 11 form of the ELF header an older nvdisasm reads."""
    flags, = struct.unpack_from("<I", image, 0x30)
    if image[7] != 0x41:  # already the old form
        return image
    sm = (flags >> 8) & 0xFF
    patched = bytearray(image)
    patched[7], patched[8] = 0x33, 7
    struct.pack_into("<I", patched, 0x30, sm | 0x500 | sm << 16)
    return bytes(patched)


def disassemble(object_path, arch, nvdisasm, patch):
    with open(object_path, "rb") as f:
        images = cubins(f.read(), arch, object_path)
    if not images:
        raise ValueError(f"{object_path}: no sm_{arch} cubin in its .nv_fatbin")
    listings = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, image in enumerate(images):
            path = os.path.join(tmp, f"image{k}.cubin")
            with open(path, "wb") as f:
                f.write(old_header(image) if patch else image)
            run = subprocess.run([nvdisasm, "-c", path], capture_output=True, text=True)
            if run.returncode != 0:
                raise ValueError(f"{nvdisasm} -c failed on the sm_{arch} image of {object_path}: "
                                 f"{run.stderr.strip()} (an nvdisasm older than CUDA 12.8 needs --old-header)")
            listings.append(run.stdout)
    return "\n".join(listings)


def main(argv):
    args, flags = [], {"--arch": "90", "--nvdisasm": "nvdisasm", "--sass": None}
    listing = patch = False
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in flags and i + 1 < len(argv):
            flags[a] = argv[i + 1]
            i += 2
            continue
        if a == "--list":
            listing = True
        elif a == "--old-header":
            patch = True
        elif a.startswith("--"):
            print(f"sass_loop_check: unknown option {a}", file=sys.stderr)
            return 2
        else:
            args.append(a)
        i += 1
    expected = 1 if flags["--sass"] else 2
    if len(args) != expected:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        if flags["--sass"]:
            with open(flags["--sass"]) as f:
                sass = f.read()
        else:
            sass = disassemble(args[0], int(flags["--arch"]), flags["--nvdisasm"], patch)
    except (OSError, ValueError) as e:
        print(f"sass_loop_check: {e}", file=sys.stderr)
        return 2
    problems = check_sass(sass, args[-1], listing)
    for p in problems:
        print(f"sass_loop_check: {p}", file=sys.stderr)
    if not problems:
        print(f"sass_loop_check: no loop of the functions matching {args[-1]!r} touches local memory")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
