// A trained CostModel as a TorchScript module: forward(tokens [B, T, 64] raw
// features, valid [B, T]) -> scores [B], higher = predicted faster, with the
// feature normalizer inside. What `registry pull` writes as model.pt, for
// consumers that load TorchScript (docs/registry.md).
#pragma once

#include <string>

#include "ucmoh/cost_model.h"
#include "ucmoh/status.h"

namespace ucmoh {

// Writes `path` atomically (a .tmp beside it, then a rename). Only the "ucmoh"
// architecture exports; an untrained model (no normalizer) is refused.
Status ExportTorchScript(const CostModel& model, const std::string& path);

}  // namespace ucmoh
