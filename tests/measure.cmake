# Measuring beyond this machine (docs/arm.md).
# The arm target's measuring side on this machine: host reading, the
# plugin's refusal, and the cross-built aarch64 ucmoh-measure under qemu-user
# (500-schedule correctness sweeps, emulation refused).
ucmoh_add_test(arm_measure_test arm_measure_test.cpp)
target_include_directories(arm_measure_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(arm_measure_test PRIVATE ucmoh_arm_impl)
if(TARGET ucmoh_measure_aarch64)
  add_dependencies(arm_measure_test ucmoh_measure_aarch64)
endif()

# registry measure --host against throwaway sshd servers on 127.0.0.1
# (tests/remote/sshd_fixture.sh; the tests skip unless run as root).
ucmoh_add_test(remote_measure_test remote_measure_test.cpp registry_helpers/child_process.cpp)
target_include_directories(remote_measure_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} registry_helpers)
add_dependencies(remote_measure_test registry ucmoh-measure ucmoh_x86)
