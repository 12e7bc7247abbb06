#!/usr/bin/env bash
# Issue 37's tuning study, short: the held-out networks' tasks are kept out of
# the pretraining data by the tasks' network weights (ucmoh.tvm.hold_out), a
# registry version learns the rest of the committed MetaSchedule data through
# add-intrinsic, and MetaSchedule tunes one held-out task for 16 trials with the
# pulled model (updated online) and with random (tools/tvm_network_study.py);
# a rerun resumes without tuning; the summary (tools/plot-tvm-network-study)
# reads the runs. Outside CI a missing TVM skips (77); with CI set it fails.
#   network_study_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
source "$src/tests/tvm/require_tvm.sh"  # sets py; skips (77) or, in CI, fails without TVM
work=$(mktemp -d "${TMPDIR:-/tmp}/ucmoh-netstudy.XXXXXX")
trap 'rm -rf "$work"' EXIT
registry=$build/bin/registry
export PYTHONPATH=$src/python UCMOH_LIBRARY=$build/lib/libucmoh.so
cd "$src"
data=(data/metaschedule/*.float32.jsonl.gz data/metaschedule/*.int8.jsonl.gz)

# 1. Held out by name: no record of any task a held-out network runs (shared
# tasks named after another network included), every other task kept.
"$py" -m ucmoh.tvm.hold_out --networks bert_base,resnet18 "${data[@]}" -o "$work/pretrain.jsonl" \
  --held "$work/held.jsonl" > "$work/held.json"
"$py" - "$work/pretrain.jsonl" "$work/held.json" "$work/held.jsonl" "${data[@]}" <<'PY'
import gzip, json, sys
from ucmoh.tvm.networks import tasks
kept_file, held_file, dropped_file, *data = sys.argv[1:]
held = {t.name for d in ("float32", "int8") for t in tasks(None, d) if {"bert_base", "resnet18"} & set(t.weights)}
shared = {t.name for d in ("float32", "int8") for t in tasks(None, d)
          if {"bert_base", "resnet18"} & set(t.weights) and not t.name.startswith(("bert_base.", "resnet18."))}
every = [json.loads(l)["task"]["key"] for f in data for l in gzip.open(f, "rt")]
kept = [json.loads(l)["task"]["key"] for l in open(kept_file)]
assert not held & set(kept), f"held-out tasks in the pretraining data: {sorted(held & set(kept))[:3]}"
assert set(kept) == set(every) - held, "a task of no held-out network was dropped"
assert len(kept) == sum(1 for t in every if t not in held)
# ResNet-18 is the one CNN TVM's x86 backend tunes in its blocked layout; resnet50_nchwc
# keeps that layout in the pretraining data when ResNet-18 is held out.
assert any(".conv2d_nchwc." in k for k in kept), "holding ResNet-18 out left no NCHWc convolution to pretrain on"
dropped = [json.loads(l)["task"]["key"] for l in open(dropped_file)]  # --held: exactly the held-out tasks' records
assert dropped == [t for t in every if t in held], "--held did not write the dropped records"
counts = json.load(open(held_file))
assert counts["dropped"] == len(every) - len(kept) and counts["kept"] == len(kept), counts
print(f"hold_out: {len(kept)} records kept, {counts['dropped']} of {len(held)} held-out tasks dropped "
      f"({len(shared & set(every))} of them named after another network)")
PY
if "$py" -m ucmoh.tvm.hold_out --networks alexnet "${data[0]}" -o "$work/bad.jsonl" 2> "$work/err.txt"; then
  echo "FAIL: an unknown held-out network was accepted"; exit 1
fi
[[ $(grep -c . "$work/err.txt") -eq 1 && ! -e $work/bad.jsonl ]] || { echo "FAIL: not one line, or output written:"; cat "$work/err.txt"; exit 1; }
grep -q "unknown network 'alexnet'" "$work/err.txt"

# An unknown network, a model without its file, or no builder: one line, nothing written.
for bad in "--networks alexnet --models random" "--networks bert_base --models mlp-pretrained" \
    "--networks bert_base --models random --build-workers 0" "--networks bert_base --models random --eps-greedy 1.5" \
    "--networks bert_base --models ucmoh --fitness-temperature 0" \
    "--networks bert_base --models ucmoh --raw-scores --fitness-temperature 4" \
    "--networks bert_base --models ucmoh+xgb-blend --raw-scores" \
    "--networks bert_base --models ucmoh+boost --raw-scores" \
    "--networks bert_base --models ucmoh+xgb-blend --blend-shortlist 0" \
    "--networks bert_base --models ucmoh --blend-shortlist 0.5" \
    "--networks bert_base --models ucmoh+boost --boost-half-life -1" \
    "--networks bert_base --models xgb --boost-half-life 64" \
    "--networks bert_base --models ucmoh+boost --boost-window 1" \
    "--networks bert_base --models xgb --boost-window 256"; do
  if "$py" tools/tvm_network_study.py --pulled "$work/none" --plugins "$src/plugins.json" --out "$work/bad" $bad \
      > /dev/null 2> "$work/err.txt"; then echo "FAIL: tvm-study accepted $bad"; exit 1; fi
  [[ $(grep -c . "$work/err.txt") -eq 1 && ! -e $work/bad ]] || { echo "FAIL: $bad: not one line, or output written:"; cat "$work/err.txt"; exit 1; }
done

# A study of the baselines alone pulls no model: with no registry at all, what
# stops it is the study's own one line, not a failed pull.
# Both argument forms: "--models xgb" and "--networks=... --models=xgb".
for form in "--networks alexnet --models xgb" "--networks=alexnet --models=xgb"; do
  # shellcheck disable=SC2086  # the form is split into its arguments on purpose
  if OUT=$work/baselines REGISTRY=$work/absent.db tools/tvm-study $form \
      > /dev/null 2> "$work/err.txt"; then echo "FAIL: tvm-study accepted $form"; exit 1; fi
  [[ $(grep -c . "$work/err.txt") -eq 1 && ! -e $work/baselines/pulled ]] \
    || { echo "FAIL: a baselines-only study ($form) pulled:"; cat "$work/err.txt"; exit 1; }
  grep -q "unknown network 'alexnet'" "$work/err.txt"
done

# 2. A registry version that learned the rest (a slice, two epochs: CI time).
export UCMOH_REGISTRY=$work/registry.db
"$registry" init
awk '/"intrinsic":"x86.avx512"/ && n++ < 1500' "$work/pretrain.jsonl" > "$work/slice.jsonl"
"$registry" records add "$work/slice.jsonl"
"$registry" add-intrinsic x86.avx512 --epochs 2 -q
"$registry" pull ucmoh@latest -o "$work/pulled"

# 3. One held-out task, 16 trials, the pulled model (online) and random. Two
# candidates build side by side (the test has both cores): the barely trained
# model picks candidates LLVM needs up to the 60 s time-out for, and building
# them one at a time was most of this test's 13 minutes.
fast_builds=(--build-workers 2)
study=("$py" tools/tvm_network_study.py --pulled "$work/pulled" --plugins "$src/plugins.json" --out "$work/study"
       --networks bert_base --tasks 1 --trials-per-task 16 --per-iter 8 --models ucmoh,random --seeds 0 "${fast_builds[@]}")
"${study[@]}" > "$work/study.log" 2>&1 || { tail -n 20 "$work/study.log"; exit 1; }
"$py" - "$work/study/network_results.jsonl" <<'PY'
import json, sys
rows = {r["model"]: r for r in map(json.loads, open(sys.argv[1]))}
assert set(rows) == {"ucmoh", "random"}, rows.keys()
for model, r in rows.items():
    assert r["tasks"] == ["bert_base.dense.m128n768k768.bias"], r["tasks"]
    assert (r["build_workers"], r["build_timeout"]) == (2, 60), r  # the builder the row says it had
    measured = [t for t in r["trials"] if t[1] is not None]
    assert len(r["trials"]) == 16 and len(measured) >= 12, f"{model}: {len(measured)} of {len(r['trials'])} measured"
    assert all(t[2] <= r["wall_s"] for t in r["trials"])
r = rows["random"]  # a MetaSchedule model's seconds, split by method, add up to its share
assert set(r["cost_model_split"]) == {"predict", "update"}, r["cost_model_split"]
assert abs(sum(r["cost_model_split"].values()) - r["cost_model_s"]) < 1e-6, r["cost_model_split"]
u = rows["ucmoh"]
assert u["converted"] > 0 and u["predicted"] >= 16 and u["measured"] >= 8, u  # ranked and learned online
assert 0 < u["cost_model_s"] < u["wall_s"]
# The search got the logits' fitness: every score it read positive (it clips the rest to 0).
assert u["scores"] == "fitness" and u["logits"]["scores"] == u["handed_scores"]["scores"] == u["predicted"], u
assert u["handed_scores"]["not_positive"] == 0 and u["handed_scores"]["calls_all_not_positive"] == 0, u
assert r["handed_scores"]["scores"] > 0, r  # a MetaSchedule model's scores are tallied too
sys.path.insert(0, "tools")
from tvm_network_study import run_label  # a run whose search read the raw logits is a model of its own
assert run_label("ucmoh+xgb", 0.25, raw_scores=True) == "ucmoh+xgb@raw@eps0.25"
assert run_label("xgb", 0.25, raw_scores=True) == "xgb@eps0.25" and run_label("ucmoh", 0.05) == "ucmoh"
assert run_label("ucmoh-frozen", 0.25, temperature=4) == "ucmoh-frozen@T4@eps0.25" and u["fitness_temperature"] == 2, u
assert run_label("ucmoh+xgb-blend", 0.25, shortlist=0.5) == "ucmoh+xgb-blend@top0.5@eps0.25"
assert run_label("ucmoh+xgb-blend", 0.05) == "ucmoh+xgb-blend" and run_label("ucmoh", 0.05, shortlist=0.5) == "ucmoh"
assert run_label("xgb", 0.05, temperature=4) == "xgb"  # a MetaSchedule model has no fitness
assert run_label("ucmoh+boost", 0.25, half_life=64, window=256) == "ucmoh+boost@h64@w256@eps0.25"
assert run_label("xgb", 0.25, window=256) == "xgb@eps0.25"  # only TokenBoost's trees have a window
# A window is named whatever the default, so the rows of runs without one (before 2026-12-07) keep their name.
assert run_label("ucmoh+boost", 0.25, window=0) == "ucmoh+boost@eps0.25"
assert run_label("ucmoh+boost", 0.25) == "ucmoh+boost@w128@eps0.25"  # the default window
print(f"ucmoh: {u['converted']} candidates converted, {u['predicted']} scored, {u['measured']} learned online, "
      f"cost model {u['cost_model_s']:.1f} of {u['wall_s']:.0f} s")
PY

# 3b. ucmoh+xgb: the pulled model, never updated, and XGBModel learning online,
# chosen per task by the measured pairs each ranked right before learning them
# (32 trials, 8 a batch: XGBModel ranks from its 16th sample, so two batches count),
# with a search that draws a quarter of each batch at random (two of eight; at
# MetaSchedule's 0.05 none): a run of its own, labelled by it. Then ucmoh+xgb-blend:
# the same two models, scored together by those pairs, XGBModel scoring the
# prior's best half of each search call (the shortlist; labelled @top0.5). And
# ucmoh+boost: the pulled model corrected by trees learning the measured batches
# on its tokens, boosting from its logits times the task's fitted trust.
"$py" tools/tvm_network_study.py --pulled "$work/pulled" --plugins "$src/plugins.json" --out "$work/study" \
  --networks bert_base --tasks 1 --trials-per-task 32 --per-iter 8 --models ucmoh+xgb,ucmoh+xgb-blend,ucmoh+boost --seeds 0 \
  "${fast_builds[@]}" \
  --eps-greedy 0.25 --blend-shortlist 0.5 \
  > "$work/choice.log" 2>&1 || { tail -n 20 "$work/choice.log"; exit 1; }
"$py" - "$work/study/network_results.jsonl" "$work/pulled/manifest.json" <<'PY'
import json, sys
row = [r for r in map(json.loads, open(sys.argv[1])) if r["model"] == "ucmoh+xgb@eps0.25"][0]
assert (row["cost_model"], row["eps_greedy"], row["scores"]) == ("ucmoh+xgb", 0.25, "fitness"), row
assert row["model_sha256"] == json.load(open(sys.argv[2]))["model_pt_sha256"], row  # which pretraining ran
assert row["database"].endswith("/ucmoh+xgb@eps0.25-s0"), row["database"]
assert len(row["trials"]) == 32 and row["measured"] >= 24, (len(row["trials"]), row["measured"])  # XGBModel learned
assert row["converted"] > 0 and row["predicted"] >= 32, row  # the pulled model ranked
choice = row["choices"]["bert_base.dense.m128n768k768.bias"]
assert 0 < choice["pairs"] <= 2 * 28, choice  # the last two batches of 8, ranked by both models
assert 0 <= choice["prior"] <= 1 and 0 <= choice["online"] <= 1, choice
assert choice["chosen"] == ("online" if choice["online"] > choice["prior"] else "prior"), choice
split = row["online_split"]  # XGBModel's seconds by purpose add up to the choice's online seconds
assert set(split) == {"search", "judge", "update"} and split["update"] > 0 and split["judge"] > 0, split
assert abs(sum(split.values()) - row["update_s"]) < 1e-6, (split, row["update_s"])
print(f"ucmoh+xgb: {choice['pairs']} pairs, prior right on {choice['prior']:.2f}, XGBModel on "
      f"{choice['online']:.2f}: {choice['chosen']} chosen; cost model {row['cost_model_s']:.1f} of {row['wall_s']:.0f} s")
blend = [r for r in map(json.loads, open(sys.argv[1])) if r["model"] == "ucmoh+xgb-blend@top0.5@eps0.25"][0]
assert (blend["scores"], blend["fitness_temperature"], blend["blend_shortlist"]) == ("fitness", 2, 0.5), blend
handed = blend["handed_scores"]  # the search read the blend's fitness: positive, one score a candidate it ranked
assert handed["scores"] > 0 and handed["not_positive"] == 0, handed
task = blend["choices"]["bert_base.dense.m128n768k768.bias"]
assert 0 < task["pairs"] <= 2 * 28 and abs(sum(task["weights"].values()) - 1) < 1e-9, task
edge = {m: max(task[m] - 0.5, 0) for m in ("prior", "online")}  # the weights are the pairs beyond chance
online = edge["online"] / sum(edge.values()) if sum(edge.values()) > 0 else 0.5  # both at chance count alike
assert abs(task["weights"]["online"] - online) < 1e-9, task
print(f"ucmoh+xgb-blend: weights prior {task['weights']['prior']:.2f}, XGBModel {task['weights']['online']:.2f}; "
      f"cost model {blend['cost_model_s']:.1f} of {blend['wall_s']:.0f} s")
boost = [r for r in map(json.loads, open(sys.argv[1])) if r["model"] == "ucmoh+boost@w128@eps0.25"][0]
assert (boost["cost_model"], boost["scores"], boost["boost_window"]) == ("ucmoh+boost", "fitness", 128), boost
assert boost["handed_scores"]["scores"] > 0 and boost["handed_scores"]["not_positive"] == 0, boost["handed_scores"]
task = boost["choices"]["bert_base.dense.m128n768k768.bias"]  # every measured candidate learned (fewer than the window), the trust fitted
assert task["measured"] == task["trained"] == boost["measured"] >= 24, (task, boost["measured"])
assert task["trust"] in (0, 0.125, 0.25, 0.5, 1, 2, 4), task
split = boost["trees_split"]  # the trees' seconds (tokens, training, scoring) are the model's update seconds
assert split["features"] > 0 and split["train"] > 0 and split["trees"] > 0, split
assert abs(sum(split.values()) - boost["update_s"]) < 1e-6 and boost["cost_model_s"] < boost["wall_s"], boost
print(f"ucmoh+boost: trust {task['trust']} after {task['measured']} measured; trees {sum(split.values()):.1f} s, "
      f"cost model {boost['cost_model_s']:.1f} of {boost['wall_s']:.0f} s")
PY

# 4. A rerun resumes: nothing tuned again.
lines=$(wc -l < "$work/study/network_results.jsonl")
"${study[@]}" > "$work/study2.log" 2>&1
[[ $(wc -l < "$work/study/network_results.jsonl") -eq $lines ]] && ! grep -q "Sending" "$work/study2.log" \
  || { echo "FAIL: a rerun of a finished study tuned again"; exit 1; }

# 5. The summary reads the runs (racing random's final network latency).
"$py" tools/plot-tvm-network-study "$work/study" --reference random --svg-dir "$work/svg" | tee "$work/table.md"
grep -q "^| ucmoh (1 run) | " "$work/table.md" && grep -q "^| ucmoh+xgb@eps0.25 (1 run) | " "$work/table.md" && [[ -s $work/svg/tvm-network-study-bert_base-float32.svg ]] \
  || { echo "FAIL: no summary of the study"; exit 1; }
# --per-task: each task's best per model, and the tasks each run won against the reference's.
"$py" tools/plot-tvm-network-study "$work/study" --reference random --per-task > "$work/per-task.md"
grep -q "^| \`bert_base\.[^|]*\` (×[0-9]*) | [0-9]" "$work/per-task.md" && grep -q "^| tasks won against random (by seed) | " "$work/per-task.md" \
  || { echo "FAIL: --per-task printed no per-task table"; cat "$work/per-task.md"; exit 1; }
# --label-raw: a registry model's row from before the fitness (no "scores") is its @raw run;
# a baseline's row keeps its label, and so does every row without the flag.
"$py" -c 'import json, sys
for line in open(sys.argv[1]):
    row = json.loads(line); row.pop("scores", None); print(json.dumps(row))' \
  "$work/study/network_results.jsonl" > "$work/old-rows.jsonl"
"$py" tools/plot-tvm-network-study "$work/old-rows.jsonl" --reference random --label-raw > "$work/raw.md"
grep -q "^| ucmoh@raw (1 run) | " "$work/raw.md" && grep -q "^| ucmoh+xgb@raw@eps0.25 (1 run) | " "$work/raw.md" \
  && grep -q "^| random (1 run) | " "$work/raw.md" && ! grep -q "^| ucmoh (1 run) | " "$work/raw.md" \
  || { echo "FAIL: --label-raw did not name the rows without scores @raw"; cat "$work/raw.md"; exit 1; }
# --all-pairs: every run of a model against every reference run; a run in two files counts once.
"$py" tools/plot-tvm-network-study "$work/study" "$work/old-rows.jsonl" --reference random --all-pairs > "$work/pairs.md"
grep -q "^| ucmoh | 1 (1 × 1) | [01] | [0-9.]*× | [0-9.]*× |$" "$work/pairs.md" && ! grep -q "^| random | " "$work/pairs.md" \
  || { echo "FAIL: --all-pairs did not pair each run once with the one reference run"; cat "$work/pairs.md"; exit 1; }
# --networks keeps only the networks named: none of these runs is resnet18's.
! "$py" tools/plot-tvm-network-study "$work/study" --reference random --networks resnet18 > /dev/null 2> "$work/networks.err" \
  && grep -q "no network has a random run" "$work/networks.err" \
  || { echo "FAIL: --networks resnet18 did not leave out bert_base's runs"; exit 1; }
# --budget: every run cut after that many trials a task, as if tuning had stopped there.
"$py" tools/plot-tvm-network-study "$work/study" --reference random --budget 8 > "$work/budget.md"
grep -q "^\*\*bert_base (float32)\*\*: 1 tasks, 8 trials a run (8 a task)" "$work/budget.md" \
  && grep -q "^| ucmoh (1 run) | .* | – (a cut run) | [0-9]* |$" "$work/budget.md" \
  || { echo "FAIL: --budget 8 did not cut the runs at 8 trials"; cat "$work/budget.md"; exit 1; }
! "$py" tools/plot-tvm-network-study "$work/study" --reference random --budget 0 > /dev/null 2> "$work/budget.err" \
  && grep -q "^plot-tvm-network-study: --budget must be at least 1 trial a task (got 0)$" "$work/budget.err" \
  || { echo "FAIL: --budget 0 was not refused in one line"; cat "$work/budget.err"; exit 1; }
# --pretraining: a registry model's runs from the pulled weights named by their digest's
# prefix are MODEL@NAME (two lineages apart); a baseline's row and other digests keep theirs.
sha=$("$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))["model_pt_sha256"])' "$work/pulled/manifest.json")
"$py" tools/plot-tvm-network-study "$work/study" --reference random --pretraining "${sha:0:8}=v1" > "$work/pretraining.md"
grep -q "^| ucmoh@v1 (1 run) | " "$work/pretraining.md" && grep -q "^| random (1 run) | " "$work/pretraining.md" \
  && ! grep -q "^| ucmoh (1 run) | " "$work/pretraining.md" \
  || { echo "FAIL: --pretraining did not name the pulled version's runs"; cat "$work/pretraining.md"; exit 1; }
# (to a file: `| grep -q` stops reading at the match, and under pipefail the tool's broken pipe failed the test)
"$py" tools/plot-tvm-network-study "$work/study" --reference random --pretraining "0000000=v1" > "$work/other-digest.md"
grep -q "^| ucmoh (1 run) | " "$work/other-digest.md" \
  || { echo "FAIL: --pretraining renamed the runs of another digest"; cat "$work/other-digest.md"; exit 1; }
! "$py" tools/plot-tvm-network-study "$work/study" --reference random --pretraining v1 > /dev/null 2> "$work/pretraining.err" \
  && grep -q "^plot-tvm-network-study: --pretraining 'v1' is not SHA256_PREFIX=NAME$" "$work/pretraining.err" \
  || { echo "FAIL: --pretraining v1 was not refused in one line"; cat "$work/pretraining.err"; exit 1; }
# 6. How the pulled model ranks what a search measured (tools/held_out_pca.py
# --records): the ucmoh+xgb run's database, imported as records, scored per task.
"$registry" import metaschedule "$work/study/db/bert_base.float32/ucmoh+xgb@eps0.25-s0" -o "$work/tuned.jsonl" > /dev/null
"$py" tools/held_out_pca.py --pulled "$work/pulled" --plugins "$src/plugins.json" \
  --records "$work/tuned.jsonl" --json "$work/tuned-pca.json" > /dev/null
"$py" - "$work/tuned-pca.json" "$work/tuned.jsonl" <<'PY'
import json, sys
scored = json.load(open(sys.argv[1]))
records = sum(1 for _ in open(sys.argv[2]))
assert len(scored["tasks"]) == 1 and sum(t["candidates"] for t in scored["tasks"].values()) == records >= 24, scored
assert 0 <= scored["means"]["ucmoh_pca"] <= 1 and 0 < scored["means"]["ucmoh_top1"] <= 1, scored["means"]
print(f"the pulled model on the run's {records} measured candidates: PCA {scored['means']['ucmoh_pca']:.3f}")
PY
# ... and, against the online ucmoh run of the same task, whether it lost on search or ranking.
"$registry" import metaschedule "$work/study/db/bert_base.float32/ucmoh-s0" -o "$work/online.jsonl" > /dev/null
"$py" tools/search_or_ranking.py --pulled "$work/pulled" --plugins "$src/plugins.json" \
  --ours "$work/tuned.jsonl" --theirs "$work/online.jsonl" > "$work/search.json"
"$py" -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["tasks"] == 1 and 0 <= r["model_prefers_theirs"] <= r["theirs_faster"] <= 1, r' \
  "$work/search.json" || { echo "FAIL: search_or_ranking.py: $(cat "$work/search.json")"; exit 1; }
echo "network study: OK"
