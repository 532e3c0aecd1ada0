"""model.py with its `plain` graph only: check.py's baseline for device memory."""
from model import model, signatures as all_signatures  # noqa: F401  (model.py contract)


def signatures():
    return {"plain": all_signatures()["plain"]}
