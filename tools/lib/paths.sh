# Shared locations for pt2c's scripts (sourced, not run).
# The project's virtual environment: outside the checkout, reused by fresh clones.
PT2C_VENV="${PT2C_VENV:-$HOME/.cache/pt2c/venv}"
# Debian's Python with torch 1.13, for the compatibility runs.
PT2C_OLD_PYTHON="${PT2C_OLD_PYTHON:-/usr/bin/python3}"
export PT2C_VENV PT2C_OLD_PYTHON
