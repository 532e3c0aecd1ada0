"""`pt2c report model.pt2c [--json]` and `--strict` through the pt2c command.

The report's text comes from two printers, the C++ `pt2c report` and the exporter's
(for --strict and for `pt2c model.py`, whose artifact is temporary); the tests check
that they print the same bytes.
"""
import json
import textwrap

from conftest import REPO, run

MLP = REPO / "examples" / "mlp" / "model.py"

# Lines are found by their `# MARK` comments. The quotes, backslash and tab in the
# BRANCH line's comment must come out of --json escaped and intact.
MODEL = '''
import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros(1))

    def forward(self, x):
        if x.sum() > 0:  # BRANCH "quoted" \\ back\tslash
            x = x * 2
        self.calls.add_(1)  # BUFFER
        return x + torch.rand(3), 3  # RAND


model = M()
example_inputs = (torch.ones(3),)
'''


def line_of(mark):
    lines = textwrap.dedent(MODEL).splitlines()
    [number] = [i + 1 for i, text in enumerate(lines) if "# " + mark in text]
    return number, lines[number - 1].strip()


def export(pt2c, tmp_path, *options):
    model = tmp_path / "model.py"
    model.write_text(textwrap.dedent(MODEL))
    artifact = tmp_path / "model.pt2c"
    result = run([pt2c, "export", model, "-o", artifact, *options])
    return result, model, artifact


def test_report_text(pt2c, tmp_path):
    exported, model, artifact = export(pt2c, tmp_path)
    assert exported.returncode == 0, exported.stderr
    assert "; report: 1 DATA_DEPENDENT, " in exported.stderr
    assert "(details: pt2c report %s)" % artifact in exported.stderr
    result = run([pt2c, "report", artifact])
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert text.startswith("draft report for %s: " % model)
    branch, branch_code = line_of("BRANCH")
    assert "model.py:%d: %s\n" % (branch, branch_code) in text
    table = text.split("\n\n")[1].splitlines()
    assert table[0].split() == ["#", "KIND", "COUNT", "LOCATION", "OP"]
    rows = [row.split() for row in table[1:]]
    assert ["DATA_DEPENDENT", "1", "model.py:%d" % branch, "aten::_local_scalar_dense"] in [
        row[1:] for row in rows]
    assert ["BUFFER_MUTATION", "1", "model.py:%d" % line_of("BUFFER")[0]] in [
        row[1:4] for row in rows]
    assert ["NON_TENSOR_OUTPUT", "1", "-", "-"] in [row[1:] for row in rows]


def test_report_json(pt2c, tmp_path):
    exported, model, artifact = export(pt2c, tmp_path)
    assert exported.returncode == 0, exported.stderr
    result = run([pt2c, "report", artifact, "--json"])
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["model"] == str(model)
    assert report["producer"].startswith("pt2c-exporter torch=")
    entries = report["entries"]
    assert report["findings"] == len(entries)
    by_kind = {}
    for e in entries:
        by_kind.setdefault(e["kind"], []).append(e)
    branch, branch_code = line_of("BRANCH")
    [read] = by_kind["DATA_DEPENDENT"]
    assert (read["file"], read["line"], read["code"], read["assumed"], read["count"]) == (
        "model.py", branch, branch_code, "True", 1)
    assert '"quoted" \\ back\tslash' in read["code"]
    [random] = by_kind["RANDOMNESS"]
    assert (random["op"], random["line"]) == ("aten::rand", line_of("RAND")[0])
    [output] = by_kind["NON_TENSOR_OUTPUT"]
    assert output["file"] is None and output["line"] is None and output["code"] is None
    assert set(read) == {"kind", "count", "file", "line", "code", "op", "message", "assumed"}


def test_report_of_a_clean_model(pt2c, tmp_path):
    artifact = tmp_path / "mlp.pt2c"
    assert run([pt2c, "export", MLP, "-o", artifact]).returncode == 0
    result = run([pt2c, "report", artifact])
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("draft report for %s: no findings (" % MLP)
    assert result.stdout.count("\n") == 1
    assert json.loads(run([pt2c, "report", artifact, "--json"]).stdout)["entries"] == []


def test_report_of_a_bad_file(pt2c, tmp_path):
    bad = tmp_path / "bad.pt2c"
    bad.write_text("hello")
    result = run([pt2c, "report", bad])
    assert result.returncode == 1
    assert result.stderr.startswith("pt2c: error: ") and "bad.pt2c" in result.stderr


def test_strict_fails_and_prints_what_pt2c_report_prints(pt2c, tmp_path):
    exported, model, artifact = export(pt2c, tmp_path)
    assert exported.returncode == 0, exported.stderr
    expected = run([pt2c, "report", artifact]).stdout
    so = tmp_path / "model.so"
    result = run([pt2c, model, "--strict", "-o", so])
    assert result.returncode != 0
    assert result.stderr.startswith("pt2c: error: model.py: --strict: the draft report has ")
    printed = result.stderr[result.stderr.index("draft report for "):]
    assert printed[:len(expected)] == expected
    assert printed[len(expected):].startswith("pt2c: error: export of ")
    assert not so.exists()
    assert not list(tmp_path.glob("model.so*"))


def test_strict_export_writes_no_artifact(pt2c, tmp_path):
    result, _, artifact = export(pt2c, tmp_path, "--strict")
    assert result.returncode != 0 and "--strict" in result.stderr
    assert not artifact.exists()


def test_one_step_compile_prints_the_whole_report(pt2c, tmp_path):
    # The artifact of `pt2c model.py` is temporary, so the report is printed in full.
    model = tmp_path / "model.py"
    model.write_text(textwrap.dedent(MODEL))
    result = run([pt2c, model, "--emit", "aten"])
    assert "; report: " in result.stderr and "(below)" in result.stderr, result.stderr
    assert "draft report for %s: " % model in result.stderr
    assert "pt2c report /tmp" not in result.stderr  # no hint at a file that is gone
