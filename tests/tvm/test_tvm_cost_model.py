"""ucmoh.tvm.CostModel with apache-tvm 0.27 (run by tvm_test.sh): a MetaSchedule
tuning run that ranks with a registry version end to end, updates it online
from the measured candidates and commits the result as a version. The
converter's own tests are in test_tir_to_ast.py."""
import os
import types
import unittest

import numpy as np
import tvm
import tvm.s_tir.meta_schedule as ms

from test_tir_to_ast import blocked, matmul
from ucmoh.tvm import CostModel, LocalBuilder
from ucmoh.tvm.model_blend import ModelBlend, blend_weights
from ucmoh.tvm.model_choice import ModelChoice, TaskRecord, concordant_pairs
from ucmoh.tvm.search_fitness import SearchFitness
from ucmoh.tvm.token_boost import TokenBoost, fitted_trust, prior_weight, training_window

REGISTRY, PLUGINS, WORK = (os.environ[k] for k in ("UCMOH_TEST_REGISTRY", "UCMOH_TEST_PLUGINS", "UCMOH_TEST_WORK"))
AVX2 = tvm.target.Target({"kind": "llvm", "mcpu": "core-avx2", "num-cores": 2})


class Tuning(unittest.TestCase):
    def test_metaschedule_tunes_with_the_registry_model(self):
        model = CostModel(REGISTRY, "ucmoh@1", AVX2, plugins=PLUGINS, update_epochs=2)
        database = ms.tune_tir(matmul(64), AVX2, os.path.join(WORK, "tune"), max_trials_global=8,
                               num_trials_per_iter=4, cost_model=model, builder=LocalBuilder())
        records = database.get_all_tuning_records()
        self.assertGreaterEqual(len(records), 4)
        self.assertTrue(all(r.run_secs for r in records))
        self.assertGreater(model.predicted, 0)
        self.assertGreaterEqual(model.measured, 4)
        self.assertGreaterEqual(model.model.info["updates"], 1)
        self.assertGreater(model.seconds, 0)
        # The search read every score as a positive fitness, and the update after the last batch dropped the references.
        self.assertEqual((model.handed.scores, model.handed.not_positive), (model.predicted, 0))
        self.assertEqual(model.fitness.references, {})
        saved = os.path.join(WORK, "model.json")
        model.save(saved)  # a registry version
        model.load(saved)
        self.assertEqual(model.model.info["registry_version"], 2)

    def test_a_program_the_converter_refuses_ranks_last_and_teaches_nothing(self):
        # An int8 design space where the VNNI tensorization failed leaves such programs (issue 37's int8 ResNet-18).
        model = CostModel(REGISTRY, "ucmoh@1", AVX2, plugins=PLUGINS, update_epochs=1)._inst  # called from Python
        task = types.SimpleNamespace(task_name="t", target=AVX2)
        readable = [types.SimpleNamespace(sch=types.SimpleNamespace(mod={"main": blocked(matmul(n))})) for n in (32, 64)]
        unreadable = types.SimpleNamespace(sch=types.SimpleNamespace(mod={"main": blocked(matmul(64, "int8", "int32"))}))
        logits = model.rank_logits(task, [readable[0], unreadable, readable[1]])
        self.assertTrue(np.isfinite(logits[[0, 2]]).all())
        self.assertEqual(logits[1], -np.inf)
        fitness = model.predict(task, [readable[0], unreadable, readable[1]])
        self.assertTrue(np.all(fitness > 0))
        self.assertEqual(int(np.argmin(fitness)), 1)  # the search's lowest, never clipped to nothing
        self.assertEqual(dict(model.unreadable), {"an untensorized s32 multiply-accumulate (the vector FMA "
                                                  "intrinsics are fp32; tensorize it)": 1})  # once: then cached
        ran = [ms.runner.RunnerResult(run_secs=[tvm.runtime.convert(t)], error_msg=None) for t in (1e-3, 2e-3, 3e-3)]
        model.update(task, [readable[0], unreadable, readable[1]], ran)
        self.assertEqual(model.measured, 2)  # the two readable programs, not the unreadable one


