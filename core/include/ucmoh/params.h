// Named parameters of a workload or a schedule: a small ordered map of
// integers, reals and strings. Plugins define which keys they use; core only
// stores, compares and serializes them.
#pragma once

#include <cstdint>
#include <boost/container/flat_map.hpp>
#include <string>
#include <variant>

#include "ucmoh/status.h"

namespace ucmoh {

using Param = std::variant<int64_t, double, std::string>;
// A flat sorted vector: programs read a dozen parameters each, and walking or
// searching contiguous entries is what featurization spends its time on.
using ParamMap = boost::container::flat_map<std::string, Param>;

// Typed look-ups with an error that names the missing or mistyped key.
Expected<int64_t> GetInt(const ParamMap& params, const std::string& key);
Expected<double> GetReal(const ParamMap& params, const std::string& key);  // ints widen
Expected<std::string> GetString(const ParamMap& params, const std::string& key);

// A canonical one-line text form ("k1=v1,k2=v2"), used for keys and dedup.
std::string CanonicalString(const ParamMap& params);

}  // namespace ucmoh
