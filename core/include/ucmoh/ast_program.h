// Programs given as ASTs: the JSON form in which a compiler describes its own
// candidate programs (loops, buffers, load / compute / store stages, the
// intrinsic each compute stage calls), featurized without any plugin's
// schedule family. The intrinsic's plugin still computes the stages' template
// values, from the program's named template inputs. docs/ast-json.md is the
// reference; this header and ast_program.cpp are the one place that reads and
// writes the form.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ucmoh/features.h"
#include "ucmoh/plugin_loader.h"
#include "ucmoh/program_ast.h"
#include "ucmoh/program_set.h"
#include "ucmoh/record.h"
#include "ucmoh/status.h"

namespace ucmoh {

// Written as "ast_format"; a reader refuses any other number.
constexpr int kAstFormatVersion = 1;

struct AstProgram {
  std::string task;          // programs of one task are ranked together ("" reads as "ast")
  std::string intrinsic;     // what every compute stage calls
  HardwareParams hardware;   // the machine it runs on (default: the plugin target's)
  ProgramAst ast;            // template values filled by the intrinsic's plugin
  double latency_s = 0;      // measured latency, 0 when not measured
};

// The AST form of a record: its lowering, task, hardware and latency.
Expected<AstProgram> RecordAsAstProgram(const PluginSet& plugins, const Record& record);

// A measured program as a record of its intrinsic's target (Record::ast):
// task key, hardware and latency become the record's, the rest of the AST is
// kept verbatim, and its template inputs double as the schedule. Refuses a
// program without a latency (scoring sets are not records).
Expected<Record> AstProgramAsRecord(const PluginSet& plugins, const AstProgram& program, Provenance provenance);

// Writes every field (template values are not written: the plugin computes them).
nlohmann::json AstProgramToJson(const AstProgram& program);

// Reads and validates one program (JSON text): the first bad field is
// reported with its JSON path under `path` ("$.body[0].loop.extent: must be
// an integer >= 1"). Checks the intrinsic against `plugins`, hardware
// defaulting to its target's, and fills every stage's template values
// through the plugin.
Expected<AstProgram> ParseAstProgram(std::string_view text, const PluginSet& plugins, const std::string& path = "$");

// A JSON array of programs ("$[3].body...") or JSON Lines, one program per
// line ("line 4: $.body..."). Every program must be valid.
Expected<std::vector<AstProgram>> ParseAstPrograms(std::string_view text, const PluginSet& plugins);

// Its tokens (Featurize on the program's hardware and intrinsic).
Expected<TokenMatrix> FeaturizeAstProgram(const PluginSet& plugins, const AstProgram& program);

// Every program featurized and grouped by task (latency_s as given: 0 for
// programs to be scored only). Fails on the first program that does not featurize.
Expected<ProgramSet> AstProgramSet(const PluginSet& plugins, const std::vector<AstProgram>& programs);

}  // namespace ucmoh
