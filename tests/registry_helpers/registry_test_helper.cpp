// A separate process for the registry tests that need one:
//   registry_test_helper hold PATH
//     opens PATH for writing, prints "ready", and keeps the lock until its
//     stdin closes (the busy test).
//   registry_test_helper crash-writer PATH SEED
//     commits versions (and records, aliases, garbage collection) in an
//     endless loop, printing "committed N" after each commit returns, until
//     it is killed (the crash-safety test).
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "registry_test_support.h"

using namespace ucmoh::registry;

namespace {

int Fail(const ucmoh::Status& s) {
  std::fprintf(stderr, "helper: %s\n", s.message().c_str());
  return 2;
}

int Hold(const std::string& path) {
  auto store = RegistryStore::Open(path, OpenMode::kCreate);
  if (!store.ok()) return Fail(store.status());
  std::printf("ready\n");
  std::fflush(stdout);
  char c;
  while (::read(0, &c, 1) > 0) {
  }
  return 0;
}

// One step of the endless writer: mostly commits, sometimes other writes, so
// a kill can land in any kind of batch, in a flush or in a compaction.
ucmoh::Status Step(RegistryStore* store, std::mt19937_64* rng, int step) {
  const std::string intrinsic = "x86.i" + std::to_string(step % 5);
  if (step % 7 == 3) {
    std::vector<ucmoh::Record> records;
    for (int i = 0; i < 20; ++i) records.push_back(testing::SampleRecord(intrinsic, (*rng)() % 1000));
    return store->AddRecords(records).status();
  }
  if (step % 11 == 5) {
    auto orphan = store->PutBlob(testing::RandomBytes(rng, 4096));  // GC fodder
    if (!orphan.ok()) return orphan.status();
    return store->GarbageCollect().status();
  }
  VersionCommit commit = testing::SampleCommit(rng, (*rng)() % 4, 1024 + (*rng)() % 48000, intrinsic);
  auto latest = store->ResolveRef("latest");
  commit.version.parent = latest.ok() ? *latest : 0;
  auto v = store->CommitVersion(commit);
  if (!v.ok()) return v.status();
  std::printf("committed %lld\n", static_cast<long long>(v->number));
  std::fflush(stdout);
  if (v->number % 4 == 0) return store->SetAlias("stable", v->number);
  return ucmoh::Status::Ok();
}

int CrashWriter(const std::string& path, uint64_t seed) {
  StoreOptions options;
  options.write_buffer_bytes = 64 << 10;  // flush (and write blob files) often
  auto store = RegistryStore::Open(path, OpenMode::kCreate, options);
  if (!store.ok()) return Fail(store.status());
  std::mt19937_64 rng(seed);
  for (int step = 0;; ++step) {
    ucmoh::Status s = Step(store->get(), &rng, step);
    if (!s.ok()) return Fail(s);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "hold") return Hold(argv[2]);
  if (argc == 4 && std::string(argv[1]) == "crash-writer")
    return CrashWriter(argv[2], std::stoull(argv[3]));
  std::fprintf(stderr, "usage: registry_test_helper hold PATH | crash-writer PATH SEED\n");
  return 1;
}
