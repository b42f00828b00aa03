#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The cost model's blocks per SM (gpu/cost/kernel_occupancy_sm90.inc) against the built kernels
(docs/gpu.md "Cost model", "Occupancy").

Reads the sm_90 cubin that nvcc embedded in the CUDA runner's object (the host ELF's .nv_fatbin
section), takes every KernelEntry's resource usage from the cubin's own records -- the ones
`cuobjdump --dump-resource-usage` prints, read directly since the toolkit here ships no cuobjdump:
registers per thread (EIATTR_REGCOUNT of .nv.info), the stack frame (EIATTR_FRAME_SIZE: spills
and local arrays, bytes per thread), static shared memory (the size of .nv.shared.<entry>, which
on sm_90 spans the driver's 1 KiB reserved per block at offset 0, then the kernel's arrays) and
the launch bound (EIATTR_MAX_THREADS) -- and computes the blocks of that kernel resident on one
SM as the CUDA occupancy calculator does (cuda_occupancy.h of CUDA 13.0,
cudaOccMaxBlocksPerSMRegsLimit and cudaOccMaxBlocksPerSMSmemLimit, constants of compute
capability 9.0 (H100)):

  by registers:  warp = roundup(regs x 32, 256) registers; a block of w warps fits when
                 warp x roundup(w, 4) <= 65536; then floor(floor(16384 / warp) x 4 / w)
                 (65536 registers in 4 sub-partitions; 255 registers at most a thread)
  by shared:     block = roundup(static + 1 KiB reserved, 128); fits when block <= 48 KiB + 1 KiB
                 (static arrays; 227 KiB + 1 KiB with opt-in dynamic memory, unused here);
                 then floor(228 KiB / block)
  by threads:    floor(2048 / threads);   by blocks: 32
  resident blocks per SM = the least of the four (0: the kernel cannot launch).

