// The network's one definition (core/src/network_layers.h): every shape the
// CLI can ask for is a well-formed list (each activation written before it is
// read, widths that chain), the LibTorch module built from it names its
// parameters as every stored model does, and the feature extractor is the
// encoder and attention. That the scoring plan and the TorchScript export
// compute what the module computes is scoring_plan_test's and
// torchscript_export_test's.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "network_layers.h"
#include "ucmoh_network.h"

namespace ucmoh {
namespace {

NetworkConfig Shape(int hidden, int heads, int encoder_layers, int fc_blocks) {
  NetworkConfig c;
  c.hidden = hidden;
  c.heads = heads;
  c.encoder_layers = encoder_layers;
  c.fc_blocks = fc_blocks;
  return c;
}

void ExpectWellFormed(const NetworkConfig& c) {
  SCOPED_TRACE(testing::Message() << "hidden " << c.hidden << " heads " << c.heads << " encoder "
                                  << c.encoder_layers << " fc " << c.fc_blocks);
  const auto layers = UcmohLayers(c);
  ASSERT_FALSE(layers.empty());
  std::set<Activation> written{Activation::kTokens};
  std::set<std::string> names;
  for (const auto& layer : layers) {
    EXPECT_TRUE(written.count(layer.src)) << layer.name << " reads an activation nothing wrote";
    if (AddsInto(layer.epilogue)) {
      EXPECT_TRUE(written.count(layer.dst)) << layer.name << " adds into nothing";
    }
    EXPECT_TRUE(names.insert(layer.name).second) << layer.name << " twice";
    switch (layer.kind) {
      case NetworkLayer::Kind::kDense:
        EXPECT_EQ(layer.in, ActivationWidth(layer.src, c)) << layer.name;
        EXPECT_EQ(layer.out, ActivationWidth(layer.dst, c)) << layer.name;
        break;
      case NetworkLayer::Kind::kSelfAttention:
        EXPECT_EQ(ActivationWidth(layer.src, c), 3 * ActivationWidth(layer.dst, c));
        break;
      case NetworkLayer::Kind::kSumPerProgram: EXPECT_EQ(ActivationWidth(layer.src, c), 1); break;
    }
    written.insert(layer.dst);
  }
  EXPECT_EQ(layers.back().kind, NetworkLayer::Kind::kSumPerProgram) << "the network ends in a program's score";
  std::set<int> draws;
  for (const auto& layer : layers) EXPECT_TRUE(draws.insert(layer.draw_order).second) << layer.name << ": draw order twice";
}

TEST(NetworkLayers, EveryShapeTheCliTrainsIsWellFormed) {
  for (int encoder = 1; encoder <= 3; ++encoder)
    for (int fc = 0; fc <= 3; ++fc)
      for (auto [hidden, heads] : {std::pair{48, 3}, {64, 4}, {16, 1}}) ExpectWellFormed(Shape(hidden, heads, encoder, fc));
}

// Model files store parameters by these names (model_file.cpp); a list that
// renamed one would make every stored version unreadable.
TEST(NetworkLayers, TheModuleNamesItsParametersAsStoredModelsDo) {
  UcmohNet net(Shape(48, 3, 2, 2));
  std::vector<std::string> names;
  for (const auto& p : net.named_parameters()) names.push_back(p.key());
  const std::vector<std::string> stored = {
      "encoder.0.weight",         "encoder.0.bias",          "encoder.2.weight",         "encoder.2.bias",
      "attention.in_proj.weight", "attention.in_proj.bias",  "attention.out_proj.weight", "attention.out_proj.bias",
      "fc_blocks.0.0.weight",     "fc_blocks.0.0.bias",      "fc_blocks.0.2.weight",     "fc_blocks.0.2.bias",
      "fc_blocks.1.0.weight",     "fc_blocks.1.0.bias",      "fc_blocks.1.2.weight",     "fc_blocks.1.2.bias",
      "decoder.weight",           "decoder.bias"};
  EXPECT_EQ(names, stored);
  EXPECT_EQ(net.named_parameters()["attention.in_proj.weight"].sizes(), (std::vector<int64_t>{144, 48}));
}

TEST(NetworkLayers, TheFeatureExtractorIsTheEncoderAndAttention) {
  const NetworkConfig c = Shape(48, 3, 2, 1);
  UcmohNet net(c);
  int frozen = 0;
  for (const auto& p : net.named_parameters()) {
    const bool extractor = p.key().rfind("encoder.", 0) == 0 || p.key().rfind("attention.", 0) == 0;
    EXPECT_EQ(IsFeatureExtractorParameter(c, p.key()), extractor) << p.key();
    frozen += extractor;
  }
  EXPECT_EQ(frozen, 8);
  NetworkConfig mlp = c;
  mlp.architecture = "mlp";
  EXPECT_FALSE(IsFeatureExtractorParameter(mlp, "layers.0.weight"));
}

}  // namespace
}  // namespace ucmoh
