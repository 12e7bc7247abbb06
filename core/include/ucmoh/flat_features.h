// Fixed-length feature vectors for the baselines that cannot read a token
// sequence (gradient-boosted trees, the flat MLP): the token matrix flattened
// row by row, zero-padded to a fixed number of tokens, then the token count.
#pragma once

#include <vector>

#include "ucmoh/features.h"
#include "ucmoh/program_set.h"

namespace ucmoh {

// Width of one flat vector: max_tokens * kFeatureDim values + the token count.
int FlatFeatureWidth(int max_tokens);

// Writes FlatFeatureWidth(max_tokens) values to `out`. Tokens beyond
// max_tokens (a program longer than any the model was trained on) are
// dropped; the last value is always the program's true token count.
void FlattenTokens(const TokenMatrix& tokens, int max_tokens, float* out);

// Row-major [programs x FlatFeatureWidth(max_tokens)], in program order.
std::vector<float> FlattenProgramSet(const ProgramSet& set, int max_tokens);

}  // namespace ucmoh
