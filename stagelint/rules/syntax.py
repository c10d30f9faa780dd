"""Files stagelint cannot read as Python (STG000)."""

from __future__ import annotations

from stagelint.rules.base import Rule


class SyntaxErrorRule(Rule):
    """
    ## What it does
    Reports a file that does not parse as Python, at the position of the syntax error.

    Not reported: files excluded by the configuration, and files that parse but that Python
    would reject later (an import that fails, a name error): stagelint never runs the code.
    Nor a file Python compiles whose indentation mixes a tab after spaces, which libcst refuses:
    it is checked as the same text with those tabs made spaces (its findings keep the file's
    lines and columns; no fix is offered in it).

    ## Why is this bad?
    stagelint cannot look for staging pitfalls in a file it cannot parse, so the file is
    reported rather than silently skipped; the other files are still checked.

    ## Example
    ```python
    def f(x:
        return x
    ```

    ## Use instead
    ```python
    def f(x):
        return x
    ```
    """

    code = "STG000"
    name = "syntax-error"
    #: `unit`: "file", or "cell" for a notebook's cell (the notebook's other cells are checked)
    message = "cannot parse this {unit}: {error}; fix the syntax so stagelint can check it"
    always = True
    valid = (
        """
        def f(x):
            return x
        """,
    )
    invalid = (
        """
        def f(x):
            return x +  # STG000
        """,
    )
