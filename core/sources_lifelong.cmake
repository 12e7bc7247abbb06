# Lifelong learning: Fisher-importance snapshots, the EWC penalty and the
# sequence runner (part of ucmoh_model; fisher.cpp and ewc_penalty.cpp use
# LibTorch, snapshot.cpp and lifelong.cpp only the public headers).
target_sources(ucmoh_model PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/src/ewc_penalty.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/fisher.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/lifelong.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/lifelong_step.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/online_update.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/snapshot.cpp
  ${CMAKE_CURRENT_LIST_DIR}/src/state_dir.cpp
)
