"""The facts behind the pooled TensorFlow rules under 0.80 (STG105, STG503, STG202, STG403 on the
held-back halves; bench/fresh_audit_notes.md, "The pooled TF rules under 0.80 as facts"),
observed with the real TensorFlow 2.21 (Keras 3.15.1)."""

from __future__ import annotations

import pytest

tf = pytest.importorskip("tensorflow")


class _Transform(tf.Module):
    """AX3's shape (keras-model-registry's `DistributionTransformLayer.call`): a state op under
    `if self.mode == "auto":`, and in that block the mode saved, set for the call's own work and
    put back before the block ends."""

    def __init__(self, restore: bool):
        self.mode = "auto"
        self.restore = restore
        self.count = tf.Variable(0)

    def __call__(self, x):
        if self.mode == "auto":
            self.count.assign_add(1)
            saved = self.mode
            self.mode = "log"
            y = tf.math.log(x) if self.mode == "log" else x
            if self.restore:
                self.mode = saved
            return y
        return x


def test_an_attribute_saved_set_and_put_back_in_its_block_is_no_flip():
    """`analysis.stores.put_back_writes` (STG105): an attribute a block saves in a local, sets and
    restores from that local before anything can leave the block holds its configured value after
    every call, so an `if` on it decided at the trace is decided as eager code decides it on each
    call: the traced Function and the eager method update the variable alike (1, 2, 3). Without
    the restore (the twin) the attribute flips once: eagerly the op runs once, the traced
    Function runs it on every call (STG105's bug)."""
    def counts(restore: bool, traced: bool) -> list[int]:
        m = _Transform(restore)
        f = tf.function(m.__call__) if traced else m.__call__
        out = []
        for _ in range(3):
            f(tf.constant(2.0))
            out.append(int(m.count.numpy()))
        return out

    assert counts(restore=True, traced=False) == [1, 2, 3]
    assert counts(restore=True, traced=True) == [1, 2, 3]
    assert counts(restore=False, traced=False) == [1, 1, 1]
    assert counts(restore=False, traced=True) == [1, 2, 3]
