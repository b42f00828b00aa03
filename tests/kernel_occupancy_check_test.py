#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/kernel_occupancy_check.py reports what it promises, without a CUDA toolkit:

- its occupancy rule against answers worked by hand from the CUDA occupancy calculator's rules
  (cuda_occupancy.h, CUDA 13.0: registers allocated per warp in units of 256, 16384 registers in
  each of 4 sub-partitions, 1 KiB of shared memory reserved per block, 128-byte shared memory
  units, 228 KiB per SM, 2048 threads and 32 blocks per SM);
- end to end on a host object it builds here (an ELF64 .o whose .nv_fatbin holds an sm_80 and an
  sm_90 cubin with one KernelEntry each): a table that matches passes, a wrong blocks-per-SM, a
  kernel without a row and a row without a kernel each fail with a line naming them, and the sm_80
  cubin is not read.

Usage: kernel_occupancy_check_test.py. Exit 0 when every case behaves; otherwise the failing cases.
"""
import io
import os
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernel_occupancy_check as koc  # noqa: E402

FAILURES = []


def expect(condition, what):
    if not condition:
        FAILURES.append(what)


# (line, registers, shared memory with the reserved 1 KiB, threads, blocks per SM, limit) by hand.
RULE_CASES = [
    # 64 x 32 = 2048 registers a warp; 16384 / 2048 = 8 warps per sub-partition, 32 per SM: one
    # block of 32 warps (gpu-fast's fast_sampling: 42792 bytes of its own shared memory).
    (1, 64, 42792 + 1024, 1024, 1, "registers"),
    # 32 registers: 1024 a warp, 16 warps per sub-partition, 64 per SM: 2 blocks; shared memory
    # roundup(50056, 128) = 50176 allows 233472 / 50176 = 4; threads 2048 / 1024 = 2.
    (2, 32, 49032 + 1024, 1024, 2, "threads"),
    # 33 registers: 1056 rounds up to 1280 a warp, 12 warps per sub-partition, 48 per SM: 1 block.
    (3, 33, 0, 1024, 1, "registers"),
    # 65 registers: 2304 a warp x 32 warps = 73728 > 65536 registers a block: cannot launch.
    (4, 65, 0, 1024, 0, "registers"),
    # One warp of 12 registers (512 a warp after rounding): 32 warps per sub-partition, 128 per
    # SM; threads allow 64; the 32 blocks per SM decide.
    (5, 12, 0, 32, 32, "blocks"),
    # 128 threads, 40000 + 1024 bytes rounded to 41088: 233472 / 41088 = 5 (threads allow 16).
    (6, 16, 40000 + 1024, 128, 5, "shared memory"),
    # 50000 + 1024 bytes rounded to 51072, past the 49152 + 1024 a block may hold statically.
    (7, 16, 50000 + 1024, 128, 0, "shared memory"),
    # 255 registers (the most a thread may have): 8160 rounds to 8192 a warp, 2 warps per
    # sub-partition, 8 per SM: one block of 8 warps.
    (8, 255, 0, 256, 1, "registers"),
    # 256 registers: past the per-thread limit, cannot launch.
    (9, 256, 0, 256, 0, "registers"),
    # A block of 3 warps at 170 registers: 5440 rounds to 5632 a warp; the hardware check counts
    # 4 warps (5632 x 4 = 22528 <= 65536); 16384 / 5632 = 2 warps per sub-partition, 8 per SM: 2.
    (10, 170, 0, 96, 2, "registers"),
    # No shared memory of its own: the reserved 1 KiB alone, 228 blocks by shared memory.
    (11, 20, 0, 1024, 2, "threads"),
]


def check_rule():
    for line, regs, shared, threads, blocks, limit in RULE_CASES:
        got, limits = koc.blocks_per_sm(regs, shared, threads)
        expect(got == blocks, f"rule case {line}: {got} blocks per SM, expected {blocks} ({limits})")
        expect(limits[limit] == blocks, f"rule case {line}: the {limit} limit is {limits[limit]}, expected {blocks}")
    _, limits = koc.blocks_per_sm(20, 0, 1024)
    expect(limits["shared memory"] == 228, f"rule case 11: shared memory allows {limits['shared memory']}, expected 228")


def elf(sections, machine=0xBE):
    """A little-endian ELF64 image: sections = [(name, sh_type, bytes or NOBITS size, link, info)]."""
    names = b"\0"
    offsets = {}
    for s in [(".shstrtab",)] + sections:
        offsets[s[0]] = len(names)
        names += s[0].encode() + b"\0"
    body = bytearray(64)
    headers = [struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)]
    all_sections = [(".shstrtab", 3, names, 0, 0)] + sections
    for name, kind, data, link, info in all_sections:
        if kind == 8:  # SHT_NOBITS: a size, no bytes
            offset, size = len(body), data
        else:
            while len(body) % 8:
                body.append(0)
            offset, size = len(body), len(data)
            body += data
        entsize = 24 if kind == 2 else 0
        headers.append(struct.pack("<IIQQQQIIQQ", offsets[name], kind, 0, 0, offset, size, link, info, 8, entsize))
    while len(body) % 8:
        body.append(0)
    shoff = len(body)
    body += b"".join(headers)
    ident = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    header = ident + struct.pack("<HHIQQQIHHHHHH", 1, machine, 1, 0, 0, shoff, 0, 64, 0, 0, 64, len(headers), 1)
    body[:64] = header
    return bytes(body)


TOY = "_ZN9sampcheck3gpu11KernelEntryINS0_9ToyKernelEJiEEEvDpT0_"  # KernelEntry<ToyKernel, int>


def cubin(regs, frame, own_shared, threads):
    strtab = b"\0" + TOY.encode() + b"\0__nv_reservedSMEM_offset_0_alias\0"
    symbol = lambda name_offset: struct.pack("<IBBHQQ", name_offset, 0x12, 0, 3, 0, 0)
    symtab = bytes(24) + symbol(1) + symbol(1 + len(TOY) + 1)
    info = (struct.pack("<BBHII", 4, koc.EIATTR_REGCOUNT, 8, 1, regs) +
            struct.pack("<BBHII", 4, koc.EIATTR_FRAME_SIZE, 8, 1, frame))
    own_info = struct.pack("<BBHIII", 4, koc.EIATTR_MAX_THREADS, 12, threads, 1, 1)
    return elf([
        (".strtab", 3, strtab, 0, 0),
        (".symtab", 2, symtab, 2, 0),
        (".nv.info", 0x70000000, info, 3, 0),
        (".nv.info." + TOY, 0x70000000, own_info, 3, 6),
        (".text." + TOY, 1, bytes(16), 3, 1),
        (".nv.shared." + TOY, 8, 1024 + own_shared, 0, 6),
    ])


def fatbin_entry(arch, image):
    # kind 2 (ELF), header of 64 bytes: payload size at 8, compressed size at 16 (0), arch at 28.
    header = struct.pack("<HHIQIIHHI", 2, 0x101, 64, len(image), 0, 0, 8, 1, arch).ljust(64, b"\0")
    return header + image


def host_object(entries):
    payload = b"".join(entries)
    fatbin = struct.pack("<IHHQ", koc.FATBIN_MAGIC, 1, 16, len(payload)) + payload
    return elf([(".text", 1, bytes(8), 0, 0), (".nv_fatbin", 1, fatbin, 0, 0)], machine=0x3E)


def run(obj, table_text):
    with tempfile.TemporaryDirectory() as d:
        obj_path, table_path = os.path.join(d, "toy.o"), os.path.join(d, "table.inc")
        with open(obj_path, "wb") as f:
            f.write(obj)
        with open(table_path, "w", encoding="utf-8") as f:
            f.write(table_text)
        out = io.StringIO()
        problems = koc.check(obj_path, table_path, 90, False, out)
        return problems, out.getvalue()


def check_end_to_end():
    # sm_90: 64 registers at 1024 threads, 1 block per SM; sm_80 (must be ignored): 32 registers.
    obj = host_object([fatbin_entry(80, cubin(32, 0, 4096, 1024)), fatbin_entry(90, cubin(64, 16, 4096, 1024))])
    header = "// a comment line\n\n"
    problems, _ = run(obj, header + "SAMPCHECK_KERNEL_OCCUPANCY(1, ToyKernel)\n")
    expect(problems == [], f"matching table: {problems}")

    problems, listing = run(obj, header + "SAMPCHECK_KERNEL_OCCUPANCY(2, ToyKernel)\n")
    expect(len(problems) == 1 and "ToyKernel: the model assumes 2 blocks per SM; the build gives 1" in problems[0]
           and "64 registers" in problems[0] and "4096 bytes static shared memory" in problems[0]
           and "16 bytes stack frame" in problems[0] and "limited by registers" in problems[0],
           f"wrong blocks per SM: {problems}")
    expect("ToyKernel: 1024 threads, 64 registers" in listing, f"no listing on a mismatch: {listing}")

    problems, _ = run(obj, header)
    expect(len(problems) == 1 and "ToyKernel: a kernel of the build with no row" in problems[0],
           f"missing row: {problems}")

    problems, _ = run(obj, header + "SAMPCHECK_KERNEL_OCCUPANCY(1, ToyKernel)\nSAMPCHECK_KERNEL_OCCUPANCY(2, GoneKernel)\n")
    expect(len(problems) == 1 and "GoneKernel: no such KernelEntry in the build" in problems[0],
           f"stale row: {problems}")

    problems, _ = run(host_object([fatbin_entry(80, cubin(32, 0, 4096, 1024))]), header)
    expect(len(problems) == 1 and "no sm_90 cubin" in problems[0], f"no sm_90 cubin: {problems}")

    try:
        run(obj, header + "ToyKernel = 1\n")
        FAILURES.append("a malformed row was accepted")
    except ValueError as e:
        expect("not a row" in str(e), f"malformed row: {e}")


def main():
    check_rule()
    check_end_to_end()
    for f in FAILURES:
        print("FAIL: " + f)
    if FAILURES:
        print(f"kernel_occupancy_check_test: {len(FAILURES)} case(s) failed")
        return 1
    print(f"kernel_occupancy_check_test: {len(RULE_CASES)} rule cases and 6 planted tables behave")
    return 0


if __name__ == "__main__":
    sys.exit(main())
