"""pytest fixtures for the exporter tests (the helpers live in exporter_harness.py)."""
import textwrap

import pytest

from exporter_harness import MLP_MODEL, run_exporter


@pytest.fixture
def export_source(tmp_path):
    """export_source(code, *options) writes tmp_path/model.py and exports it to
    tmp_path/out.pt2c, passing the exporter the options (such as --strict)."""
    def export(code, *options):
        model = tmp_path / "model.py"
        model.write_text(textwrap.dedent(code))
        return run_exporter(str(model), str(tmp_path / "out.pt2c"), *options)
    return export


@pytest.fixture(scope="session")
def mlp(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("mlp") / "mlp.pt2c")
    run = run_exporter(MLP_MODEL, out)
    assert run.returncode == 0, run.stderr
    return run