Each row of the table, SAMPCHECK_KERNEL_OCCUPANCY(blocks per SM, Type) with Type KernelEntry's
first template argument, must match one KernelEntry of the cubin and the other way round, with
equal blocks per SM; otherwise the check fails, naming the kernel, its resources and the limit
that decides. (The row's kernel name and threads come from Type itself, in C++.)

Usage: kernel_occupancy_check.py OBJECT TABLE [--arch 90] [--list]
  OBJECT: the CUDA runner's object file (cuda_runner.cu.o) or a static library holding it.
  --list: print every entry's resources and blocks per SM (also printed on a mismatch).
Exit 0 when every row agrees, 1 otherwise (2 on a usage or format error).
"""
import re
import struct
import subprocess
import sys

# Compute capability 9.0 (cuda_occupancy.h, CUDA 13.0; CUDA C++ Programming Guide, "Technical
# Specifications per Compute Capability"; the H100 whitepaper's 228 KiB of shared memory per SM).
SM90 = {
    "regs_per_sm": 65536,
    "regs_per_block": 65536,
    "max_regs_per_thread": 255,
    "reg_unit": 256,           # cudaOccRegAllocationGranularity: registers per warp, in units of 256
    "sub_partitions": 4,       # cudaOccSubPartitionsPerMultiprocessor
    "smem_per_sm": 228 * 1024,
    "smem_per_block": 48 * 1024,  # static shared memory (the opt-in 227 KiB needs dynamic memory)
    "smem_reserved": 1024,     # reservedSharedMemPerBlock (compute capability >= 8.0)
    "smem_unit": 128,          # cudaOccSMemAllocationGranularity
    "threads_per_sm": 2048,
    "blocks_per_sm": 32,
    "warp": 32,
}

EIATTR_MAX_THREADS = 0x05
EIATTR_FRAME_SIZE = 0x11
EIATTR_REGCOUNT = 0x2F
FATBIN_MAGIC = 0xBA55ED50
FATBIN_ELF = 2


def round_up(x, unit):
    return (x + unit - 1) // unit * unit


def blocks_per_sm(regs, shared, threads, c=SM90):
    """Resident blocks per SM and the limit of each resource: (blocks, {limit: blocks}).
    shared: the block's static shared memory including the 1 KiB reserved one."""
    warps = (threads + c["warp"] - 1) // c["warp"]
    warp_regs = round_up(regs * c["warp"], c["reg_unit"])
    if (regs > c["max_regs_per_thread"] or warp_regs * round_up(warps, c["sub_partitions"]) > c["regs_per_block"]
            or warp_regs * warps > c["regs_per_block"]):
        by_regs = 0
    elif warp_regs == 0:
        by_regs = c["blocks_per_sm"]
    else:
        by_regs = (c["regs_per_sm"] // c["sub_partitions"] // warp_regs) * c["sub_partitions"] // warps
    block_smem = round_up(max(shared, c["smem_reserved"]), c["smem_unit"])
    by_shared = 0 if block_smem > c["smem_per_block"] + c["smem_reserved"] else c["smem_per_sm"] // block_smem
    limits = {
        "registers": by_regs,
        "shared memory": by_shared,
        "threads": c["threads_per_sm"] // threads,
        "blocks": c["blocks_per_sm"],
    }
    return min(limits.values()), limits


class Elf:
    """The section headers and symbols of a little-endian ELF64 image."""

    def __init__(self, data, what):
        if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            raise ValueError(f"{what}: not a little-endian ELF64 file")
        self.data = data
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        self.sections = []
        for i in range(shnum):
            name, kind, _, _, off, size, link, info, _, _ = struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
            self.sections.append({"name": name, "type": kind, "offset": off, "size": size, "link": link, "info": info})
        strings = self.sections[shstrndx]
        for s in self.sections:
            s["name"] = self._string(strings, s["name"])

    def _string(self, section, offset):
        start = section["offset"] + offset
        return self.data[start:self.data.index(b"\0", start)].decode()

    def section(self, name):
        return next((s for s in self.sections if s["name"] == name), None)

    def contents(self, s):
        return self.data[s["offset"]:s["offset"] + s["size"]]

    def symbols(self):
        """Symbol names in table order (index 0 is the null symbol)."""
        table = next((s for s in self.sections if s["type"] == 2), None)  # SHT_SYMTAB
        if table is None:
            return []
        strings = self.sections[table["link"]]
        return [self._string(strings, struct.unpack_from("<I", self.data, table["offset"] + i * 24)[0])
                for i in range(table["size"] // 24)]


def cubins(obj_data, arch, what):
    """The uncompressed ELF images for sm_<arch> in every .nv_fatbin of an object or archive."""
    images = []
    objects = [obj_data]
    if obj_data[:8] == b"!<arch>\n":  # a static library: its members
        objects, p = [], 8
        while p + 60 <= len(obj_data):
            size = int(obj_data[p + 48:p + 58].decode().strip())
            objects.append(obj_data[p + 60:p + 60 + size])
            p = round_up(p + 60 + size, 2)
    for o in objects:
        if o[:4] != b"\x7fELF":
            continue
        elf = Elf(o, what)
        fatbin = elf.section(".nv_fatbin")
        if fatbin is None:
            continue
        d = elf.contents(fatbin)
        p = 0
        while p + 16 <= len(d):
            magic, _, header, size = struct.unpack_from("<IHHQ", d, p)
            if magic != FATBIN_MAGIC:
                break
            q, end = p + header, p + header + size
            while q < end:
                kind, _, entry_header, payload = struct.unpack_from("<HHIQ", d, q)
                compressed, = struct.unpack_from("<I", d, q + 16)
                entry_arch, = struct.unpack_from("<I", d, q + 28)
                body = d[q + entry_header:q + entry_header + payload]
                if kind == FATBIN_ELF and entry_arch == arch:
                    if compressed or body[:4] != b"\x7fELF":
                        raise ValueError(f"{what}: the sm_{arch} cubin is compressed; build without -Xfatbin=-compress-all")
                    images.append(body)
                q += entry_header + payload
            p = end
    return images


def parse_info(data):
    """(format, attribute, value bytes) records of an .nv.info section."""
    out, p = [], 0
    while p + 2 <= len(data):
        fmt, attr = data[p], data[p + 1]
        if fmt == 4:  # EIFMT_SVAL: u16 size, then the value
            size, = struct.unpack_from("<H", data, p + 2)
            out.append((attr, data[p + 4:p + 4 + size]))
            p += 4 + size
        elif fmt == 3:  # EIFMT_HVAL: a u16 value
            out.append((attr, data[p + 2:p + 4]))
            p += 4
        elif fmt in (1, 2):  # EIFMT_NVAL (no value), EIFMT_BVAL (one byte)
            p += 2 if fmt == 1 else 4
        else:
            raise ValueError(f"unknown .nv.info record format {fmt}")
    return out


def entries(cubin):
    """{mangled entry: {regs, frame, shared, threads}} for every kernel of a cubin."""
    elf = Elf(cubin, "cubin")
    names = elf.symbols()
    reserved_in_section = any(n.startswith("__nv_reservedSMEM") for n in names)
    result = {}
    for s in elf.sections:
        if s["name"].startswith(".text."):
            result[s["name"][6:]] = {"regs": 0, "frame": 0, "shared": 0, "threads": 0}
    info = elf.section(".nv.info")
    for attr, value in parse_info(elf.contents(info)) if info else []:
        if attr in (EIATTR_REGCOUNT, EIATTR_FRAME_SIZE) and len(value) == 8:
            symbol, v = struct.unpack("<II", value)
            if symbol < len(names) and names[symbol] in result:
                result[names[symbol]]["regs" if attr == EIATTR_REGCOUNT else "frame"] = v
    for name, r in result.items():
        shared = elf.section(".nv.shared." + name)
        # The section holds the reserved 1 KiB at offset 0 when the cubin declares it; report the
        # kernel's own arrays, as ptxas -v does.
        size = shared["size"] if shared else 0
        r["shared"] = max(0, size - SM90["smem_reserved"]) if reserved_in_section and shared else size
        own = elf.section(".nv.info." + name)
        for attr, value in parse_info(elf.contents(own)) if own else []:
            if attr == EIATTR_MAX_THREADS and len(value) >= 4:
                r["threads"], = struct.unpack_from("<I", value)
    return result


def kernel_type(demangled):
    """KernelEntry's first template argument without the namespace: 'FastSamplingKernel<1024>'."""
    start = demangled.find("KernelEntry<")
    if start < 0:
        return None
    p = start + len("KernelEntry<")
    depth, q = 0, p
    while q < len(demangled):
        ch = demangled[q]
        if ch == "<":
            depth += 1
        elif ch == ">":
            if depth == 0:
                break
            depth -= 1
        elif ch == "," and depth == 0:
            break
        q += 1
    return demangled[p:q].replace("sampcheck::gpu::", "").strip()


def demangle(names):
    if not names:
        return []
    out = subprocess.run(["c++filt"], input="\n".join(names) + "\n", capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


ROW = re.compile(r"^SAMPCHECK_KERNEL_OCCUPANCY\(\s*(\d+)\s*,\s*(.+?)\s*\)\s*(//.*)?$")


def read_table(path):
    """[{blocks, type, line}] of the table's SAMPCHECK_KERNEL_OCCUPANCY(blocks, Type) rows."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            stripped = line.strip()
            if not stripped or stripped.startswith("//"):
                continue
            m = ROW.match(stripped)
            if not m:
                raise ValueError(f"{path}:{number}: not a row SAMPCHECK_KERNEL_OCCUPANCY(blocks per SM, Type): {stripped}")
            rows.append({"blocks": int(m.group(1)), "type": m.group(2), "line": number})
    return rows


def check(object_path, table_path, arch=90, listing=False, out=sys.stdout):
    """Returns the list of disagreements (empty: the table is the built kernels' occupancy)."""
    with open(object_path, "rb") as f:
        images = cubins(f.read(), arch, object_path)
    if not images:
        return [f"{object_path}: no sm_{arch} cubin in its .nv_fatbin (is {arch} in CMAKE_CUDA_ARCHITECTURES?)"]
    found = {}
    for image in images:
        for name, r in entries(image).items():
            found[name] = r
    mangled = [n for n in found if "KernelEntry" in n]
    kernels = {}
    for name, demangled in zip(mangled, demangle(mangled)):
        t = kernel_type(demangled)
        if t is not None:
            r = dict(found[name])
            r["blocks"], r["limits"] = blocks_per_sm(r["regs"], r["shared"] + SM90["smem_reserved"], r["threads"])
            kernels.setdefault(t, []).append(r)
    if not kernels:
        return [f"{object_path}: no KernelEntry in the sm_{arch} cubin"]
    problems = []
    rows = read_table(table_path)
    by_type = {}
    for row in rows:
        if row["type"] in by_type:
            problems.append(f"{table_path}:{row['line']}: {row['type']} listed twice")
        by_type[row["type"]] = row
    lines = []
    for t in sorted(kernels):
        for r in kernels[t]:
            limit = min(r["limits"], key=lambda k: (r["limits"][k], k != "threads"))
            lines.append(f"  {t}: {r['threads']} threads, {r['regs']} registers, {r['frame']} bytes stack frame, "
                         f"{r['shared']} bytes static shared memory -> {r['blocks']} blocks per SM "
                         f"(by {limit}; limits {r['limits']})")
            row = by_type.get(t)
            if row is None:
                problems.append(f"{t}: a kernel of the build with no row in {table_path} "
                                f"(its occupancy: SAMPCHECK_KERNEL_OCCUPANCY({r['blocks']}, {t}))")
            elif row["blocks"] != r["blocks"]:
                problems.append(f"{table_path}:{row['line']}: {t}: the model assumes {row['blocks']} blocks per SM; "
                                f"the build gives {r['blocks']} ({r['threads']} threads, {r['regs']} registers, "
                                f"{r['shared']} bytes static shared memory, {r['frame']} bytes stack frame; "
                                f"limited by {limit})")
            if r["blocks"] == 0:
                problems.append(f"{t}: cannot launch ({r['regs']} registers x {r['threads']} threads, "
                                f"{r['shared']} bytes shared memory)")
    for t, row in by_type.items():
        if t not in kernels:
            problems.append(f"{table_path}:{row['line']}: {t}: no such KernelEntry in the build")
    if listing or problems:
        print(f"sm_{arch} kernels of {object_path}:", file=out)
        print("\n".join(lines), file=out)
    return problems


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    arch = 90
    if "--arch" in argv:
        i = argv.index("--arch")
        arch = int(argv[i + 1])
        args.remove(argv[i + 1])
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        problems = check(args[0], args[1], arch, "--list" in argv)
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        print(f"kernel_occupancy_check: {e}", file=sys.stderr)
        return 2
    for p in problems:
        print("FAIL: " + p)
    if problems:
        print(f"kernel_occupancy_check: {len(problems)} disagreement(s) between {args[1]} and the build")
        return 1
    print(f"kernel_occupancy_check: every kernel's blocks per SM agree with {args[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
