"""What the thirteenth audit's held-back TensorFlow half AX left after session 22, as facts.

AX2 (tf2_grf's `MAPolicyWithValue.value`): each branch of an `if`/`else` in a loop over the agents
calls `result.numpy()`, then the method prints. Under a trace `.numpy()` raises on a tensor
(AttributeError: 'SymbolicTensor' object has no attribute 'numpy') or a variable
(NotImplementedError), TF 2.21 (tests/runtime/test_tf_pooled_facts.py), so what follows a
statement every path through which calls one runs while tracing only where none does
(`FileContext.compound_raising`)."""

from __future__ import annotations

from rulecases import assert_tiers


def test_code_after_an_if_whose_every_branch_calls_numpy_of_a_tensor_is_never_traced():
    """Each branch of the `if`/`elif`/`else` calls `.numpy()` of a known tensor (STG601 says so):
    the print after it is in no trace. Twins: an `if` without `else` (a path runs no branch), a
    branch that may leave first (`return`), a receiver not known a tensor (a guess: preview)."""
    assert_tiers("""
        import tensorflow as tf

        class Policy(tf.Module):
            @tf.function
            def value(self, latent, wide):
                result = tf.squeeze(latent, axis=1)
                if wide:
                    out = result.numpy()[0]  # STG601
                elif latent.ndim == 3:
                    out = tf.reduce_sum(result).numpy()  # STG601
                else:
                    out = result.numpy()[1]  # STG601
                print("value", out)
                return result

            @tf.function
            def no_else(self, latent, wide):
                result = tf.squeeze(latent, axis=1)
                out = None
                if wide:
                    out = result.numpy()[0]  # STG601
                print("no else", out)  # STG101
                return result

            @tf.function
            def may_return(self, latent, wide):
                result = tf.squeeze(latent, axis=1)
                if wide:
                    if latent.ndim == 2:
                        return result
                    out = result.numpy()[0]  # STG601
                else:
                    out = result.numpy()[1]  # STG601
                print("may return", out)  # STG101
                return result

            @tf.function
            def unknown(self, latent, wide):
                result = tf.squeeze(latent, axis=1)
                if wide:
                    out = self.table.numpy()
                else:
                    out = result.numpy()  # STG601
                print("table", out)  # preview STG101
                return result
    """)


def test_code_after_a_loop_whose_body_calls_numpy_runs_while_tracing_only_if_the_loop_is_empty():
    """AX2's shape: the `.numpy()` calls are in a loop over `self.agent_ids`, whose length the code
    does not show: with no agent the loop does not run and the print is traced, a guess (preview).
    Twins: a `break` before the call (a path through the loop skips it), the call after the print."""
    assert_tiers("""
        import tensorflow as tf

        class MAPolicy(tf.Module):
            def __init__(self, agent_ids, critics):
                self.agent_ids = agent_ids
                self.critics = critics

            @tf.function
            def value(self, latent):
                results = []
                for a in self.agent_ids:
                    if latent[a].ndim == 2:
                        result = tf.squeeze(self.critics[a](latent[a]), axis=1)
                        results.append(result.numpy()[0])  # STG601
                    else:
                        result = tf.squeeze(self.critics[a](tf.expand_dims(latent[a], 0)), axis=1)
                        results.append(result.numpy()[0])  # STG601
                print(f"results is {results}")  # preview STG101
                return results

            @tf.function
            def with_break(self, latent):
                results = []
                for a in self.agent_ids:
                    if a is None:
                        break
                    results.append(tf.squeeze(latent[a]).numpy())  # STG601
                print("after break", results)  # STG101
                print("before")  # STG101
                for a in self.agent_ids:
                    results.append(tf.squeeze(latent[a]).numpy())  # STG601
                return results
    """)
