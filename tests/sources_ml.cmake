# Metrics, splits and the XGBoost baseline. Included from tests/CMakeLists.txt.
ucmoh_add_test(ml_test
  ${CMAKE_CURRENT_LIST_DIR}/build_program_set_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/splits_test.cpp
  ${CMAKE_CURRENT_LIST_DIR}/xgboost_baseline_test.cpp)
