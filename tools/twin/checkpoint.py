"""Loads and saves a Qwen3.5 checkpoint folder (config.json + model.safetensors) for the twin."""
import json
import os

import torch

import safetensors_io
from model import Qwen35

# Stored in F32 like the released checkpoints' A_log (spec 1.5); everything else BF16.
F32_SUFFIXES = ("linear_attn.A_log",)


def load_model(folder):
    with open(os.path.join(folder, "config.json")) as f:
        config = json.load(f)
    tensors = safetensors_io.load(os.path.join(folder, "model.safetensors"))
    if not any(k.startswith("mtp.") for k in tensors):
        config["text_config"]["mtp_num_hidden_layers"] = 0  # the twin builds no MTP it cannot fill
    model = Qwen35(config)
    sd = model.state_dict()
    missing = [k for k in sd if k not in tensors]
    unexpected = [k for k in tensors if k not in sd]
    if missing or unexpected:
        raise ValueError(f"{folder}/model.safetensors: missing {missing[:5]}, unexpected {unexpected[:5]}")
    for k, v in tensors.items():
        if tuple(v.shape) != tuple(sd[k].shape):
            raise ValueError(f"{folder}/model.safetensors: {k} has shape {list(v.shape)}, config says {list(sd[k].shape)}")
    model.load_state_dict({k: v.float() for k, v in tensors.items()})
    return model, config


def save_model(model, folder):
    os.makedirs(folder, exist_ok=True)
    sd = {k: v for k, v in model.state_dict().items()}
    dtypes = {k: ("F32" if k.endswith(F32_SUFFIXES) else "BF16") for k in sd}
    safetensors_io.save(os.path.join(folder, "model.safetensors"), sd, dtypes)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(model.config, f, indent=2)
        f.write("\n")
