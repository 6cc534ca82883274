"""The README's "Certify your own problem" example runs as written, and certifies a model the
package has never seen with no edit to the package."""

import pathlib
import re


def test_certify_your_own_problem_example_runs():
    text = (pathlib.Path(__file__).parents[1] / "README.md").read_text()
    section = text.split("## Certify your own problem", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)  # the example asserts report.passed
    report = namespace["report"]
    assert report.passed and {c.solver for c in report.checks} == {"clarabel", "scs"}
    assert all(c.kind == "optimality" and c.lower <= c.upper + 1e-6 for c in report.checks)
