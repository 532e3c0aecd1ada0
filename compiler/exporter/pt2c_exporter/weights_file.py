"""`python -m pt2c_exporter weights MODEL.py --recipe model.so.weights.json -o
model.so.weights [--derived FILE] [--quiet]`: remakes the external weights file of a
model.so compiled with `pt2c --external-weights`, from a fresh instance of model.py's
model, on a machine the file itself cannot be carried to.

The compile wrote the recipe (compiler/driver/ExternalWeights.h): per piece of the
weights blob its offset, size, SHA-256 and source, a parameter or buffer of the model by
FQN, or bytes in the side file (`derived`: weights the compiler folded; `constant`:
tensors the trace met). Every piece is checked against its SHA-256 before anything is
written: model.py must build the same weights on every run (seed its random init with
torch.manual_seed), so a tensor that differs is an error that names it. The file is
runtime/include/pt2c/weights_format.h's: a 64-byte header, then the blob. Needs torch,
not pt2c_pb2.
"""
import argparse
import hashlib
import json
import os
import struct
import sys
import time
import traceback

import torch

from .model_loader import load_module_only
from .tensor_bytes import dense_cpu, tensor_bytes
from .user_errors import ExportError

RECIPE_FORMAT = "pt2c-weights-recipe"
RECIPE_VERSION = 1
FILE_VERSION = 1  # weights_format.h: PT2C_WEIGHTS_FILE_VERSION
MAGIC = b"PT2CWGT\0"
HEADER = struct.Struct("<8sIIQQQ24x")  # magic, version, header size, blob size,
                                       # fingerprint, checksum; 64 bytes
SHOWN_MISMATCHES = 5


def read_recipe(path):
    try:
        with open(path) as f:
            recipe = json.load(f)
    except OSError as e:
        raise ExportError("cannot read the recipe %s: %s" % (path, e.strerror or e))
    except ValueError as e:
        raise ExportError("%s is not a weights recipe (not JSON: %s)" % (path, e))
    if not isinstance(recipe, dict) or recipe.get("format") != RECIPE_FORMAT:
        raise ExportError("%s is not a weights recipe (written by pt2c --external-weights "
                          "as MODEL.so.weights.json)" % path)
    if recipe.get("version") != RECIPE_VERSION or \
            recipe.get("weights_file_version") != FILE_VERSION:
        raise ExportError("%s: recipe version %s, weights file version %s; this exporter "
                          "reads %d and %d" % (path, recipe.get("version"),
                                               recipe.get("weights_file_version"),
                                               RECIPE_VERSION, FILE_VERSION))
    return recipe


def read_side_file(recipe, recipe_path, derived_path):
    """The derived/constant pieces' bytes (b"" when the recipe needs none)."""
    if not recipe.get("derived_size"):
        return b""
    path = derived_path or os.path.join(os.path.dirname(os.path.abspath(recipe_path)),
                                        recipe["derived_file"])
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ExportError("cannot read the side file of derived weights %s: %s (the compile "
                          "wrote it beside the recipe; pass --derived FILE)"
                          % (path, e.strerror or e))
    if len(data) != recipe["derived_size"]:
        raise ExportError("%s has %d bytes; the recipe expects %d: it belongs to another "
                          "compile" % (path, len(data), recipe["derived_size"]))
    return data


def model_tensors(model):
    """FQN -> tensor, named as the exporter names weights (weight_registry.py)."""
    tensors = {}
    for fqn, tensor in list(model.named_parameters()) + list(model.named_buffers()):
        tensors.setdefault(fqn, tensor)
    return tensors


def piece_bytes(piece, tensors, side):
    """(bytes, what they are) of one recipe piece."""
    if piece["source"] in ("derived", "constant"):
        start = piece["derived_offset"]
        return side[start:start + piece["size"]], "%s '%s'" % (piece["source"], piece["name"])
    tensor = tensors.get(piece["name"])
    if tensor is None:
        raise ExportError("the model has no %s '%s', which the compiled model reads: is this "
                          "the model.py it was compiled from?" % (piece["source"], piece["name"]))
    what = "%s '%s' (%s %s)" % (piece["source"], piece["name"], str(tensor.dtype)[6:],
                                list(tensor.shape))
    return tensor_bytes(dense_cpu(tensor)), what


