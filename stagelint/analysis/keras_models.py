"""Keras models: whether a class is a Keras `Model`, and on which Keras it is built.

Asked by the rules about Keras model and layer methods (STG601: `model.predict`,
`layer.get_weights()` in staged code; STG105: `built` set before `call`); it asks
the project's classes (`staging.Project.derives`) and the framework data
(`frameworks.tensorflow.is_keras_model_class`, `keras_flavour`).
"""

from __future__ import annotations

from stagelint.frameworks import TENSORFLOW, is_keras_model_class, keras_flavour


def keras_model(project, cls: str) -> tuple[str, str] | None:
    """(flavour, Keras model class) when `cls` is a Keras model class, or a project class deriving
    from one through project base classes; None when the project does not show it is one (a
    scikit-learn estimator, a class of a library the project does not hold)."""
    base = _keras_base(project, cls, is_keras_model_class)
    return (keras_flavour(base), base) if base is not None else None


def keras_layer(project, cls: str) -> tuple[str, str] | None:
    """(flavour, Keras base class) when `cls` is a Keras layer or model class (`keras.layers.Dense`,
    `tf.keras.Model`), or a project class deriving from one through project base classes; None
    when the project does not show it is one."""
    base = _keras_base(project, cls, TENSORFLOW.is_layer_base)
    return (keras_flavour(base) or "either", base) if base is not None else None


def _keras_base(project, cls: str, is_base) -> str | None:
    """`cls` itself when `is_base` holds of it, else the first base `is_base` holds of that the
    project's classes derive `cls` from; None when none is shown."""
    if not cls:
        return None
    if is_base(cls):
        return cls
    found: list[str] = []

    def keras_base(base: str) -> bool:
        if is_base(base):
            found.append(base)
            return True
        return False

    return found[0] if project.derives(cls, keras_base) and found else None


def built_before_call(project, cls: str, key) -> bool:
    """`self.built` is True in every run of `key`, the `call` of `cls`
    (`frameworks.tensorflow.KERAS_BUILT_ATTRIBUTE`: Keras builds a layer and sets `built` in
    `__call__` before `call` runs, eagerly or in the first trace): `cls` is shown to be a Keras
    layer or model, and no call site of the project invokes the method itself (`layer.call(x)`
    skips `__call__`, and the build)."""
    if keras_layer(project, cls) is None:
        return False
    method = key[1].rsplit(".", 1)[-1]
    return not any(site.target and site.target[-1] == method for _, site in project.call_sites.get(key, ()))
