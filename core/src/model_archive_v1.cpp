// Model file format 1, read for conversion only: a LibTorch archive
// (torch::serialize, a TorchScript module in a zip) holding the network
// ("net"), the normalizer and a JSON metadata tensor ("meta"). LibTorch parses
// the archive's code part, and a crafted one crashes its parser
// (docs/reliability.md), so CostModel::FromBytes reaches this only with
// ModelReadOptions::accept_format1: the registry's own sha256-verified blobs,
// and `registry convert-model` on a file its user trusts.
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include "cost_model_impl.h"

namespace ucmoh {

bool IsModelArchiveV1(const std::string& bytes) { return bytes.rfind("PK\x03\x04", 0) == 0; }

Expected<CostModel> LoadModelArchiveV1(const std::string& bytes) {
  try {
    torch::serialize::InputArchive archive;
    archive.load_from(bytes.data(), bytes.size());
    torch::Tensor meta_tensor;
    archive.read("meta", meta_tensor);
    auto meta_bytes = meta_tensor.contiguous();
    auto meta = nlohmann::json::parse(std::string(reinterpret_cast<const char*>(meta_bytes.data_ptr<uint8_t>()),
                                                  static_cast<size_t>(meta_bytes.numel())));
    auto config = NetworkConfigFromModelMetadata(meta);
    if (!config.ok()) return config.status();
    auto model = CostModel::Create(*config);
    if (!model.ok()) return model.status();
    torch::serialize::InputArchive net_archive;
    archive.read("net", net_archive);
    model->impl().net->load(net_archive);
    torch::Tensor mean, inv_std;
    if (archive.try_read("normalizer.mean", mean) && archive.try_read("normalizer.inv_std", inv_std)) {
      model->impl().normalizer.mean = mean;
      model->impl().normalizer.inv_std = inv_std;
    }
    model->set_learned_intrinsics(meta.value("learned_intrinsics", std::vector<std::string>{}));
    return model;
  } catch (const std::exception& e) {
    std::string what = e.what();
    return Status::Corruption("cannot read model file format 1: " + what.substr(0, what.find('\n')));
  }
}

}  // namespace ucmoh
