"""Reads and writes the safetensors format directly (Debian 12 ships no `safetensors` package).

Format (https://huggingface.co/docs/safetensors): an 8-byte little-endian header length, a JSON
header {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {...}}, then the raw
little-endian tensor bytes. BF16 is the upper half of an IEEE float32.
"""
import json
import struct

import numpy as np
import torch

_NP = {"F32": np.float32, "F64": np.float64, "I64": np.int64, "I32": np.int32, "U8": np.uint8,
       "I8": np.int8, "F16": np.float16}


def load(path):
    """Returns {name: float32/int64 torch tensor}; BF16 is widened to float32 exactly."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 8:
        raise ValueError(f"{path}: too short to be a safetensors file")
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8:
        raise ValueError(f"{path}: header length {n} runs past the end of the file")
    header = json.loads(data[8:8 + n])
    body = memoryview(data)[8 + n:]
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        raw = body[b:e]
        shape = info["shape"]
        if info["dtype"] == "BF16":
            u16 = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
            arr = u16.view(np.float32)
        elif info["dtype"] in _NP:
            arr = np.frombuffer(raw, dtype=np.dtype(_NP[info["dtype"]]).newbyteorder("<")).copy()
        else:
            raise ValueError(f"{path}: tensor {name} has unsupported dtype {info['dtype']}")
        out[name] = torch.from_numpy(arr.reshape(shape).copy())
    return out


def to_bf16_bits(t):
    """float32 tensor -> uint16 numpy array of BF16 bits, round to nearest even."""
    u = t.detach().to(torch.float32).contiguous().numpy().view(np.uint32).astype(np.uint64)
    rounded = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return rounded.astype(np.uint16)


def save(path, tensors, dtypes=None, metadata=None):
    """Writes {name: tensor}; dtypes[name] in {"BF16", "F32"} (default BF16 for floats)."""
    dtypes = dtypes or {}
    header, blobs, offset = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().cpu()
        dt = dtypes.get(name, "BF16" if t.is_floating_point() else "I64")
        if dt == "BF16":
            blob = to_bf16_bits(t).tobytes()
        elif dt == "F32":
            blob = t.to(torch.float32).contiguous().numpy().astype("<f4").tobytes()
        elif dt == "I64":
            blob = t.to(torch.int64).contiguous().numpy().astype("<i8").tobytes()
        else:
            raise ValueError(f"unsupported dtype {dt} for {name}")
        header[name] = {"dtype": dt, "shape": list(t.shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    header["__metadata__"] = metadata or {"format": "pt"}
    hbytes = json.dumps(header, separators=(",", ":")).encode()
    hbytes += b" " * ((8 - len(hbytes) % 8) % 8)  # keep the data 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hbytes)))
        f.write(hbytes)
        for b in blobs:
            f.write(b)
