"""The pipeline of `stagelint check`: which files, in what order, by whom, into one project state.

The stages (`stagelint.pipeline.stages`), in order, over one `ProjectState`
(`stagelint.pipeline.state`):

    discover -> screen -> plan the rounds -> analyse -> project phase -> findings

The command line, the flake8 plugin and the language server all run these stages; the server
keeps the state and, when a file changes, re-analyses that file and re-runs the project phase
(reusing the last project's resolutions where `pipeline.incremental` says they hold).
Data flows one way: nothing here is imported by the analysis (`context`, `staging`, rules), and
no module of the pipeline imports `stagelint.engine`, which only puts the stages together.
"""
