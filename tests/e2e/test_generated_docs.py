"""The generated docs: docs/OP_COVERAGE.md must be what tools/docs/gen_op_coverage.py
writes from the dialect, the decomposition registry and the recorded e2e op usage, and
tools/zoo_report.py (which wrote docs/ZOO.md) must still compile, run and measure a
model."""
import re
import sys

from conftest import BIN, REPO, run

GEN_OP_COVERAGE = REPO / "tools" / "docs" / "gen_op_coverage.py"
ZOO_REPORT = REPO / "tools" / "zoo_report.py"


def dialect_ops():
    """The aten dialect's op names, as ir/aten/gen_aten_ops.py makes them."""
    sys.path.insert(0, str(REPO / "ir" / "aten"))
    from gen_aten_ops import mlir_name
    return {"aten." + mlir_name(line.split("(")[0].strip())
            for line in (REPO / "ir" / "aten" / "aten_ops.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")}


def test_op_coverage_doc_is_up_to_date():
    assert (BIN / "tools" / "pt2c-opt" / "pt2c-opt").exists(), "build //tools/pt2c-opt"
    result = run([sys.executable, GEN_OP_COVERAGE, "--check"])
    assert result.returncode == 0, result.stderr


def test_decomposition_list_names_dialect_ops():
    # The registry listing the doc is made from: every entry is an op of the dialect.
    listed = run([BIN / "tools" / "pt2c-opt" / "pt2c-opt", "--pt2c-list-decompositions"])
    assert listed.returncode == 0, listed.stderr
    names = listed.stdout.split()
    dialect = dialect_ops()
    assert "aten.mm" in names and "aten.cumsum" in names
    assert names == sorted(names) and not set(names) - dialect


def test_dtype_rules_cover_dialect_ops():
    # The list the doc's dtype-rule column is made from: every op of the dialect has a
    # rule (the Catch2 aten_dtype_rules_test also accepts a stated reason to trust one).
    listed = run([BIN / "tools" / "pt2c-opt" / "pt2c-opt", "--pt2c-list-dtype-rules"])
    assert listed.returncode == 0, listed.stderr
    names = listed.stdout.split()
    dialect = dialect_ops()
    assert "aten.div.Tensor" in names and "aten.argmax" in names
    assert names == sorted(names) and not dialect - set(names)


def test_zoo_report_measures_a_model(pt2c, cpp_host, tmp_path):
    out = tmp_path / "ZOO.md"
    result = run([sys.executable, ZOO_REPORT, "--models", "mlp", "--output", out])
    assert result.returncode == 0, result.stderr
    row = re.search(r"^\| mlp \| (\d+) \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+ KiB) \| "
                    r"([0-9.e+-]+) \|$", out.read_text(), re.M)
    assert row, out.read_text()
    assert int(row.group(1)) > 0 and float(row.group(5)) <= 1e-4


def test_zoo_report_rejects_unknown_model():
    result = run([sys.executable, ZOO_REPORT, "--models", "no_such_model"])
    assert result.returncode != 0 and "unknown model" in result.stderr
