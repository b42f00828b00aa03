# SPDX-License-Identifier: Apache-2.0
"""Arrays across the C++ boundary (docs/python.md "Arrays and dtypes").

Inputs may be NumPy arrays, anything with the buffer protocol or ``__array__`` (CPU torch
tensors, Python lists of numbers), or :class:`Bf16` for bfloat16. Each becomes a (dtype,
C-contiguous little-endian array) pair for the C++ module; outputs come back as NumPy arrays
holding exactly the bytes of the C++ reference.

NumPy has no bfloat16: a bf16 tensor is a :class:`Bf16` array, a ``uint16`` array of the bit
patterns; ``astype(np.float32)`` widens its values exactly, and only a ``uint16`` Bf16 is sent
as bf16 (an index array computed from one goes as its own dtype). A torch ``bfloat16`` tensor is converted to one without rounding.
"""
import numpy as np

# NumPy dtype -> safetensors name (core/dtype.h SafetensorsName).
_NAMES = {
    np.dtype(np.float32): "F32",
    np.dtype(np.float16): "F16",
    np.dtype(np.float64): "F64",
    np.dtype(np.int32): "I32",
    np.dtype(np.int64): "I64",
    np.dtype(np.uint8): "U8",
    np.dtype(np.bool_): "BOOL",
}
_DTYPES = {name: dtype for dtype, name in _NAMES.items()}


class Bf16(np.ndarray):
    """bfloat16 values as their uint16 bit patterns (the top half of the f32 bits)."""

    def __new__(cls, bits):
        return np.ascontiguousarray(np.asarray(bits, dtype=np.uint16)).view(cls)

    @staticmethod
    def from_float32(values):
        """Rounds float32 values to bf16 (nearest, ties to even); NaN stays a quiet NaN."""
        f = np.ascontiguousarray(values, dtype=np.float32)
        u = f.view(np.uint32).astype(np.uint64)
        rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
        rounded = np.where(np.isnan(f), ((u >> 16) | 0x40).astype(np.uint16), rounded)
        return Bf16(rounded)

    def to_float32(self):
        """The exact float32 value of each bf16 element."""
        return (np.asarray(self, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)

    def astype(self, dtype, *args, **kwargs):
        """To a floating dtype: the values (widened exactly), not the bit patterns."""
        if np.dtype(dtype).kind == "f":
            return self.to_float32().astype(dtype, *args, **kwargs)
        return np.asarray(self).astype(dtype, *args, **kwargs)

    def __array_wrap__(self, obj, context=None):
        # Results of ufuncs (arithmetic) are plain arrays, never bf16 bits.
        return np.asarray(obj)


def to_wire(name, value):
    """(safetensors dtype name, contiguous little-endian array) for the C++ module."""
    if isinstance(value, Bf16) and value.dtype == np.uint16:
        return "BF16", np.ascontiguousarray(np.asarray(value, dtype="<u2"))
    if type(value).__module__.startswith("torch") and str(getattr(value, "dtype", "")) == "torch.bfloat16":
        import torch  # only reached with a torch tensor, so torch is importable
        bits = value.detach().contiguous().cpu().view(torch.int16).numpy().view(np.uint16)
        return "BF16", np.ascontiguousarray(bits, dtype="<u2")
    if type(value).__module__.startswith("torch") and hasattr(value, "detach"):
        value = value.detach().cpu().numpy()  # shares memory with a CPU tensor
    array = np.asarray(value)
    if array.dtype not in _NAMES:
        raise TypeError(f"tensor '{name}': dtype {array.dtype} is not one of sampcheck's "
                        "(float32, float16, float64, int32, int64, uint8, bool; sampcheck.Bf16 for bfloat16)")
    return _NAMES[array.dtype], np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))


def to_wire_map(tensors):
    return {name: to_wire(name, value) for name, value in tensors.items()}


def from_wire(item):
    """A NumPy array (or Bf16) from the C++ module's (dtype, shape, bytes)."""
    dtype, shape, raw = item
    if dtype == "BF16":
        return Bf16(np.frombuffer(raw, dtype="<u2").reshape(shape).copy())
    return np.frombuffer(raw, dtype=np.dtype(_DTYPES[dtype]).newbyteorder("<")).reshape(shape).astype(_DTYPES[dtype])


def from_wire_map(tensors):
    return {name: from_wire(item) for name, item in tensors.items()}
