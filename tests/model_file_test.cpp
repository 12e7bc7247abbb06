// Model files (core/model_file.cpp, format 2): exact round trips, every kind
// of damage refused by name, and format 1 (a LibTorch archive) read only when
// the caller trusts it, through `registry convert-model` for files.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "command_runner.h"
#include "cost_model_impl.h"
#include "synthetic_programs.h"
#include "ucmoh/file_bytes.h"
#include "ucmoh/framed_blob.h"

namespace ucmoh {
namespace {

CostModel FittedModel() {
  auto model = CostModel::Create(test::SmallNetwork());
  model->FitNormalizer(test::SyntheticSet(4, 10, 1));
  model->set_learned_intrinsics({"toy.a", "toy.b"});
  return *model;
}

// Format 1 as the tools before 2026-11-24 wrote it (the old CostModel::Save),
// kept here as the fixture that older files are read against.
std::string Format1Bytes(const CostModel& model) {
  nlohmann::json meta = {{"format", "ucmoh-model"}, {"version", 1}, {"feature_schema_version", kFeatureSchemaVersion},
                         {"feature_dim", kFeatureDim}, {"learned_intrinsics", model.learned_intrinsics()}};
  const auto& c = model.config();
  meta["config"] = {{"architecture", c.architecture}, {"max_tokens", c.max_tokens}, {"hidden", c.hidden},
                    {"heads", c.heads}, {"encoder_layers", c.encoder_layers}, {"fc_blocks", c.fc_blocks},
                    {"seed", c.seed}};
  const std::string text = meta.dump();
  torch::serialize::OutputArchive archive, net_archive;
  model.impl().net->save(net_archive);
  archive.write("net", net_archive);
  archive.write("meta", torch::from_blob(const_cast<char*>(text.data()), {static_cast<int64_t>(text.size())},
                                         torch::kUInt8).clone());
  archive.write("normalizer.mean", model.impl().normalizer.mean);
  archive.write("normalizer.inv_std", model.impl().normalizer.inv_std);
  std::ostringstream out;
  archive.save_to(out);
  return out.str();
}

TEST(ModelFile, BytesRoundTripExactly) {
  const CostModel model = FittedModel();
  auto bytes = model.ToBytes();
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  EXPECT_EQ(ModelFileFormat(*bytes), kModelFileFormatVersion);
  auto loaded = CostModel::FromBytes(*bytes);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(*loaded->ToBytes(), *bytes);
  const ProgramSet set = test::SyntheticSet(3, 8, 2);
  EXPECT_EQ(*loaded->Predict(set), *model.Predict(set));
  EXPECT_EQ(loaded->learned_intrinsics(), model.learned_intrinsics());
}

TEST(ModelFile, RefusesEveryDamageByName) {
  const std::string bytes = *FittedModel().ToBytes();
  auto message = [](const std::string& b) {
    auto m = CostModel::FromBytes(b);
    return m.ok() ? std::string("accepted") : m.status().message();
  };
  EXPECT_NE(message(bytes.substr(0, bytes.size() - 1)).find("truncated"), std::string::npos);
  std::string flipped = bytes;
  flipped[kFrameHeaderSize + 40] ^= 0x10;
  EXPECT_NE(message(flipped).find("checksum mismatch"), std::string::npos);
  EXPECT_NE(message("not a model").find("not a UCMoH model file"), std::string::npos);
  std::string newer = bytes;
  newer[8] = static_cast<char>(kModelFileFormatVersion + 1);
  auto refused = CostModel::FromBytes(newer);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Status::Code::kUnsupported);
  EXPECT_NE(refused.status().message().find("a newer tool wrote it"), std::string::npos);
}

// A payload with a valid checksum that lies about its network.
std::string FramedPayload(const nlohmann::json& meta, uint32_t tensors) {
  std::string payload;
  auto u32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) payload.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  const std::string text = meta.dump();
  u32(static_cast<uint32_t>(text.size()));
  payload += text;
  u32(tensors);
  return FrameBlob(kModelFileFrame, payload);
}

TEST(ModelFile, RefusesAPayloadThatDoesNotMatchItsConfig) {
  nlohmann::json meta = {{"format", "ucmoh-model"}, {"version", 2}, {"feature_schema_version", kFeatureSchemaVersion},
                         {"feature_dim", kFeatureDim},
                         {"config", {{"hidden", 32}, {"heads", 4}, {"encoder_layers", 2}, {"fc_blocks", 2}, {"seed", 0}}}};
  auto missing = CostModel::FromBytes(FramedPayload(meta, 0));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no tensor 'encoder.0.weight'"), std::string::npos);
  // A config far past any cost model is refused before anything is allocated.
  meta["config"]["hidden"] = 1 << 20;
  auto huge = CostModel::FromBytes(FramedPayload(meta, 0));
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("hidden must be <= 1024"), std::string::npos);
  meta["config"]["hidden"] = "wide";
  auto typed = CostModel::FromBytes(FramedPayload(meta, 0));
  ASSERT_FALSE(typed.ok());
  EXPECT_NE(typed.status().message().find("model file metadata"), std::string::npos);
}

TEST(ModelFile, Format1IsReadOnlyWhenTrusted) {
  const CostModel model = FittedModel();
  const std::string old = Format1Bytes(model);
  EXPECT_EQ(ModelFileFormat(old), 1);
  auto refused = CostModel::FromBytes(old);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Status::Code::kUnsupported);
  EXPECT_NE(refused.status().message().find("registry convert-model"), std::string::npos);
  ModelReadOptions trusted;
  trusted.accept_format1 = true;
  auto loaded = CostModel::FromBytes(old, trusted);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(*loaded->ToBytes(), *model.ToBytes());
}

TEST(ModelFile, ConvertModelRewritesAFormat1File) {
  const CostModel model = FittedModel();
  const std::string in = test::TempPath("format1_model_"), out = in + ".v2";
  ASSERT_TRUE(WriteFileAtomically(in, Format1Bytes(model)).ok());
  const std::string registry = UCMOH_REGISTRY_BIN;
  auto evaluated = testing::RunCommand(registry + " evaluate --model " + in + " --data " + in);
  EXPECT_NE(evaluated.rc, 0);
  auto converted = testing::RunCommand(registry + " convert-model " + in + " " + out);
  ASSERT_EQ(converted.rc, 0) << converted.out;
  EXPECT_NE(converted.out.find("format 1 -> 2"), std::string::npos) << converted.out;
  EXPECT_EQ(*ReadFileBytes(out), *model.ToBytes());
  auto again = testing::RunCommand(registry + " convert-model " + in + ".missing " + out);
  EXPECT_NE(again.rc, 0);
  EXPECT_NE(again.out.find(".missing"), std::string::npos) << again.out;
  std::filesystem::remove(in);
  std::filesystem::remove(out);
}

}  // namespace
}  // namespace ucmoh
