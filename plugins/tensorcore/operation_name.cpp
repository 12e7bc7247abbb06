#include "operation_name.h"

#include <cctype>
#include <vector>

namespace ucmoh::tensorcore {

namespace {

using Tokens = std::vector<std::string>;

Tokens Split(const std::string& text) {
  Tokens tokens(1);
  for (char ch : text) {
    if (ch == '_') tokens.emplace_back();
    else tokens.back() += ch;
  }
  return tokens;
}

bool IsDigits(const std::string& text) {
  return !text.empty() && text.size() <= 6 && text.find_first_not_of("0123456789") == std::string::npos;
}

bool ParseCount(const std::string& text, int64_t* out) {
  if (!IsDigits(text)) return false;
  *out = std::stoll(text);
  return *out > 0;
}

// "128x64" -> 128, 64.
bool ParsePair(const std::string& text, int64_t* a, int64_t* b) {
  const size_t x = text.find('x');
  return x != std::string::npos && ParseCount(text.substr(0, x), a) && ParseCount(text.substr(x + 1), b);
}

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "<instruction><kind>", the instruction an accumulator letter and digits
// (then, in CUTLASS's mixed-input kernels, an intermediate type).
bool ParseCore(const std::string& token, OperationName* op) {
  for (const char* kind : {"fprop", "dgrad", "wgrad", "deconv", "gemm"}) {
    if (!EndsWith(token, kind)) continue;
    op->kind = kind;
    op->instruction = token.substr(0, token.size() - op->kind.size());
    return op->instruction.size() >= 2 && std::isalpha(static_cast<unsigned char>(op->instruction[0])) &&
           std::isdigit(static_cast<unsigned char>(op->instruction[1]));
  }
  return false;
}

// The part after the extended name, read from the end: "_<cta_m>x<cta_n>_
// <cta_k>x<stages>_<layout>[_unity_stride]_align<N>[_<fork suffix>...]":
// forks of CUTLASS append their own tokens after the alignment. Returns the
// index of the tile token, or an explanation.
Expected<size_t> ParseTail(const Tokens& t, size_t begin, OperationName* op) {
  size_t end = t.size();
  while (end > begin && t[end - 1].rfind("align", 0) != 0) --end;
  if (end == begin || !ParseCount(t[end - 1].substr(5), &op->alignment))
    return Status::InvalidArgument("it does not end in _align<N> (N > 0), or in _align<N>_<suffix>");
  for (size_t j = end; j < t.size(); ++j) op->suffix += (op->suffix.empty() ? "" : "_") + t[j];
  --end;
  if (end - begin >= 2 && t[end - 2] == "unity" && t[end - 1] == "stride") {
    op->unity_stride = true;
    end -= 2;
  }
  if (end - begin < 3 || !ParsePair(t[end - 3], &op->cta_m, &op->cta_n) ||
      !ParsePair(t[end - 2], &op->cta_k, &op->stages))
    return Status::InvalidArgument("no <cta_m>x<cta_n>_<cta_k>x<stages>_<layout> before the alignment");
  op->layout = t[end - 1];
  return end - 3;
}

// The extended name between "tensorop_" and the tile: "[<element C>_]<core>_
// <iterator>[_<element A>]".
Status ParseExtendedName(const Tokens& t, size_t begin, size_t end, OperationName* op) {
  size_t core = begin;
  if (core < end && !ParseCore(t[core], op)) {
    op->element_c = t[core];
    ++core;
  }
  if (core >= end || !ParseCore(t[core], op))
    return Status::InvalidArgument("no <instruction><fprop|dgrad|wgrad|gemm> after 'tensorop_'");
  size_t at = core + 1;
  if (op->kind == "gemm") {
    // GEMM kernels have no conv iterator: "<core>[_<element A>]".
  } else if (at < end && (t[at] == "analytic" || t[at] == "optimized")) {
    op->iterator = t[at++];
  } else if (at + 1 < end && (t[at] == "fixed" || t[at] == "few") && t[at + 1] == "channels") {
    op->iterator = t[at] + "_channels";
    at += 2;
  } else {
    return Status::InvalidArgument("no iterator (analytic or optimized) after the conv kind");
  }
  if (at < end) op->element_a = t[at++];
  if (at != end) return Status::InvalidArgument("unexpected '" + t[at] + "' before the tile");
  return Status::Ok();
}

}  // namespace

Expected<OperationName> ParseOperationName(const std::string& name) {
  const Tokens t = Split(name);
  auto fail = [&](const std::string& why) {
    return Status::InvalidArgument("operation '" + name + "' is not a CUTLASS conv2d or gemm tensor-op kernel name (" +
                                   why + ")");
  };
  size_t at = 0;
  if (t[at++] != "cutlass") return fail("it does not start with cutlass_");
  // Newer CUTLASS releases put the architecture first: cutlass_sm80_tensorop_...
  if (at < t.size() && t[at].size() > 2 && t[at].rfind("sm", 0) == 0 && IsDigits(t[at].substr(2))) ++at;
  if (at >= t.size() || t[at++] != "tensorop") return fail("no tensorop_ after cutlass_");
  OperationName op;
  auto tile = ParseTail(t, at, &op);
  if (!tile.ok()) return fail(tile.status().message());
  const Status extended = ParseExtendedName(t, at, *tile, &op);
  if (!extended.ok()) return fail(extended.message());
  return op;
}

std::string FormatOperationName(const KernelConfig& c, const TensorCoreIntrinsic& intrinsic, ConvKind kind) {
  // CUTLASS spells the input type in the name unless it equals the accumulator's.
  const std::string element =
      intrinsic.info.input_type == intrinsic.info.accum_type ? "" : "_" + intrinsic.info.input_type;
  return "cutlass_tensorop_" + intrinsic.short_name + ConvKindName(kind) + "_" + c.iterator() + element + "_" +
         std::to_string(c.cta_m) + "x" + std::to_string(c.cta_n) + "_" + std::to_string(c.cta_k) + "x" +
         std::to_string(c.stages) + "_" + c.layout + "_align" + std::to_string(c.alignment);
}

}  // namespace ucmoh::tensorcore
