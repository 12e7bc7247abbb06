# UCMOH_MEASURER_ONLY: ucmoh-measure and the libraries it links (core's value
# types and record lines, the cpu_gemm family and runtime, the CPU targets'
# host parts), for any processor the toolchain builds for. Its header-only
# dependencies (Boost, nlohmann-json, CLI11) come from the build machine
# through UCMOH_HOST_HEADERS, a folder of links to just those headers
# (tools/measure/CMakeLists.txt makes it), so no other build-machine header
# reaches a cross compiler.
find_package(Threads REQUIRED)
if(NOT UCMOH_HOST_HEADERS)
  message(FATAL_ERROR "UCMOH_MEASURER_ONLY needs -DUCMOH_HOST_HEADERS=DIR (links to boost/, nlohmann/, CLI/)")
endif()
foreach(name Boost::boost nlohmann_json::nlohmann_json CLI11::CLI11)
  add_library(${name} INTERFACE IMPORTED)
  set_target_properties(${name} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${UCMOH_HOST_HEADERS})
endforeach()
add_compile_options(-Wall -Wextra -Wno-unused-parameter)
add_subdirectory(core)
add_subdirectory(plugins/cpu_gemm)
add_subdirectory(plugins/x86)
add_subdirectory(plugins/arm)
add_subdirectory(tools/measure)