class Fitness(unittest.TestCase):
    """SearchFitness: what MetaSchedule's search reads of the registry model's logits."""

    def test_it_is_positive_and_keeps_the_logits_order(self):
        logits = np.linspace(-40.0, 5.0, 64)  # mostly negative: the search would clip them to 0
        fitness = SearchFitness()("t", logits)
        self.assertTrue(np.all(fitness > 0))
        self.assertTrue(np.all(np.diff(fitness) > 0))

    def test_calls_until_a_reset_share_the_first_populations_scale(self):
        fit = SearchFitness(temperature=1.0)
        first = fit("t", np.arange(64.0))
        later = fit("t", np.array([63.0, 0.0, 1000.0]))  # a better generation: on the same scale, not rescaled
        self.assertAlmostEqual(later[0], first[63])
        self.assertAlmostEqual(later[1], first[0])
        self.assertGreater(later[2], first[63])
        other = fit("u", np.arange(64.0) * 10)  # another task has its own reference
        self.assertAlmostEqual(other[63], first[63])
        fit.reset()
        self.assertAlmostEqual(fit("t", np.arange(64.0) + 5)[63], first[63])  # a new reference after the reset

    def test_an_unreadable_program_scores_lowest_and_leaves_the_reference(self):
        fit = SearchFitness(temperature=1.0)
        scores = fit("t", np.append(np.arange(64.0), -np.inf))  # -inf: a program CostModel cannot read
        self.assertTrue(np.all(scores > 0))
        self.assertEqual(int(np.argmin(scores)), 64)
        self.assertAlmostEqual(scores[63], SearchFitness(temperature=1.0)("t", np.arange(64.0))[63])
        self.assertTrue(np.all(fit("u", np.full(3, -np.inf)) > 0))  # a batch of nothing readable

    def test_a_small_batch_makes_no_reference_and_ties_score_one(self):
        fit = SearchFitness()
        self.assertEqual(fit("t", np.array([1.0, 1.0])).tolist(), [1.0, 1.0])
        self.assertEqual(fit.references, {})  # a judged batch of two is no population
        wide = fit("t", np.linspace(0.0, 64.0, 64))
        self.assertIn("t", fit.references)
        self.assertAlmostEqual(float(np.median(wide)), 1.0, places=1)  # the median candidate scores about 1
        with self.assertRaises(ValueError):
            SearchFitness(temperature=0)


