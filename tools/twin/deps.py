"""The twin's scripts need python3-torch, python3-numpy and python3-pil; where they are missing,
a script says so and exits 77, which ctest reports as SKIP (SKIP_RETURN_CODE)."""
import sys


def require():
    try:
        import numpy  # noqa: F401
        import torch  # noqa: F401
        from PIL import Image  # noqa: F401
    except ImportError as e:
        print(f"SKIP: the PyTorch twin needs python3-torch, python3-numpy and python3-pil ({e}); "
              "run tools/twin/install-deps.sh")
        sys.exit(77)
