"""`# noqa: STGnnn` comments that suppress nothing (STG001). The rule has no part in the walk:
which comments suppressed a finding is known once every finding is judged
(`pipeline.unusednoqa`)."""

from __future__ import annotations

from stagelint.rules.base import Rule


class UnusedNoqaRule(Rule):
    """
    ## What it does
    Reports each stagelint code in a `# noqa: ...` comment that suppressed no finding on its
    line in this run, like ruff's RUF100: the code names no finding there (the code changed,
    the function is no longer staged, stagelint no longer reports it), is not a rule
    (`STG107`), or names STG000, which no comment can suppress. A code that covers several
    rules (`# noqa: STG1`) is reported when none of them had a finding there.

    Only what stagelint can know is reported:

    - not other tools' codes (`E501`, `F401`, `BLE001`): stagelint cannot tell whether they
      suppress something;
    - not a bare `# noqa`: it suppresses every tool's findings on the line, so only a tool
      that knows every code can tell it is unused;
    - not a code whose rule does not run here: not selected (`--select`, `ignore`,
      `per-file-ignores`), turned off for the file (`# stagelint: noqa: STG101`), in the
      preview tier without `--preview`, or a runtime rule (STG9xx, reported by `stagelint
      run`); nor a code whose finding stagelint holds back (a proof it cannot complete, a
      preview step): the comment may still be needed;
    - nothing in a file that was not analysed (over the size budget, a syntax error);
    - not in a comment that names STG001 itself (`# noqa: STG101,STG001`).

    On by default: stagelint owns the codes it judges, it reports only what it can prove, and
    the fix is safe. Turn it off with `ignore = ["STG001"]` (or `--ignore STG001`); select it
    alone with `--select STG001`. Under flake8 the plugin reports it too (docs/adopting.md).

    The fix (safe) removes the unused codes from the comment, and the whole `# noqa` with its
    reason when no code is left; another comment on the line (`# type: ignore`) stays.

    ## Why is this bad?
    A `# noqa` that suppresses nothing hides the next real finding on that line: once the
    code changes, a new pitfall of the same rule appears there silently. Removing stale
    suppressions keeps each remaining one a decision someone made.

    ## Example
    ```python
    @tf.function
    def step(x):
        tf.print("step", x)  # noqa: STG101
        return x + 1
    ```

    ## Use instead
    ```python
    @tf.function
    def step(x):
        tf.print("step", x)
        return x + 1
    ```
    """

    code = "STG001"
    name = "unused-noqa"
    #: `reason`: why the code suppresses nothing here
    message = "`{code}` in this `# noqa` suppresses nothing: {reason}; remove it"
    always = True
    fixable = True
    severity = "warning"
    valid = (
        """
        import tensorflow as tf

        @tf.function
        def step(x):
            print("tracing step", x)  # noqa: STG101
            return x + 1
        """,
        """
        import os  # noqa: F401, E501

        def f(x):
            return x  # noqa
        """,
    )
    invalid = (
        """
        import tensorflow as tf

        @tf.function
        def step(x):
            tf.print("step", x)  # noqa: STG101  # STG001
            return x + 1
        """,
        """
        import tensorflow as tf

        @tf.function
        def step(x):
            print("tracing step", x)  # noqa: STG101,STG201 the log line  # STG001
            return x + 1
        """,
    )
