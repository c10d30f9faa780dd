# `python -m` put the working directory first on sys.path: a user's random.py there must not
# replace the standard library's. Done before anything else is imported.
from stagelint.runtime.safepath import demote_first_entry

demote_first_entry()

from stagelint.cli import main  # noqa: E402

raise SystemExit(main())
