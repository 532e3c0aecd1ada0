"""`python -m pt2c_exporter MODEL.py -o OUT.pt2c`."""
import sys

from .cli import main

sys.exit(main())
