"""The installed ucmoh Python package (run by sdk_test.sh with Debian's
python3 and PYTHONPATH at the install prefix): scores equal the registry's,
update under forgetting control, commit, info, and clear refusals."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import numpy as np

import ucmoh

ENV = {k: os.environ[k] for k in ("UCMOH_TEST_REGISTRY", "UCMOH_TEST_PULLED", "UCMOH_TEST_PLUGINS",
                                  "UCMOH_TEST_AST", "UCMOH_TEST_PREDICT", "UCMOH_TEST_FUTURE",
                                  "UCMOH_TEST_REGISTRY_TOOL", "UCMOH_TEST_RECORDS")}


def read(path):
    with open(path) as f:
        return f.read()


def programs():
    return [json.loads(line) for line in read(ENV["UCMOH_TEST_AST"]).splitlines()]


def pca(scores, latencies):
    """Pairwise comparison accuracy within one task."""
    right = total = 0
    for i in range(len(scores)):
        for j in range(len(scores)):
            if latencies[i] < latencies[j]:
                total += 1
                right += scores[i] > scores[j]
    return right / total


class Scoring(unittest.TestCase):
    def test_package_is_the_installed_one(self):
        self.assertIn(os.path.dirname(ucmoh.__file__), os.environ["PYTHONPATH"].split(":")[0] + "/ucmoh")
        self.assertEqual(ucmoh.FEATURE_SCHEMA_VERSION, 3)

    def test_scores_equal_registry_predict(self):
        want = json.loads(read(ENV["UCMOH_TEST_PREDICT"]))["scores"]
        with ucmoh.open(ENV["UCMOH_TEST_PULLED"], plugins=ENV["UCMOH_TEST_PLUGINS"]) as model:
            from_dicts = model.score(programs())
            from_text = model.score(read(ENV["UCMOH_TEST_AST"]))
        self.assertIsInstance(from_dicts, np.ndarray)
        self.assertEqual(from_dicts.dtype, np.float32)
        np.testing.assert_array_equal(from_dicts, np.asarray(want, dtype=np.float32))
        np.testing.assert_array_equal(from_text, from_dicts)
        with ucmoh.open(ENV["UCMOH_TEST_REGISTRY"], "ucmoh@1", plugins=ENV["UCMOH_TEST_PLUGINS"]) as model:
            np.testing.assert_array_equal(model.score(programs()), from_dicts)

    def test_bf16_precision_scores_close_to_float32(self):
        with ucmoh.open(ENV["UCMOH_TEST_PULLED"], plugins=ENV["UCMOH_TEST_PLUGINS"]) as model:
            f32 = model.score(programs())
            self.assertEqual(model.info["precision"], "float32")
            model.set_precision("bf16")
            self.assertEqual(model.info["precision"], "bf16")
            try:
                bf16 = model.score(programs())
            except ucmoh.Error as e:  # a CPU with no bf16 matmul: refused by name
                self.assertIn("bf16", str(e))
                self.skipTest(str(e))
            with self.assertRaisesRegex(ucmoh.Error, "'fp8'"):
                model.set_precision("fp8")
            model.set_precision("float32")
            np.testing.assert_array_equal(model.score(programs()), f32)
        self.assertFalse(np.array_equal(bf16, f32), "bf16 gave float32's exact scores")
        spread = float(f32.max() - f32.min())
        self.assertLess(float(np.abs(bf16 - f32).max()), 0.02 * spread)

    def test_flat_features_are_the_registrys_tokens(self):
        dumped = subprocess.run([ENV["UCMOH_TEST_REGISTRY_TOOL"], "--plugins", ENV["UCMOH_TEST_PLUGINS"], "features",
                                 "--dump-tokens", ENV["UCMOH_TEST_RECORDS"]], check=True, capture_output=True, text=True)
        tokens = [json.loads(line)["tokens"] for line in dumped.stdout.splitlines()]
        longest = max(len(matrix) for matrix in tokens)
        with ucmoh.open(ENV["UCMOH_TEST_PULLED"], plugins=ENV["UCMOH_TEST_PLUGINS"]) as model:
            rows = model.flat_features(programs(), max_tokens=longest + 2)
            from_records = model.flat_features(read(ENV["UCMOH_TEST_RECORDS"]), max_tokens=longest + 2, format="records")
            short = model.flat_features(programs()[:5], max_tokens=1)
            with self.assertRaisesRegex(ucmoh.Error, "max_tokens must be at least 1"):
                model.flat_features(programs()[:5], max_tokens=0)
        dim = len(tokens[0][0])
        self.assertEqual(rows.shape, (len(tokens), (longest + 2) * dim + 1))
        np.testing.assert_array_equal(from_records, rows)  # an AST and its record give the same tokens
        for row, matrix in zip(rows, tokens):
            n = len(matrix)
            self.assertEqual(row[-1], n)  # the token count, last
            np.testing.assert_array_equal(row[:n * dim], np.asarray(matrix, dtype=np.float32).ravel())
            self.assertFalse(row[n * dim:-1].any())  # zero-padded
        self.assertEqual(short.shape, (5, dim + 1))  # truncated to one token; the count stays the true one
        np.testing.assert_array_equal(short[:, :dim], rows[:5, :dim])
        np.testing.assert_array_equal(short[:, -1], rows[:5, -1])

    def test_json_array_input(self):
        with ucmoh.open(ENV["UCMOH_TEST_PULLED"], plugins=ENV["UCMOH_TEST_PLUGINS"]) as model:
            some = programs()[:40]
            self.assertEqual(model.score(json.dumps(some)).shape, (40,))

    def test_info(self):
        with ucmoh.open(ENV["UCMOH_TEST_PULLED"], plugins=ENV["UCMOH_TEST_PLUGINS"]) as model:
            info = model.info
        self.assertEqual(info["intrinsics"], ["x86.avx2"])
        self.assertEqual(info["feature_schema"], 3)
        self.assertEqual(info["registry_version"], 1)
        self.assertEqual(info["source"], "pulled")
        self.assertGreater(info["metrics"]["acc"], 0.5)


class Refusals(unittest.TestCase):
    def test_unknown_feature_schema(self):
        with self.assertRaises(ucmoh.Error) as e:
            ucmoh.open(ENV["UCMOH_TEST_FUTURE"], plugins=ENV["UCMOH_TEST_PLUGINS"])
        self.assertIn("feature schema 99", str(e.exception))
        self.assertIn("knows only schema 3", str(e.exception))

    def test_bad_ast_names_the_field(self):
        bad = programs()[:3]
        bad[2]["body"][0]["loop"]["extent"] = 0
        with ucmoh.open(ENV["UCMOH_TEST_PULLED"], plugins=ENV["UCMOH_TEST_PLUGINS"]) as model:
            with self.assertRaises(ucmoh.Error) as e:
                model.score(bad)
        self.assertEqual(str(e.exception), "line 3: $.body[0].loop.extent: must be an integer >= 1")
        self.assertEqual(e.exception.code, 1)

    def test_pulled_model_updates_but_does_not_commit(self):
        pulled = os.path.join(tempfile.mkdtemp(), "pulled")
        shutil.copytree(ENV["UCMOH_TEST_PULLED"], pulled)
        self.assertTrue(os.path.isfile(os.path.join(pulled, "forgetting", "state.json")))
        progs = programs()
        task = [p for p in progs if p["task"] == progs[0]["task"]]
        latencies = [p.pop("latency_s") for p in task]
        with ucmoh.open(pulled, plugins=ENV["UCMOH_TEST_PLUGINS"]) as model:
            before = model.score(task)
            model.update(task, latencies, epochs=3)  # under the forgetting state pull wrote
            after = model.score(task)
            self.assertFalse(np.array_equal(after, before))
            self.assertEqual(model.info["updates"], 1)
            with self.assertRaises(ucmoh.Error) as e:
                model.commit()
        self.assertIn("a pulled model has no registry to commit to", str(e.exception))
        with ucmoh.open(ENV["UCMOH_TEST_REGISTRY"], "ucmoh@1", plugins=ENV["UCMOH_TEST_PLUGINS"]) as model:
            model.update(task, latencies, epochs=3)  # the same state, read from the registry
            np.testing.assert_array_equal(model.score(task), after)

    def test_pulled_model_without_state_cannot_update(self):
        pulled = os.path.join(tempfile.mkdtemp(), "pulled")
        shutil.copytree(ENV["UCMOH_TEST_PULLED"], pulled)
        shutil.rmtree(os.path.join(pulled, "forgetting"))
        with ucmoh.open(pulled, plugins=ENV["UCMOH_TEST_PLUGINS"]) as model:
            with self.assertRaises(ucmoh.Error) as e:
                model.update(programs()[:20], [1e-3] * 20)
        self.assertIn("no forgetting/ state to update under", str(e.exception))

    def test_unknown_version(self):
        with self.assertRaises(ucmoh.Error) as e:
            ucmoh.open(ENV["UCMOH_TEST_REGISTRY"], "ucmoh@42", plugins=ENV["UCMOH_TEST_PLUGINS"])
        self.assertIn("42", str(e.exception))


class Updating(unittest.TestCase):
    def test_update_learns_the_measured_task_and_commit_makes_a_version(self):
        registry = os.path.join(tempfile.mkdtemp(), "registry.db")
        shutil.copytree(ENV["UCMOH_TEST_REGISTRY"], registry)
        tasks = {}
        for p in programs():
            tasks.setdefault(p["task"], []).append(p)
        task = max(tasks.values(), key=len)  # one workload being tuned
        latencies = [p.pop("latency_s") for p in task]
        with ucmoh.open(registry, "ucmoh@1", plugins=ENV["UCMOH_TEST_PLUGINS"]) as model:
            before = pca(model.score(task), latencies)
            model.update(task, latencies, epochs=5)
            after = pca(model.score(task), latencies)
            self.assertEqual(model.info["updates"], 1)
            version = model.commit()
            info = model.info
        self.assertGreater(after, before, f"PCA on the measured task: {before:.3f} -> {after:.3f}")
        self.assertEqual(version, 2)
        self.assertEqual(info["registry_version"], 2)
        self.assertEqual(info["parent"], 1)
        versions = subprocess.run([ENV["UCMOH_TEST_REGISTRY_TOOL"], "--db", registry, "show", "ucmoh@2", "--json"],
                                  capture_output=True, text=True)
        self.assertEqual(versions.returncode, 0, versions.stderr)
        shown = json.loads(versions.stdout)
        self.assertEqual(shown["hyper_parameters"]["update"], "online")
        self.assertEqual(shown["parent"], 1)

    def test_scoring_from_threads_while_an_update_trains(self):
        """Every concurrent score is the old model's or the new one's, never a mix."""
        import concurrent.futures
        import threading
        progs = programs()
        task = [p for p in progs if p["task"] == progs[0]["task"]]
        latencies = [p["latency_s"] for p in task]
        with ucmoh.open(ENV["UCMOH_TEST_REGISTRY"], "ucmoh@1", plugins=ENV["UCMOH_TEST_PLUGINS"]) as model:
            before = model.score(progs)
            done = threading.Event()

            def score_until_done():
                seen = []
                while not done.is_set() or not seen:
                    seen.append(model.score(progs))
                return seen

            with concurrent.futures.ThreadPoolExecutor(4) as pool:
                futures = [pool.submit(score_until_done) for _ in range(4)]
                model.update(task, latencies, epochs=3)
                done.set()
                seen = [s for f in futures for s in f.result()]
            after = model.score(progs)
        self.assertFalse(np.array_equal(before, after), "the update changed nothing")
        self.assertGreater(len(seen), 4)
        for s in seen:
            self.assertTrue(np.array_equal(s, before) or np.array_equal(s, after))

    def test_latencies_must_match_the_programs(self):
        with ucmoh.open(ENV["UCMOH_TEST_REGISTRY"], "ucmoh@1", plugins=ENV["UCMOH_TEST_PLUGINS"]) as model:
            with self.assertRaises(ucmoh.Error) as e:
                model.update(programs()[:10], [1e-3] * 9)
        self.assertEqual(str(e.exception), "update: 9 latencies for 10 programs")


if __name__ == "__main__":
    unittest.main()