class ChoosingPerTask(unittest.TestCase):
    """ModelChoice's bookkeeping (its tuning run is in network_study_test.sh)."""

    def test_a_pair_is_right_when_the_faster_program_scores_higher(self):
        self.assertEqual(concordant_pairs([3, 2, 1], [1.0, 2.0, 3.0]), (3, 3))
        self.assertEqual(concordant_pairs([1, 2, 3], [1.0, 2.0, 3.0]), (0, 3))
        # equal latencies make no pair; equal scores are not right
        self.assertEqual(concordant_pairs([5, 5, 0], [1.0, 1.0, 2.0]), (2, 2))
        self.assertEqual(concordant_pairs([1, 1, 1], [1.0, 2.0, 3.0]), (0, 3))

    def test_a_task_moves_to_the_online_model_once_it_was_right_more_often(self):
        task = TaskRecord()
        self.assertEqual(task.chosen, "prior")
        self.assertIsNone(task.accuracy("prior"))
        latencies = [1.0, 2.0, 3.0]
        task.add([3, 2, 1], [1, 2, 3], latencies)  # the prior right on 3 pairs, the online model on none
        self.assertEqual((task.chosen, task.pairs), ("prior", 3))
        task.add([1, 2, 3], [3, 2, 1], latencies)  # 3 against 3: a tie keeps the prior
        self.assertEqual(task.chosen, "prior")
        task.add([1, 2, 3], [3, 2, 1], latencies)  # 3 against 6
        self.assertEqual(task.chosen, "online")
        self.assertAlmostEqual(task.accuracy("online"), 6 / 9)
        self.assertAlmostEqual(task.accuracy("prior"), 3 / 9)

    def test_a_warm_up_chooses_each_tasks_first_candidates_at_random(self):
        class Prior:  # scores every candidate 7: the warm-up must not ask it
            def predict(self, context, candidates):
                return np.full(len(candidates), 7.0)

        class Online:  # never ready (no booster), so no batch is judged
            booster, data_size, num_warmup_samples = None, 0, 16

            def update(self, context, candidates, results):
                pass

        choice = ModelChoice(Prior(), Online(), warmup=4, seed=0)._inst  # the Python object behind TVM's
        failed = ms.runner.RunnerResult(run_secs=None, error_msg="failed")
        a, b = types.SimpleNamespace(task_name="a"), types.SimpleNamespace(task_name="b")
        self.assertTrue(np.all(choice.predict(a, [None] * 3) < 1))  # random scores lie in [0, 1)
        choice.update(a, [None] * 4, [failed] * 4)  # four measured (failed ones count: they were tried)
        np.testing.assert_array_equal(choice.predict(a, [None] * 3), [7.0] * 3)
        self.assertTrue(np.all(choice.predict(b, [None] * 3) < 1))  # another task warms up on its own
        self.assertEqual(ModelChoice(Prior(), Online(), seed=0)._inst.predict(a, [None]).tolist(), [7.0])  # no warm-up


class Blending(unittest.TestCase):
    """ModelBlend: both models' standardized scores, weighted by their pairs beyond chance."""

    class Prior:  # a candidate's logit is the candidate itself
        def rank_logits(self, context, candidates):
            return np.asarray(candidates, dtype="float64")

    class Online:  # ready (trained on its warm-up); ranks the other way round
        booster, data_size, num_warmup_samples = object(), 16, 16

        def predict(self, context, candidates):
            return -np.asarray(candidates, dtype="float64") / 100.0  # another scale than the prior's

        def update(self, context, candidates, results):
            pass

    def test_weights_are_each_models_pairs_beyond_chance(self):
        task, latencies = TaskRecord(), [1.0, 2.0, 3.0]
        self.assertEqual(blend_weights(task, True), {"prior": 1.0, "online": 0.0})  # nothing judged: the prior
        task.add([3, 2, 1], [3, 1, 2], latencies)  # the prior right on 3 of 3 pairs, XGBModel on 2
        weights = blend_weights(task, True)
        self.assertAlmostEqual(weights["prior"], 0.75)  # edges 1/2 and 1/6
        self.assertAlmostEqual(weights["online"], 0.25)
        self.assertEqual(blend_weights(task, False), {"prior": 1.0, "online": 0.0})  # XGBModel not trained yet
        both_wrong = TaskRecord()
        both_wrong.add([1, 2, 3], [1, 2, 3], latencies)
        self.assertEqual(blend_weights(both_wrong, True), {"prior": 0.5, "online": 0.5})

    def test_the_search_gets_both_models_on_one_scale(self):
        blend = ModelBlend(self.Prior(), self.Online(), seed=0)._inst
        a = types.SimpleNamespace(task_name="a")
        population = list(range(64))
        alone = blend.predict(a, population)  # no pair judged: the prior's fitness alone
        self.assertTrue(np.all(alone > 0) and np.all(np.diff(alone) > 0))
        blend.tasks["a"].add([3, 2, 1], [3, 2, 1], [1.0, 2.0, 3.0])  # both right on every pair: equal weights
        np.testing.assert_allclose(blend.predict(a, population), 1.0)  # opposite rankings cancel, whatever the scales
        ran = [ms.runner.RunnerResult(run_secs=[tvm.runtime.convert(t)], error_msg=None) for t in (1e-3, 2e-3)]
        blend.update(a, [0, 1], ran)  # candidate 0 is faster: XGBModel right, the prior wrong
        self.assertEqual(blend.standard["online"].references, {})  # XGBModel learned: a new reference
        self.assertIn("a", blend.standard["prior"].references)  # the prior never changes
        self.assertEqual(blend.choices()["a"]["weights"], {"prior": 1 / 3, "online": 2 / 3})  # edges 1/4 and 1/2
        self.assertTrue(np.all(np.diff(blend.predict(a, population)) < 0))  # now XGBModel's order leads
        self.assertEqual(blend.handed.calls, 3)

    def test_a_shortlist_has_xgbmodel_score_only_the_priors_best(self):
        class Online(self.Online):  # an order of its own; remembers what it was asked to score
            asked = []

            def predict(self, context, candidates):
                self.asked.append(list(candidates))
                return np.asarray([(c * 37) % 64 for c in candidates], dtype="float64")

        blend = ModelBlend(self.Prior(), Online(), seed=0, shortlist=0.25)._inst
        a = types.SimpleNamespace(task_name="a")
        blend._task(a).add([3, 2, 1], [3, 2, 1], [1.0, 2.0, 3.0])  # both weighted alike
        population = list(range(63, -1, -1))  # the prior's best first
        scores = blend.predict(a, population)
        self.assertEqual(sorted(Online.asked[0]), list(range(48, 64)))  # ceil(0.25 x 64): the prior's top 16
        listed, rest = scores[:16], scores[16:]
        self.assertGreaterEqual(listed.min(), rest.max())  # a shortlisted candidate outranks every other
        self.assertTrue(np.all(np.diff(rest) < 0))  # the rest in the prior's order
        self.assertFalse(np.all(np.diff(listed) < 0))  # within the shortlist XGBModel's order counts too
        for share in (0, 1.5):
            with self.assertRaisesRegex(ValueError, "shortlist must be a share"):
                ModelBlend(self.Prior(), Online(), shortlist=share)


