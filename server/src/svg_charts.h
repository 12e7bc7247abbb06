// The two pictures of the pages, as inline SVG: the lineage of versions as a
// graph, and a version's lifelong matrix R as a heatmap.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ucmoh/registry/model_version.h"
#include "ucmoh/registry/registry_ops.h"

namespace ucmoh::server {

// One row per version (ascending); each at the depth of its lineage, joined
// to its parent; labelled with what it learned and its aliases; each node
// links to /versions/N.
std::string LineageSvg(const std::vector<registry::ModelVersion>& versions,
                       const std::map<int64_t, std::vector<std::string>>& aliases);

// Rows: the lineage's versions; columns: intrinsics; cells shaded by the
// value (0 white .. 1 deep blue), grey where not evaluated, each with its
// number written in and a <title> for hovering.
std::string HeatmapSvg(const registry::LineageMatrix& m, bool top1);

}  // namespace ucmoh::server
