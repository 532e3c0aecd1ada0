"""@pt2c_python: which Python pt2c_model's compile actions export with (pt2c.bzl).

Bazel runs actions without the user's environment, so pt2c could not find the project's
Python there by itself; this repository rule looks at fetch time, in pt2c's own order
(compiler/driver/PythonFinder.cpp): $PT2C_PYTHON, $PT2C_VENV/bin/python,
~/.cache/pt2c/venv/bin/python. None found: "" (pt2c then tries python3 on PATH). It is
looked at again when one of those variables changes.
"""

def _pt2c_python_impl(repository_ctx):
    env = repository_ctx.os.environ
    candidates = []
    if env.get("PT2C_PYTHON"):
        candidates.append(env["PT2C_PYTHON"])
    if env.get("PT2C_VENV"):
        candidates.append(env["PT2C_VENV"] + "/bin/python")
    if env.get("HOME"):
        candidates.append(env["HOME"] + "/.cache/pt2c/venv/bin/python")
    python = ""
    for candidate in candidates:
        if repository_ctx.path(candidate).exists:
            python = candidate
            break
    repository_ctx.file("BUILD.bazel", "")
    repository_ctx.file("python.bzl", "PT2C_PYTHON = %r\n" % python)

pt2c_python = repository_rule(
    implementation = _pt2c_python_impl,
    environ = ["PT2C_PYTHON", "PT2C_VENV", "HOME"],
    local = True,
)
