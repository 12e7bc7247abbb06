# x86 kernel correctness and measurement tests (owned by the x86 measurement work).
ucmoh_add_test(x86_kernels_test x86_kernels_test.cpp)
target_link_libraries(x86_kernels_test PRIVATE ucmoh_x86_impl)
# The CLI test runs build/bin/registry, which loads build/plugins/libucmoh_x86.so.
add_dependencies(x86_kernels_test registry ucmoh_x86)

# The committed dataset: counts, provenance, no duplicates, every record featurizes.
ucmoh_add_test(x86_dataset_test x86_dataset_test.cpp)
target_include_directories(x86_dataset_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(x86_dataset_test PRIVATE nlohmann_json::nlohmann_json)
add_dependencies(x86_dataset_test registry ucmoh_x86)

# Same record, same tokens on any host: the committed expected tokens, checked
# once as is and once under a one-CPU affinity mask (taskset), where programs
# with 2 threads must still lower from their record's hardware.
ucmoh_add_test(token_stability_test token_stability_test.cpp)
target_link_libraries(token_stability_test PRIVATE ucmoh_x86_impl ucmoh_tensorcore_impl)
find_program(TASKSET taskset REQUIRED)
add_test(NAME token_stability_one_cpu COMMAND ${TASKSET} -c 0 $<TARGET_FILE:token_stability_test>)

# AutoTVM logs -> x86 records: the shared Skylake log, hand-checked ASTs, bad lines.
ucmoh_add_test(autotvm_import_test autotvm_import_test.cpp)
target_include_directories(autotvm_import_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(autotvm_import_test PRIVATE ucmoh_x86_impl)
add_dependencies(autotvm_import_test registry ucmoh_x86)

