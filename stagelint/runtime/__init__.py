"""`stagelint run`: confirm static findings by running the user's tests in graph and eager mode.

The parent process (`cli`, `executor`, `lint`, `records`, `compare`, `verdicts`, `report`) never
imports TensorFlow; the two child pytest processes load `pytest_plugin`, which installs
`recorder` (with `linetrace`, `capture`, `summaries`) and writes one JSON line per event.
"""
