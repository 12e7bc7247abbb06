#include "export_cases.h"

namespace ucmoh::testing {

namespace {

ExportCase Case(std::string name, int hidden, int heads, int encoder_layers, int fc_blocks, uint64_t seed,
                std::string train_on = "") {
  ExportCase c;
  c.name = std::move(name);
  c.network.hidden = hidden;
  c.network.heads = heads;
  c.network.encoder_layers = encoder_layers;
  c.network.fc_blocks = fc_blocks;
  c.network.seed = seed;
  c.train_on = std::move(train_on);
  return c;
}

}  // namespace

std::vector<ExportCase> ExportCases() {
  const NetworkConfig d;  // the defaults: what add-intrinsic creates
  return {
      Case("default", d.hidden, d.heads, d.encoder_layers, d.fc_blocks, d.seed),
      Case("default_fit_on_avx2", d.hidden, d.heads, d.encoder_layers, d.fc_blocks, 11, "x86.avx2"),
      Case("h30_heads3", 30, 3, d.encoder_layers, d.fc_blocks, 1),
      Case("h7_heads7_enc1_fc0", 7, 7, 1, 0, 2),
      Case("h9_heads1_enc3_fc1", 9, 1, 3, 1, 3),
      Case("h33_heads11_enc1_fc5", 33, 11, 1, 5, 4),
      Case("h96_heads2_fc3", 96, 2, d.encoder_layers, 3, 5),
  };
}

}  // namespace ucmoh::testing
