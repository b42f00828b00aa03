#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""sass_loop_check.py on hand-written nvdisasm listings and ELF headers: runs everywhere (the
check itself needs nvdisasm and a CUDA build)."""
import io
import os
import struct
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sass_loop_check as c  # noqa: E402

# Two functions in nvdisasm -c's form: Walk's loop (.L_x_1 back to .L_x_1) reloads a value from
# the stack frame at every iteration; Sum's loop does not, and Sum's LDL lies before its loop.
LISTING = """
//--------------------- .text._Z6Kernelv --------------------------
_Z6Kernelv:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
$_Z6Kernelv$_Z4WalkILi1EEvv:
        /*0010*/                   MOV R2, RZ ;
.L_x_1:
        /*0020*/                   LDS.64 R4, [R3] ;
        /*0030*/                   LDL R6, [R1+0x8ec] ;
        /*0040*/                   FADD R2, R2, R4 ;
        /*0050*/                   ISETP.LT.U32.AND P0, PT, R7, R6, PT ;
        /*0060*/              @P0 BRA `(.L_x_1) ;
        /*0070*/                   RET.REL.NODEC R20 `(_Z6Kernelv) ;
$_Z6Kernelv$_Z3SumILi1EEvv:
        /*0080*/                   LDL R6, [R1+0x10] ;
.L_x_2:
        /*0090*/                   LD.E.64 R4, [R8.64] ;
        /*00a0*/                   FADD R2, R2, R4 ;
        /*00b0*/                   ISETP.LT.U32.AND P0, PT, R7, R6, PT ;
        /*00c0*/              @P0 BRA `(.L_x_2) ;
        /*00d0*/              @!P1 BRA `(.L_x_3) ;
.L_x_3:
        /*00e0*/                   RET.REL.NODEC R20 `(_Z6Kernelv) ;
"""


class SassLoopCheck(unittest.TestCase):
    def test_functions_and_loops(self):
        fns = c.functions(LISTING)
        self.assertEqual(sorted(fns), ["$_Z6Kernelv$_Z3SumILi1EEvv", "$_Z6Kernelv$_Z4WalkILi1EEvv", "_Z6Kernelv"])
        walk = c.loops(fns["$_Z6Kernelv$_Z4WalkILi1EEvv"])
        self.assertEqual([(a, b) for a, b, _ in walk], [(1, 5)])  # LDS .. BRA; the forward branch is no loop
        self.assertEqual([(a, b) for a, b, _ in c.loops(fns["$_Z6Kernelv$_Z3SumILi1EEvv"])], [(1, 4)])

    def test_a_reload_in_a_loop_fails(self):
        out = io.StringIO()
        problems = c.check_sass(LISTING, "Walk", out=out)
        self.assertEqual(len(problems), 1)
        self.assertIn("LDL R6, [R1+0x8ec]", problems[0])
        self.assertIn("1 local-memory accesses", out.getvalue())

    def test_an_access_before_the_loop_passes(self):
        self.assertEqual(c.check_sass(LISTING, "Sum", out=io.StringIO()), [])

    def test_parts_in_order(self):
        # Kernel*Sum names the kernel's copy of Sum; Sum*Kernel (the wrong order) names none.
        self.assertTrue(c.matches("$_Z6Kernelv$_Z3SumILi1EEvv", "Kernel*Sum"))
        self.assertFalse(c.matches("$_Z6Kernelv$_Z3SumILi1EEvv", "Sum*Kernel"))
        self.assertFalse(c.matches("$_Z6Kernelv$_Z3SumILi1EEvv", "Kernel*Walk"))
        self.assertEqual(c.check_sass(LISTING, "Kernel*Sum", out=io.StringIO()), [])
        self.assertEqual(len(c.check_sass(LISTING, "Kernel*Walk", out=io.StringIO())), 1)
        self.assertEqual(len(c.check_sass(LISTING, "Sum*Kernel", out=io.StringIO())), 1)

    def test_no_matching_function_fails(self):
        self.assertEqual(len(c.check_sass(LISTING, "TopPWalkWords", out=io.StringIO())), 1)

    def test_old_header(self):
        # CUDA 13's header of an sm_90 cubin (OS/ABI 0x41, ABI version 8, e_flags 0x06005a04, as
        # nvcc 13.0 writes it) becomes CUDA 11's: OS/ABI 0x33, version 7, and e_flags
        # EF_CUDA_SM90 (0x5a) | EF_CUDA_TEXMODE_UNIFIED (0x100) | EF_CUDA_64BIT_ADDRESS (0x400)
        # | EF_CUDA_VIRTUAL_SM(90) (0x5a << 16) = 0x005a055a.
        header = bytearray(64)
        header[:9] = b"\x7fELF\x02\x01\x01\x41\x08"
        struct.pack_into("<I", header, 0x30, 0x06005A04)
        patched = c.old_header(bytes(header))
        self.assertEqual(patched[7], 0x33)
        self.assertEqual(patched[8], 7)
        self.assertEqual(struct.unpack_from("<I", patched, 0x30)[0], 0x005A055A)
        self.assertEqual(c.old_header(patched), patched)  # the old form is left as it is

    def test_usage_errors(self):
        self.assertEqual(c.main(["only-one-argument"]), 2)
        self.assertEqual(c.main(["a", "b", "--bogus"]), 2)


if __name__ == "__main__":
    unittest.main()
