// WorkerGroup on c10d: a TCPStore hosted by rank 0 for the rendezvous and a
// ProcessGroupGloo for the collectives. Gloo reports a peer that died or
// timed out by throwing; that is caught here and returned as a Status that
// names the group, so the training loop stops cleanly and writes nothing.
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <chrono>
#include <cstdlib>
#include <thread>
#include <unistd.h>

#include "worker_group_impl.h"

namespace ucmoh {

namespace {

Expected<long> IntegerVariable(const char* name, long low, long high, long fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  if (*end != '\0' || value < low || value > high)
    return Status::InvalidArgument(std::string("environment variable ") + name + "='" + text +
                                   "': expected an integer in [" + std::to_string(low) + ", " +
                                   std::to_string(high) + "]");
  return value;
}

Status CollectiveFailed(const WorkerGroup::Impl& g, const char* what, const std::string& why) {
  std::string message = why;
  if (const auto newline = message.find('\n'); newline != std::string::npos) message.resize(newline);
  return Status::IOError("worker group " + g.endpoint + ": rank " + std::to_string(g.rank) + " of " +
                         std::to_string(g.world_size) + ": " + what +
                         " failed (another worker stopped or timed out): " + message);
}

Status CollectiveFailed(const WorkerGroup::Impl& g, const char* what, const std::exception& e) {
  return CollectiveFailed(g, what, std::string(e.what()));
}

std::shared_ptr<gloo::transport::Device> LoopbackOrHostDevice(const std::string& master_addr) {
  // Local workers talk over the loopback interface; across hosts, over the
  // interface that carries this host's name (as torch.distributed does).
  if (master_addr == "127.0.0.1" || master_addr == "localhost")
    return c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1");
  return c10d::ProcessGroupGloo::createDefaultDevice();
}

// Every rank counts itself in; rank 0 waits until all have, asking
// `peers_alive` as it goes. (TCPStore's own wait cannot be interrupted.)
Status WaitForRanks(c10d::TCPStore& store, const WorkerGroupOptions& o) {
  const std::string key = "ucmoh/joined";
  int64_t joined = store.add(key, 1);
  if (o.rank != 0) return Status::Ok();
  const auto deadline = std::chrono::steady_clock::now() + o.timeout;
  while (joined < o.world_size) {
    if (o.peers_alive) {
      if (Status alive = o.peers_alive(); !alive.ok()) return alive;
    }
    if (std::chrono::steady_clock::now() > deadline)
      return Status::IOError(std::to_string(joined) + " of " + std::to_string(o.world_size) + " ranks joined in " +
                             std::to_string(o.timeout.count()) + " s");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    joined = store.add(key, 0);
  }
  return Status::Ok();
}

}  // namespace

Expected<std::optional<WorkerGroupOptions>> WorkerGroupOptionsFromEnvironment() {
  if (std::getenv("WORLD_SIZE") == nullptr) return std::optional<WorkerGroupOptions>{};
  WorkerGroupOptions o;
  auto world = IntegerVariable("WORLD_SIZE", 1, 65536, 1);
  if (!world.ok()) return world.status();
  auto rank = IntegerVariable("RANK", 0, *world - 1, -1);
  if (!rank.ok()) return rank.status();
  if (*rank < 0) return Status::InvalidArgument("WORLD_SIZE is set but RANK is not");
  auto port = IntegerVariable("MASTER_PORT", 1, 65535, o.master_port);
  if (!port.ok()) return port.status();
  auto timeout = IntegerVariable("UCMOH_WORKER_TIMEOUT", 1, 86400, o.timeout.count());
  if (!timeout.ok()) return timeout.status();
  if (const char* addr = std::getenv("MASTER_ADDR"); addr != nullptr && *addr != '\0') o.master_addr = addr;
  o.world_size = static_cast<int>(*world);
  o.rank = static_cast<int>(*rank);
  o.master_port = static_cast<int>(*port);
  o.timeout = std::chrono::seconds(*timeout);
  return std::optional<WorkerGroupOptions>{o};
}

Expected<std::shared_ptr<WorkerGroup>> WorkerGroup::Join(const WorkerGroupOptions& o) {
  if (o.world_size < 1 || o.rank < 0 || o.rank >= o.world_size)
    return Status::InvalidArgument("worker group: rank " + std::to_string(o.rank) + " is outside world size " +
                                   std::to_string(o.world_size));
  auto impl = std::make_unique<Impl>();
  impl->rank = o.rank;
  impl->world_size = o.world_size;
  impl->endpoint = o.master_addr + ":" + std::to_string(o.master_port);
  try {
    c10d::TCPStoreOptions store_options;
    store_options.port = static_cast<uint16_t>(o.master_port);
    store_options.isServer = o.rank == 0;
    store_options.numWorkers = static_cast<size_t>(o.world_size);
    store_options.timeout = o.timeout;
    store_options.waitWorkers = false;  // WaitForRanks below, which can stop early
    auto store = c10::make_intrusive<c10d::TCPStore>(o.master_addr, store_options);
    if (Status joined = WaitForRanks(*store, o); !joined.ok())
      return CollectiveFailed(*impl, "joining", joined.message());
    auto options = c10d::ProcessGroupGloo::Options::create(o.timeout);
    options->devices.push_back(LoopbackOrHostDevice(o.master_addr));
    options->threads = 1;
    impl->group = c10::make_intrusive<c10d::ProcessGroupGloo>(store, o.rank, o.world_size, options);
  } catch (const std::exception& e) {
    return CollectiveFailed(*impl, "joining", e);
  }
  return std::shared_ptr<WorkerGroup>(new WorkerGroup(std::move(impl)));
}

WorkerGroup::WorkerGroup(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
WorkerGroup::~WorkerGroup() = default;
int WorkerGroup::rank() const { return impl_->rank; }
int WorkerGroup::world_size() const { return impl_->world_size; }

Status WorkerGroup::CheckAgreement(uint64_t value, const std::string& what) {
  // [v, -v] all-reduced with MAX gives [max v, -min v]: the ranks agree
  // exactly when the two match.
  const auto v = static_cast<int64_t>(value & 0x7fffffffffffffffULL);
  std::vector<torch::Tensor> both{torch::tensor({v, -v}, torch::kLong)};
  try {
    c10d::AllreduceOptions max;
    max.reduceOp = c10d::ReduceOp::MAX;
    impl_->group->allreduce(both, max)->wait();
  } catch (const std::exception& e) {
    return CollectiveFailed(*impl_, "checking agreement", e);
  }
  if (both[0][0].item<int64_t>() != -both[0][1].item<int64_t>())
    return Status::InvalidArgument("worker group " + impl_->endpoint + ": the ranks disagree on " + what +
                                   " (start every rank with the same data and flags)");
  return Status::Ok();
}

namespace {

torch::Tensor Flatten(const std::vector<torch::Tensor>& tensors) {
  std::vector<torch::Tensor> parts;
  for (const auto& t : tensors) parts.push_back(t.detach().reshape({-1}));
  return torch::cat(parts);
}

void Unflatten(const torch::Tensor& flat, const std::vector<torch::Tensor>& tensors) {
  torch::NoGradGuard no_grad;
  int64_t offset = 0;
  for (const auto& t : tensors) {
    t.copy_(flat.narrow(0, offset, t.numel()).view_as(t));
    offset += t.numel();
  }
}

}  // namespace

// Runs `collective` on one flattened copy of `tensors` (one message instead
// of one per tensor) and writes the result back into them.
template <class Collective>
Status OnFlattened(const WorkerGroup::Impl& g, const std::vector<torch::Tensor>& tensors, const char* what,
                   Collective collective) {
  if (g.world_size == 1 || tensors.empty()) return Status::Ok();
  std::vector<torch::Tensor> flat{Flatten(tensors)};
  try {
    collective(flat)->wait();
  } catch (const std::exception& e) {
    return CollectiveFailed(g, what, e);
  }
  Unflatten(flat[0], tensors);
  return Status::Ok();
}

Status WorkerGroup::Impl::AllReduceSum(const std::vector<torch::Tensor>& tensors) {
  return OnFlattened(*this, tensors, "gradient all-reduce", [&](auto& flat) { return group->allreduce(flat); });
}

Status WorkerGroup::Impl::BroadcastFromRankZero(const std::vector<torch::Tensor>& tensors) {
  return OnFlattened(*this, tensors, "parameter broadcast", [&](auto& flat) { return group->broadcast(flat); });
}

}  // namespace ucmoh
