# registry pull's TorchScript module against CostModel::Predict, for every
# network configuration the CLI can train and every intrinsic with data:
# in C++ (torchscript_export_test) and in Python (pulled_model_python, which
# drives the built `registry` through pull and predict --export-tokens).
# Both read the real records (data/x86, the CUTLASS CSVs) through
# plugins.json, so they need the plugin libraries built.
set(UCMOH_PLUGIN_TARGETS ucmoh_x86 ucmoh_arm ucmoh_tensorcore)

add_library(ucmoh_export_check STATIC
  ${CMAKE_CURRENT_LIST_DIR}/export_check/sample_records.cpp
  ${CMAKE_CURRENT_LIST_DIR}/export_check/export_cases.cpp
  ${CMAKE_CURRENT_LIST_DIR}/export_check/trained_version.cpp
  ${CMAKE_CURRENT_LIST_DIR}/export_check/score_agreement.cpp)
target_link_libraries(ucmoh_export_check PUBLIC ucmoh_registry ucmoh_model ucmoh_core fmt::fmt)
target_compile_definitions(ucmoh_export_check PRIVATE ${UCMOH_TEST_DEFS})

ucmoh_add_test(torchscript_export_test ${CMAKE_CURRENT_LIST_DIR}/torchscript_export_test.cpp)
target_link_libraries(torchscript_export_test PRIVATE
  ucmoh_export_check ${TORCH_LIBRARIES} nlohmann_json::nlohmann_json)
target_include_directories(torchscript_export_test PRIVATE ${CMAKE_CURRENT_LIST_DIR} ${PROJECT_SOURCE_DIR}/core/src)
add_dependencies(torchscript_export_test ${UCMOH_PLUGIN_TARGETS})

add_executable(pulled_model_fixture ${CMAKE_CURRENT_LIST_DIR}/export_check/pulled_model_fixture.cpp)
target_link_libraries(pulled_model_fixture PRIVATE ucmoh_export_check nlohmann_json::nlohmann_json)
target_compile_definitions(pulled_model_fixture PRIVATE ${UCMOH_TEST_DEFS})
add_dependencies(pulled_model_fixture registry ${UCMOH_PLUGIN_TARGETS})

# The python3 that has torch: Debian's python3-torch lives in /usr/bin/python3
# (a pyenv python3 on PATH may lack it). Skipped (77) only when it cannot import torch.
if(EXISTS /usr/bin/python3)
  set(UCMOH_TEST_PYTHON_DEFAULT /usr/bin/python3)
else()
  find_program(UCMOH_TEST_PYTHON_DEFAULT python3)
endif()
set(UCMOH_TEST_PYTHON "${UCMOH_TEST_PYTHON_DEFAULT}" CACHE FILEPATH "python3 with torch, for pulled_model_python")
add_test(NAME pulled_model_python
  COMMAND ${UCMOH_TEST_PYTHON} ${CMAKE_CURRENT_LIST_DIR}/pulled_model_python_test.py
    --registry $<TARGET_FILE:registry> --fixture $<TARGET_FILE:pulled_model_fixture>
    --plugins ${PROJECT_SOURCE_DIR}/plugins.json --work ${CMAKE_CURRENT_BINARY_DIR}/pulled_model_python)
set_tests_properties(pulled_model_python PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600 LABELS python)
