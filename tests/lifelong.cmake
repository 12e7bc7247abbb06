# EWC / Fisher / lifelong tests (owned by the lifelong-learning work).
# The Fisher test checks values against hand derivations and finite
# differences, so it reaches into the network (core/src, LibTorch); the
# real-data test lowers CUTLASS records with the tensorcore plugin in-process.
ucmoh_add_test(lifelong_test
  ${CMAKE_CURRENT_LIST_DIR}/ewc_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/snapshot_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/online_update_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/lifelong_sequence_test.cpp)
target_link_libraries(lifelong_test PRIVATE ucmoh_model ucmoh_tensorcore_impl ${TORCH_LIBRARIES})
target_include_directories(lifelong_test PRIVATE ${PROJECT_SOURCE_DIR}/core/src)
