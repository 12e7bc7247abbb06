// Rehearsal samples: a bounded, seeded sample of a learned intrinsic's
// training programs that later lifelong steps replay alongside the new
// intrinsic, and a bounded sample of its validation programs that later
// steps score themselves on (early stopping, the choice of λ). Which
// programs are drawn depends only on their ProgramKeys and the seed, never on
// record order or the machine; the keys are stored with the registry version
// so the sample, and the version, can be rebuilt. docs/lifelong.md,
// "Rehearsal".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ucmoh/program_set.h"
#include "ucmoh/status.h"

namespace ucmoh {

struct RehearsalSample {
  std::string intrinsic;
  std::vector<std::string> replay_keys;      // sorted ProgramKeys
  std::vector<std::string> validation_keys;  // sorted ProgramKeys
  ProgramSet replay, validation;             // those programs, featurized
};

// The indices of at most `max_programs` programs of `set`: those with the
// smallest TaskHashUnit(seed, program key) (task_split.h), in set order.
// max_programs <= 0 keeps every program.
std::vector<int32_t> SampleProgramIndices(const ProgramSet& set, int max_programs, uint64_t seed);

// Draws both halves of an intrinsic's sample from its fit and validation programs.
RehearsalSample DrawRehearsal(const std::string& intrinsic, const ProgramSet& fit, const ProgramSet& validation,
                              int max_programs, uint64_t seed);

// The programs of `set` whose keys are `keys`; NotFound names the first key
// `set` lacks (records deleted from the registry since the sample was drawn).
Expected<ProgramSet> SelectPrograms(const ProgramSet& set, const std::vector<std::string>& keys);

// A stored sample back: its keys' programs out of `programs` (the
// intrinsic's training programs, or the sample's own records), in canonical
// order. Fails naming the first key that is not there.
Expected<RehearsalSample> RehearsalFromKeys(const std::string& intrinsic, const ProgramSet& programs,
                                            std::vector<std::string> replay_keys,
                                            std::vector<std::string> validation_keys);

// Sorts tasks by key and each task's programs by program key, so that a step
// trains identically whatever order its records came in (file or registry).
ProgramSet CanonicalOrder(const ProgramSet& set);

}  // namespace ucmoh
