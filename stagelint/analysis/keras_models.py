"""Keras models: whether a class is a Keras `Model`, and on which Keras it is built.

Asked by the rules about Keras model and layer methods (STG601: `model.predict`,
`layer.get_weights()` in staged code); it asks
the project's classes (`staging.Project.derives`) and the framework data
(`frameworks.tensorflow.is_keras_model_class`, `keras_flavour`).
"""

from __future__ import annotations

from stagelint.frameworks import TENSORFLOW, is_keras_model_class, keras_flavour


def keras_model(project, cls: str) -> tuple[str, str] | None:
    """(flavour, Keras model class) when `cls` is a Keras model class, or a project class deriving
    from one through project base classes; None when the project does not show it is one (a
    scikit-learn estimator, a class of a library the project does not hold)."""
    if not cls:
        return None
    if is_keras_model_class(cls):
        return keras_flavour(cls), cls
    found: list[str] = []

    def keras_base(base: str) -> bool:
        if is_keras_model_class(base):
            found.append(base)
            return True
        return False

    if project.derives(cls, keras_base) and found:
        return keras_flavour(found[0]), found[0]
    return None


def keras_layer(project, cls: str) -> tuple[str, str] | None:
    """(flavour, Keras base class) when `cls` is a Keras layer or model class (`keras.layers.Dense`,
    `tf.keras.Model`), or a project class deriving from one through project base classes; None
    when the project does not show it is one."""
    if not cls:
        return None
    if TENSORFLOW.is_layer_base(cls):
        return keras_flavour(cls) or "either", cls
    found: list[str] = []

    def keras_base(base: str) -> bool:
        if TENSORFLOW.is_layer_base(base):
            found.append(base)
            return True
        return False

    if project.derives(cls, keras_base) and found:
        return keras_flavour(found[0]) or "either", found[0]
    return None
