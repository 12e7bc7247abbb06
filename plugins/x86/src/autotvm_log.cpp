#include "ucmoh/x86/autotvm_log.h"

#include <simdjson.h>

namespace ucmoh::x86 {

namespace {

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

Status Bad(const std::string& what) { return Status::InvalidArgument(what); }

// An integer or a real that holds one exactly (TVM writes both).
bool AsInt(element e, int64_t* out) {
  if (e.get_int64().get(*out) == simdjson::SUCCESS) return true;
  uint64_t u = 0;
  if (e.get_uint64().get(u) == simdjson::SUCCESS && u <= INT64_MAX) return *out = static_cast<int64_t>(u), true;
  return false;
}

bool AsReal(element e, double* out) {
  int64_t i = 0;
  if (e.get_double().get(*out) == simdjson::SUCCESS) return true;
  if (AsInt(e, &i)) return *out = static_cast<double>(i), true;
  return false;
}

bool AsIntList(element e, std::vector<int64_t>* out) {
  array list;
  if (e.get_array().get(list) != simdjson::SUCCESS) return false;
  for (element item : list) {
    int64_t v = 0;
    if (!AsInt(item, &v)) return false;
    out->push_back(v);
  }
  return true;
}

Expected<AutoTvmArg> ParseArg(element e, size_t index) {
  AutoTvmArg arg;
  array tensor;
  std::string_view tag, dtype;
  if (e.get_array().get(tensor) == simdjson::SUCCESS && tensor.size() == 3 &&
      tensor.at(0).get_string().get(tag) == simdjson::SUCCESS && tag == "TENSOR") {
    if (!AsIntList(tensor.at(1).value_unsafe(), &arg.shape) ||
        tensor.at(2).get_string().get(dtype) != simdjson::SUCCESS)
      return Bad("input[2][" + std::to_string(index) + "] is not [\"TENSOR\", shape, dtype]");
    arg.is_tensor = true;
    arg.dtype = std::string(dtype);
    return arg;
  }
  if (!AsIntList(e, &arg.shape)) arg.shape.clear();  // null, a dtype string, ...
  return arg;
}

Expected<AutoTvmKnob> ParseKnob(element e) {
  array triple;
  std::string_view name, kind;
  if (e.get_array().get(triple) != simdjson::SUCCESS || triple.size() != 3 ||
      triple.at(0).get_string().get(name) != simdjson::SUCCESS ||
      triple.at(1).get_string().get(kind) != simdjson::SUCCESS)
    return Bad("config.entity holds an item that is not [name, kind, value]");
  AutoTvmKnob knob{std::string(name), std::string(kind), {}, {}};
  element value = triple.at(2).value_unsafe();
  int64_t one = 0;
  if (AsIntList(value, &knob.values)) return knob;
  if (AsInt(value, &one)) return knob.values.push_back(one), knob;
  array list;
  if (value.get_array().get(list) == simdjson::SUCCESS) {
    for (element item : list) {
      std::string_view text;
      if (item.get_string().get(text) != simdjson::SUCCESS) break;
      knob.names.emplace_back(text);
    }
    if (knob.names.size() == list.size()) return knob;
  }
  return Bad("knob '" + knob.name + "' has a value that is neither integers nor names");
}

Status ParseInput(object root, AutoTvmEntry* entry) {
  array input, args;
  std::string_view target, name;
  if (root["input"].get_array().get(input) != simdjson::SUCCESS || input.size() < 3)
    return Bad("'input' is not [target, template, args, kwargs]");
  if (input.at(0).get_string().get(target) != simdjson::SUCCESS) return Bad("input[0] (the target) is not a string");
  if (input.at(1).get_string().get(name) != simdjson::SUCCESS) return Bad("input[1] (the template) is not a string");
  if (input.at(2).get_array().get(args) != simdjson::SUCCESS) return Bad("input[2] (the arguments) is not a list");
  entry->target = std::string(target);
  entry->template_name = std::string(name);
  size_t index = 0;
  for (element arg : args) {
    auto parsed = ParseArg(arg, index++);
    if (!parsed.ok()) return parsed.status();
    entry->args.push_back(std::move(*parsed));
  }
  return Status::Ok();
}

Status ParseConfig(object root, AutoTvmEntry* entry) {
  object config;
  array entity;
  if (root["config"].get_object().get(config) != simdjson::SUCCESS) return Bad("'config' is not an object");
  element index;
  if (config["index"].get(index) == simdjson::SUCCESS && !AsInt(index, &entry->config_index))
    return Bad("config.index is not an integer");
  if (config["entity"].get_array().get(entity) != simdjson::SUCCESS) return Bad("config.entity is not a list");
  for (element item : entity) {
    auto knob = ParseKnob(item);
    if (!knob.ok()) return knob.status();
    entry->knobs.push_back(std::move(*knob));
  }
  return Status::Ok();
}

Status ParseResult(object root, AutoTvmEntry* entry) {
  array result, costs;
  if (root["result"].get_array().get(result) != simdjson::SUCCESS || result.size() != 4)
    return Bad("'result' is not [costs, error_no, all_cost, timestamp]");
  if (result.at(0).get_array().get(costs) != simdjson::SUCCESS) return Bad("result[0] (the costs) is not a list");
  for (element cost : costs) {
    double seconds = 0;
    if (!AsReal(cost, &seconds)) return Bad("result[0] holds a cost that is not a number");
    entry->costs_s.push_back(seconds);
  }
  if (!AsInt(result.at(1).value_unsafe(), &entry->error_no)) return Bad("result[1] (error_no) is not an integer");
  if (!AsReal(result.at(2).value_unsafe(), &entry->all_cost_s)) return Bad("result[2] (all_cost) is not a number");
  if (!AsReal(result.at(3).value_unsafe(), &entry->timestamp)) return Bad("result[3] (timestamp) is not a number");
  return Status::Ok();
}

}  // namespace

Expected<AutoTvmEntry> ParseAutoTvmLine(std::string_view line) {
  thread_local simdjson::dom::parser parser;
  element doc;
  if (auto error = parser.parse(line.data(), line.size()).get(doc))
    return Bad(std::string("not JSON (") + simdjson::error_message(error) + ")");
  object root;
  if (doc.get_object().get(root) != simdjson::SUCCESS) return Bad("not a JSON object");
  AutoTvmEntry entry;
  UCMOH_RETURN_IF_ERROR(ParseInput(root, &entry));
  UCMOH_RETURN_IF_ERROR(ParseConfig(root, &entry));
  UCMOH_RETURN_IF_ERROR(ParseResult(root, &entry));
  std::string_view version;
  if (root["tvm_version"].get_string().get(version) == simdjson::SUCCESS) entry.tvm_version = std::string(version);
  return entry;
}

std::string AutoTvmErrorName(int64_t error_no) {
  // tvm.autotvm.measure.MeasureErrorNo
  static const char* const kNames[] = {"NO_ERROR",       "INSTANTIATION_ERROR", "COMPILE_HOST",
                                       "COMPILE_DEVICE", "RUNTIME_DEVICE",      "WRONG_ANSWER",
                                       "BUILD_TIMEOUT",  "RUN_TIMEOUT",         "UNKNOWN_ERROR"};
  if (error_no >= 0 && error_no < 9) return kNames[error_no];
  return "UNKNOWN(" + std::to_string(error_no) + ")";
}

}  // namespace ucmoh::x86