def blob_pieces(recipe, tensors, side):
    """[(offset, bytes)] of every piece, after checking each against the recipe."""
    pieces, mismatches = [], []
    for piece in recipe["pieces"]:
        data, what = piece_bytes(piece, tensors, side)
        if len(data) != piece["size"]:
            mismatches.append("%s has %d bytes, the compile's had %d (dtype %s)"
                              % (what, len(data), piece["size"], piece.get("dtype", "?")))
        elif hashlib.sha256(data).hexdigest() != piece["sha256"]:
            mismatches.append("%s holds other values than at the compile" % what)
        pieces.append((piece["offset"], data))
    if mismatches:
        raise ExportError(
            "%d of %d weights differ from the compile's (%s), so the file would not be the "
            "one the model.so expects: %s%s. model.py must build the same weights on every "
            "run: seed its random init (torch.manual_seed) before creating the model; random "
            "numbers must also match between this torch and the compile's (%s)"
            % (len(mismatches), len(recipe["pieces"]), recipe.get("model_path", "?"),
               "; ".join(mismatches[:SHOWN_MISMATCHES]),
               "; ..." if len(mismatches) > SHOWN_MISMATCHES else "",
               recipe.get("producer", "?")))
    return pieces


def write_weights_file(path, recipe, pieces):
    """Header + blob, written to a temporary file beside `path` and renamed into place."""
    header = HEADER.pack(MAGIC, FILE_VERSION, HEADER.size, recipe["blob_size"],
                         int(recipe["fingerprint"], 16), int(recipe["checksum"], 16))
    temp = "%s.tmp-%d" % (path, os.getpid())
    try:
        with open(temp, "wb") as out:
            out.write(header)
            end = 0
            for offset, data in pieces:
                out.write(b"\0" * (offset - end))
                out.write(data)
                end = offset + len(data)
            out.write(b"\0" * (recipe["blob_size"] - end))
        os.replace(temp, path)
    except OSError as e:
        if os.path.exists(temp):
            os.remove(temp)
        raise ExportError("cannot write %s: %s" % (path, e.strerror or e))


def make_weights_file(model_path, recipe_path, output_path, derived_path=None):
    """-> blob size. Raises ExportError, writing nothing, on any mismatch."""
    recipe = read_recipe(recipe_path)
    side = read_side_file(recipe, recipe_path, derived_path)
    with torch.no_grad():  # as the exporter loads it; the weights are before any run
        model = load_module_only(model_path)
        pieces = blob_pieces(recipe, model_tensors(model), side)
    write_weights_file(output_path, recipe, pieces)
    return recipe["blob_size"]


def main(argv):
    from .cli import _fail, _Parser, _size
    parser = _Parser(prog="python -m pt2c_exporter weights",
                     description="Remake the external weights file of a model.so compiled "
                     "with pt2c --external-weights, from model.py and the compile's recipe.")
    parser.add_argument("model", help="the model.py the model.so was compiled from")
    parser.add_argument("--recipe", required=True, help="MODEL.so.weights.json from the compile")
    parser.add_argument("-o", "--output", required=True,
                        help="the weights file to write (the runtime looks for MODEL.so.weights)")
    parser.add_argument("--derived", help="the side file of derived weights (default: the "
                        "recipe's derived_file beside the recipe)")
    parser.add_argument("-q", "--quiet", action="store_true")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        size = make_weights_file(args.model, args.recipe, args.output, args.derived)
    except ExportError as e:
        _fail(e.message, e.detail)
        return 1
    except (KeyError, TypeError, ValueError) as e:  # a recipe edited by hand
        _fail("%s: malformed weights recipe (%s: %s)" % (args.recipe, type(e).__name__, e),
              traceback.format_exc())
        return 1
    if not args.quiet:
        sys.stderr.write("pt2c: wrote %s (%s of weights, checked against %s) in %.2f s\n"
                         % (args.output, _size(size), args.recipe,
                            time.perf_counter() - start))
    return 0
