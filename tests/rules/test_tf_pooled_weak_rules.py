"""The pooled TensorFlow rules under 0.80 on the held-back halves, as facts (session 24; the
framework facts in tests/runtime/test_tf_pooled_weak_rules_facts.py, TF 2.21).

AX3's line 663 (keras-model-registry's `DistributionTransformLayer.call`, STG105): the block under
`if self.transform_type == "auto":` saves `self.transform_type` in a local, sets it for the
transform and puts it back before returning, so it holds the configured value after every call:
a saved-and-restored attribute is no flip (`analysis.stores.put_back_writes`)."""

from __future__ import annotations

from rulecases import assert_tiers


def test_an_attribute_saved_set_and_restored_in_its_block_is_no_flip():
    """Positive: the attribute tested is put back in the block that sets it, so no finding. Twins:
    no restore (the attribute flips once), a `return` between the set and the restore (the path
    through it keeps the new value), the local rebound before the restore."""
    assert_tiers("""
        import tensorflow as tf

        class Transform(tf.Module):
            def __init__(self):
                self.mode = "auto"
                self.count = tf.Variable(0)

            @tf.function
            def restored(self, x):
                if self.mode == "auto":
                    self.count.assign_add(1)
                    saved = self.mode
                    self.mode = "log"
                    y = tf.math.log(x)
                    self.mode = saved
                    return y
                return x

            @tf.function
            def kept(self, x):
                if self.mode == "auto":  # STG105
                    self.count.assign_add(1)
                    self.mode = "log"  # preview STG102
                    return tf.math.log(x)
                return x

            @tf.function
            def may_return(self, x, early):
                if self.mode == "auto":  # STG105
                    self.count.assign_add(1)
                    saved = self.mode
                    self.mode = "log"
                    if early:
                        return x
                    self.mode = saved
                return x

            @tf.function
            def rebound(self, x):
                if self.mode == "auto":  # STG105
                    self.count.assign_add(1)
                    saved = self.mode
                    self.mode = "log"
                    saved = "log"
                    self.mode = saved
                return x
    """)
