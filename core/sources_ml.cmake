# The lifelong step's options, program sets, metrics, splits and the non-neural baselines (flat features,
# XGBoost). Included from core/CMakeLists.txt; none of these files use torch.
target_sources(ucmoh_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/src/lifelong_step_options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/program_set.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/rehearsal.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/metrics.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/splits.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/task_split.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/flat_features.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/xgboost_baseline.cpp
)

# XGBoost's C API (libxgboost-dev). Not find_package(xgboost): Debian's config
# also exports xgboost::runxgboost, whose /usr/bin/xgboost only the separate
# CLI package installs, so the config fails to load without it. We define the
# same xgboost::xgboost target from the library and header instead.
if(NOT TARGET xgboost::xgboost)
  find_path(XGBOOST_INCLUDE_DIR xgboost/c_api.h REQUIRED)
  find_library(XGBOOST_LIBRARY NAMES xgboost REQUIRED)
  add_library(xgboost::xgboost UNKNOWN IMPORTED GLOBAL)
  set_target_properties(xgboost::xgboost PROPERTIES
    IMPORTED_LOCATION ${XGBOOST_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${XGBOOST_INCLUDE_DIR})
endif()
target_link_libraries(ucmoh_core PRIVATE xgboost::xgboost)
