# Registry store tests (docs/registry.md). Each suite links ucmoh_registry;
# the support library also links RocksDB directly so tests can damage a
# registry through a raw handle. registry_test_helper is a separate process
# for the busy and crash-safety tests.
add_library(ucmoh_registry_test_support STATIC
  registry_helpers/registry_test_support.cpp
  registry_helpers/child_process.cpp)
target_include_directories(ucmoh_registry_test_support PUBLIC registry_helpers)
target_link_libraries(ucmoh_registry_test_support PUBLIC ucmoh_registry ucmoh_rocksdb)

add_executable(registry_test_helper registry_helpers/registry_test_helper.cpp)
target_link_libraries(registry_test_helper PRIVATE ucmoh_registry_test_support)

ucmoh_add_test(registry_store_test
  registry_store_test.cpp
  registry_blob_test.cpp
  registry_schema_test.cpp)
target_link_libraries(registry_store_test PRIVATE ucmoh_registry ucmoh_registry_test_support)

# The metadata codec (registry/src, private) on bytes it did not write.
ucmoh_add_test(metadata_codec_test metadata_codec_test.cpp)
target_link_libraries(metadata_codec_test PRIVATE ucmoh_registry)
target_include_directories(metadata_codec_test PRIVATE ${PROJECT_SOURCE_DIR}/registry/src)

ucmoh_add_test(registry_process_test
  registry_busy_test.cpp
  registry_crash_test.cpp)
target_link_libraries(registry_process_test PRIVATE ucmoh_registry ucmoh_registry_test_support)
target_compile_definitions(registry_process_test PRIVATE
  UCMOH_REGISTRY_HELPER="$<TARGET_FILE:registry_test_helper>")
add_dependencies(registry_process_test registry_test_helper)

# The `registry` CLI end to end (issue 6): runs the built binary.
ucmoh_add_test(registry_cli_test registry_cli_test.cpp)
target_link_libraries(registry_cli_test PRIVATE ucmoh_registry ucmoh_model ${TORCH_LIBRARIES} nlohmann_json::nlohmann_json)
target_compile_definitions(registry_cli_test PRIVATE UCMOH_REGISTRY_BIN="$<TARGET_FILE:registry>")
add_dependencies(registry_cli_test registry)

# add-intrinsic killed with SIGKILL 20 times; predict / show / events / gc.
ucmoh_add_test(registry_kill_test registry_kill_test.cpp)
target_link_libraries(registry_kill_test PRIVATE nlohmann_json::nlohmann_json ucmoh_registry_test_support)
target_compile_definitions(registry_kill_test PRIVATE UCMOH_REGISTRY_BIN="$<TARGET_FILE:registry>")
add_dependencies(registry_kill_test registry)

# Pinned held-out tasks: fixed when first learned, extended by hash, checked by verify.
ucmoh_add_test(registry_held_out_test registry_held_out_test.cpp)
target_link_libraries(registry_held_out_test PRIVATE ucmoh_registry ucmoh_registry_test_support)
add_dependencies(registry_held_out_test ucmoh_tensorcore)

# The one lifelong step through add-intrinsic and through RunLifelong: same
# weights for the same seed; rehearsal samples bounded, stored and replayed.
ucmoh_add_test(lifelong_step_test lifelong_step_test.cpp)
target_link_libraries(lifelong_step_test PRIVATE ucmoh_registry ucmoh_registry_test_support)
add_dependencies(lifelong_step_test ucmoh_tensorcore)

# `registry serve` and `registry pull http://...` over loopback (issue 17).
ucmoh_add_test(registry_serve_test registry_serve_test.cpp)
target_link_libraries(registry_serve_test PRIVATE ucmoh_server ucmoh_registry_test_support ucmoh nlohmann_json::nlohmann_json)
target_include_directories(registry_serve_test PRIVATE ${PROJECT_SOURCE_DIR}/server/src)
target_compile_definitions(registry_serve_test PRIVATE UCMOH_REGISTRY_BIN="$<TARGET_FILE:registry>"
  UCMOH_REGISTRY_HELPER="$<TARGET_FILE:registry_test_helper>" UCMOH_LIBUCMOH="$<TARGET_FILE:ucmoh>")
add_dependencies(registry_serve_test registry registry_test_helper)

# --workers N through the binary: the same model as one process; killed
# workers (rank 1, rank 0) fail the job and write nothing (issue 16, part 4).
ucmoh_add_test(registry_workers_test registry_workers_test.cpp)
target_link_libraries(registry_workers_test PRIVATE nlohmann_json::nlohmann_json ucmoh_registry_test_support)
target_compile_definitions(registry_workers_test PRIVATE UCMOH_REGISTRY_BIN="$<TARGET_FILE:registry>")
add_dependencies(registry_workers_test registry)

# Every forgetting method through add-intrinsic, pull and libucmoh's online
# update: snapshots stored, λ as configured, pulled update == registry update,
# the penalty non-zero exactly where the method has one (issue 38).
ucmoh_add_test(forgetting_methods_test forgetting_methods_test.cpp)
target_link_libraries(forgetting_methods_test PRIVATE ucmoh_registry ucmoh_registry_test_support ucmoh
  nlohmann_json::nlohmann_json)
add_dependencies(forgetting_methods_test ucmoh_tensorcore)

# Request targets and URLs through uriparser: decoding, refused path tricks, IPv6.
ucmoh_add_test(request_target_test request_target_test.cpp)
target_link_libraries(request_target_test PRIVATE ucmoh_url)
