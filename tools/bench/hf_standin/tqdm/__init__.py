"""A stand-in for `tqdm` (Debian 12's python3 lacks it): gguf-py's writer always asks
for a progress bar. This one prints nothing and counts nothing; it only has the
calls gguf_writer.py makes (update, reset, set_description, close)."""


class tqdm:
    def __init__(self, *args, **kwargs):
        self.n = 0

    def update(self, n=1):
        self.n += n

    def reset(self, total=None):
        self.n = 0

    def set_description(self, desc=None, refresh=True):
        pass

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
