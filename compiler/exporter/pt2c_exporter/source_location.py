"""The user's source line behind each recorded ATen call.

The innermost frame outside torch, the exporter and the standard library: for a model
written in model.py that is a model.py line; for a model from a library such as
transformers it is the library's line, which says more than `return self.model(x)`.
"""
import linecache
import os
import sys

import pt2c_pb2 as pb

from .user_errors import is_user_file


class SourceLocator:
    def __init__(self, model_dir):
        # Files under the model's directory are named relative to it ("model.py"), so the
        # artifact does not depend on where the project is checked out.
        self._model_dir = os.path.realpath(model_dir)
        self._names = {}

    def current(self):
        """A SourceLocation for the innermost user frame of the calling stack, or None."""
        frame = sys._getframe(1)
        while frame is not None:
            filename = frame.f_code.co_filename
            if is_user_file(filename):
                line = frame.f_lineno
                return pb.SourceLocation(file=self._display_name(filename), line=line,
                                         code=linecache.getline(filename, line).strip())
            frame = frame.f_back
        return None

    def _display_name(self, filename):
        name = self._names.get(filename)
        if name is None:
            path = os.path.realpath(filename)
            if path.startswith(self._model_dir + os.sep):
                name = os.path.relpath(path, self._model_dir)
            else:
                name = path
            self._names[filename] = name
        return name
