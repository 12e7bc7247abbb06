// Value formats of the metadata entities: cereal portable binary archives of
// versioned classes (CEREAL_CLASS_VERSION). A newer tool reads what an older
// one wrote; an older tool refuses a class version it does not know.
#pragma once

#include <string>

#include "ucmoh/registry/intrinsic_entry.h"
#include "ucmoh/registry/model_version.h"
#include "ucmoh/status.h"

namespace ucmoh::registry::codec {

std::string Encode(const IntrinsicEntry& v);
std::string Encode(const ModelVersion& v);
std::string Encode(const SnapshotEntry& v);
std::string Encode(const AliasEntry& v);

Status Decode(const std::string& bytes, IntrinsicEntry* out);
Status Decode(const std::string& bytes, ModelVersion* out);
Status Decode(const std::string& bytes, SnapshotEntry* out);
Status Decode(const std::string& bytes, AliasEntry* out);

}  // namespace ucmoh::registry::codec
