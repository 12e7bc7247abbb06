// The tensor side of a WorkerGroup (ucmoh/worker_group.h): the collectives
// the training loop calls. Only files that use tensors include this.
#pragma once

#include <torch/torch.h>

#include <string>
#include <vector>

#include "ucmoh/worker_group.h"

namespace c10d {
class ProcessGroup;
}

namespace ucmoh {

struct WorkerGroup::Impl {
  int rank = 0;
  int world_size = 1;
  std::string endpoint;                         // MASTER_ADDR:MASTER_PORT, for messages
  c10::intrusive_ptr<c10d::ProcessGroup> group;

  // Sums `tensors` over the ranks, in place (one flattened all-reduce).
  Status AllReduceSum(const std::vector<torch::Tensor>& tensors);
  // Rank 0's values of `tensors`, written in place on every rank.
  Status BroadcastFromRankZero(const std::vector<torch::Tensor>& tensors);
};

}  // namespace ucmoh