class Boosting(unittest.TestCase):
    """TokenBoost: trees on the prior's tokens, boosting from its logits times each task's fitted trust."""

    class Prior:  # a candidate is an int: its logit is the int, its tokens [int, int mod 3]
        class Library:
            def flat_features(self, text, max_tokens):
                return np.asarray([[float(c), float(int(c) % 3)] for c in text.split()], dtype=np.float32)

        model = Library()

        def rank_logits(self, context, candidates):
            return np.asarray([c if c >= 0 else -np.inf for c in candidates], dtype="float64")

        def programs(self, context, candidates):
            return [str(c) if c >= 0 else None for c in candidates]  # a negative int: a program it cannot read

    @staticmethod
    def ran(latencies):
        return [ms.runner.RunnerResult(run_secs=[tvm.runtime.convert(t)], error_msg=None) for t in latencies]

    def test_trust_is_the_scale_that_best_predicts_the_measured_pairs(self):
        z, latencies = np.linspace(-1.5, 1.5, 16), np.linspace(2e-3, 1e-3, 16)  # a higher logit is faster
        self.assertEqual(fitted_trust(z, latencies), 4.0)  # always right: the grid's largest
        self.assertEqual(fitted_trust(z, latencies[::-1]), 0.0)  # always wrong: not trusted at all
        noisy = latencies.copy()
        noisy[::2] = noisy[::-2].copy()  # half the order scrambled
        self.assertLess(fitted_trust(z, noisy), 4.0)

    def test_the_trees_learn_what_the_prior_ranks_wrong(self):
        boost = TokenBoost(self.Prior(), seed=0)._inst
        a = types.SimpleNamespace(task_name="a")
        population = list(range(64))
        before = boost.predict(a, population)  # nothing measured: the prior's fitness, its order
        self.assertTrue(np.all(before > 0) and np.all(np.diff(before) > 0))
        measured = list(range(0, 64, 4))
        boost.update(a, measured, self.ran([1e-3 * (1 + c) for c in measured]))  # a higher int is slower
        self.assertEqual(boost.choices()["a"], {"trust": 0.0, "measured": 16, "trained": 16})
        after = boost.predict(a, population)
        self.assertTrue(np.all(after > 0))
        self.assertGreater(after[0], after[63])  # the trees' order now: lower ints first
        failed = ms.runner.RunnerResult(run_secs=None, error_msg="failed")
        boost.update(a, [1, 2], [failed, failed])  # failed runs teach nothing
        self.assertEqual(boost.measured, 16)
        self.assertGreater(boost.update_seconds, 0)

    def test_an_unreadable_program_ranks_last_and_teaches_the_trees_nothing(self):
        boost = TokenBoost(self.Prior(), seed=0)._inst
        a = types.SimpleNamespace(task_name="a")
        population = list(range(64)) + [-1]
        self.assertEqual(int(np.argmin(boost.predict(a, population))), 64)
        measured = [-1] + list(range(0, 64, 4))
        boost.update(a, measured, self.ran([1e-4] + [1e-3 * (1 + c) for c in measured[1:]]))  # -1 measured fastest
        self.assertEqual(boost.measured, 16)
        scores = boost.predict(a, population)
        self.assertTrue(np.all(scores > 0))
        self.assertEqual(int(np.argmin(scores)), 64)

    def test_the_priors_weight_halves_by_its_half_life(self):
        self.assertEqual(prior_weight(2.0, 0, 16), 2.0)
        self.assertEqual(prior_weight(2.0, 16, 16), 1.0)
        self.assertEqual(prior_weight(2.0, 48, 16), 0.5)
        self.assertEqual(prior_weight(2.0, 1000, 0), 2.0)  # no half-life: the fitted trust as it is
        boost = TokenBoost(self.Prior(), seed=0, half_life=16)._inst
        a = types.SimpleNamespace(task_name="a")
        measured = list(range(0, 64, 4))
        boost.update(a, measured, self.ran([1e-3 * (65 - c) for c in measured]))  # the prior is right: higher is faster
        self.assertEqual(boost.choices()["a"], {"trust": 4.0, "measured": 16, "weight": 2.0, "trained": 16})
        with self.assertRaisesRegex(ValueError, "half-life must be 0"):
            TokenBoost(self.Prior(), half_life=-1)

    def test_a_window_keeps_a_tasks_fastest_half_and_its_most_recent(self):
        latencies = [5.0, 1.0, 6.0, 2.0, 7.0, 8.0, 3.0, 9.0]
        self.assertEqual(list(training_window(latencies, 0)), list(range(8)))  # no window: all
        self.assertEqual(list(training_window(latencies, 8)), list(range(8)))  # no more than the window
        self.assertEqual(list(training_window(latencies, 4)), [1, 3, 6, 7])  # fastest 1, 3 and the last two
        self.assertEqual(list(training_window(latencies, 5)), [1, 3, 5, 6, 7])
        boost = TokenBoost(self.Prior(), seed=0, window=16)._inst
        a, b = types.SimpleNamespace(task_name="a"), types.SimpleNamespace(task_name="b")
        for start in range(0, 64, 16):  # a higher int is slower: the window holds the eight fastest of task a
            measured = list(range(start, start + 16))
            boost.update(a, measured, self.ran([1e-3 * (1 + c) for c in measured]))
        boost.update(b, [1, 2, 3], self.ran([3e-3, 2e-3, 1e-3]))
        choices = boost.choices()  # every measurement counted; the trees saw task a's window only
        self.assertEqual(choices, {"a": {"trust": 0.0, "measured": 64, "trained": 16},
                                   "b": {"trust": 4.0, "measured": 3, "trained": 3}})
        after = boost.predict(a, list(range(64)))
        self.assertGreater(after[0], after[63])
        for window in (-1, 1):
            with self.assertRaisesRegex(ValueError, "window must be 0"):
                TokenBoost(self.Prior(), window=window)


if __name__ == "__main__":
    unittest.main()
