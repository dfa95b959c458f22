#!/usr/bin/env python3
"""Writes checkpoints in PyTorch's torch.save format without torch, for tests.

    python3 scripts/make-torch-checkpoint.py MODEL.safetensors OUT.bin
    python3 scripts/make-torch-checkpoint.py --bad KIND OUT.bin

The first form copies every tensor of a safetensors file into a
pytorch_model.bin laid out as torch.save (protocol 2, zip archive of stored
entries) writes a state_dict: an OrderedDict with `_metadata` set by BUILD,
one storage per weight, and all `.bias` tensors sharing one storage at
offsets (as views do), so a reader must honour storage offsets. The pickle
is made by Python's own pickler with stand-in `torch` classes, so its
opcodes are those torch.save emits.

The second form writes a small hostile or broken checkpoint, KIND one of:
  code        a pickle that calls os.system (a reader must refuse, not run it)
  deflated    the same tensors as a valid file, zip entries compressed
  strided     a tensor whose stride is not contiguous
  no-storage  a tensor naming a storage the archive lacks
  truncated   a valid file cut in the middle
"""
import collections
import json
import os
import pickle
import struct
import sys
import types
import zipfile

# Stand-ins for the names torch.save's pickle refers to.
torch = types.ModuleType("torch")
torch_utils = types.ModuleType("torch._utils")
torch._utils = torch_utils
sys.modules["torch"] = torch
sys.modules["torch._utils"] = torch_utils
STORAGE_OF = {"F32": "FloatStorage", "F16": "HalfStorage", "BF16": "BFloat16Storage"}
BYTES_OF = {"F32": 4, "F16": 2, "BF16": 2}
for name in STORAGE_OF.values():
    cls = type(name, (), {})
    cls.__module__ = "torch"
    setattr(torch, name, cls)


def _rebuild_tensor_v2(*args):  # never called: only its name is pickled
    raise RuntimeError(args)


_rebuild_tensor_v2.__module__ = "torch._utils"
torch_utils._rebuild_tensor_v2 = _rebuild_tensor_v2


class Storage:
    def __init__(self, key, dtype, data):
        self.key, self.dtype, self.data = key, dtype, data


class Tensor:
    def __init__(self, storage, offset, shape, stride):
        self.storage, self.offset, self.shape, self.stride = storage, offset, shape, stride

    def __reduce_ex__(self, protocol):
        return (_rebuild_tensor_v2, (self.storage, self.offset, tuple(self.shape),
                                     tuple(self.stride), False, collections.OrderedDict()))


class Evil:
    def __reduce__(self):
        return (os.system, ("echo pickled code ran >&2",))


class Pickler(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, Storage):
            elements = len(obj.data) // BYTES_OF[obj.dtype]
            return ("storage", getattr(torch, STORAGE_OF[obj.dtype]), obj.key, "cpu", elements)
        return None


def contiguous_stride(shape):
    stride, step = [], 1
    for dim in reversed(shape):
        stride.insert(0, step)
        step *= dim
    return stride


def read_safetensors(path):
    with open(path, "rb") as f:
        raw = f.read()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    out = []
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, end = entry["data_offsets"]
        out.append((name, entry["dtype"], entry["shape"], data[begin:end]))
    return out


def state_dict(tensors, shared_biases=True):
    """(OrderedDict of Tensor, list of Storage) for [(name, dtype, shape, bytes)]."""
    state, storages = collections.OrderedDict(), []
    shared = {}  # dtype -> (Storage, bytearray) holding every .bias of that dtype
    for name, dtype, shape, data in tensors:
        if shared_biases and name.endswith(".bias"):
            if dtype not in shared:
                shared[dtype] = Storage(str(len(storages)), dtype, bytearray())
                storages.append(shared[dtype])
            storage = shared[dtype]
            offset = len(storage.data) // BYTES_OF[dtype]
            storage.data += data
        else:
            storage = Storage(str(len(storages)), dtype, data)
            storages.append(storage)
            offset = 0
        state[name] = Tensor(storage, offset, shape, contiguous_stride(shape))
    state._metadata = collections.OrderedDict([("", {"version": 1})])
    return state, storages


def write_archive(path, root, storages, compress=zipfile.ZIP_STORED, drop=()):
    import io
    buffer = io.BytesIO()
    Pickler(buffer, protocol=2).dump(root)
    with zipfile.ZipFile(path, "w", compression=compress) as z:
        z.writestr("archive/data.pkl", buffer.getvalue())
        z.writestr("archive/byteorder", "little")
        for storage in storages:
            if storage.key not in drop:
                z.writestr(f"archive/data/{storage.key}", bytes(storage.data))
        z.writestr("archive/version", "3\n")


def small_tensors():
    a = struct.pack("<6f", 1, 2, 3, 4, 5, 6)
    return [("a.weight", "F32", [2, 3], a), ("a.bias", "F32", [2], struct.pack("<2f", 7, 8))]


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--bad":
        kind, out = sys.argv[2], sys.argv[3]
        state, storages = state_dict(small_tensors(), shared_biases=False)
        if kind == "code":
            state["a.weight"] = Evil()
            write_archive(out, state, storages)
        elif kind == "deflated":
            write_archive(out, state, storages, compress=zipfile.ZIP_DEFLATED)
        elif kind == "strided":
            state["a.weight"].stride = [1, 2]
            write_archive(out, state, storages)
        elif kind == "no-storage":
            write_archive(out, state, storages, drop=("1",))
        elif kind == "truncated":
            write_archive(out, state, storages)
            with open(out, "rb") as f:
                raw = f.read()
            with open(out, "wb") as f:
                f.write(raw[:len(raw) // 2])
        else:
            sys.exit(f"unknown --bad kind {kind}")
        return
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    state, storages = state_dict(read_safetensors(sys.argv[1]))
    write_archive(sys.argv[2], state, storages)


if __name__ == "__main__":
    main()
