#pragma once
// Chakra execution traces (MLCommons; what ASTRA-sim and SimAI replay) in and
// out of mgsim (docs/chakra.md). Export writes one iteration of one rank as
// planned: the forward, each layer's backward (split where gradients become
// ready), a top-k selection node per sparse message, and one collective node
// per message of the plan, data-dependent on the compute that produces its
// gradients and ordered on one channel by control dependencies. Every node
// carries, besides Chakra's own fields, `mgsim_*` attributes that let import
// give back the trace and the plan exactly. Import reads an mgsim export that
// way and any other data-parallel ET by the rules of docs/chakra.md, with a
// warning for every node it cannot map. The protobuf classes stay private to
// this library; callers see bytes, traces and plans.
#include <string>
#include <string_view>
#include <vector>

#include "mgsim/plan.hpp"
#include "mgsim/simulation.hpp"
#include "mgsim/trace.hpp"

namespace mgsim::chakra {

/// Most ranks `mgsim export chakra` writes a file for.
inline constexpr int kMaxExportRanks = 4096;

/// What an export records besides the iteration.
struct ExportLabel {
  std::string producer;    ///< the command line and mgsim version that wrote the file
  std::string provenance;  ///< the source trace's provenance object, as JSON text
};

/// One rank's ET file (every data-parallel rank's is the same): the bytes.
std::string export_rank(const Workload& workload, const Plan& plan, const ExportLabel& label);

/// What an ET file holds, as mgsim sees it.
struct Imported {
  Trace trace;
  Plan messages;                      ///< the collectives in channel order
  std::string provenance;             ///< JSON text: the exported trace's, or one describing the ET
  std::vector<std::string> warnings;  ///< every node or dependency that was not mapped, and why
  bool from_mgsim = false;            ///< read back from mgsim's own attributes
};

/// Reads the ET bytes of `source`; throws TraceError naming it.
Imported import_et(std::string_view bytes, const std::string& source);

}  // namespace mgsim::chakra
