# `cmake --install build [--prefix P]`: what a vendor needs to build a target
# plugin out of tree, and what a user needs to run the registry.
#
#   P/include/ucmoh/*.h                 the plugin ABI: the C table (plugin_c.h), the
#                                       C++ interface over it and its value types
#   P/share/ucmoh/plugin_sdk/*.cpp      the value types' helpers and the JSON codecs
#                                       the adapter uses, as sources: a plugin compiles
#                                       them with its own compiler and C++ library
#   P/lib/cmake/ucmoh/                  find_package(ucmoh): ucmoh::plugin_api and
#                                       ucmoh_add_plugin(NAME SOURCES...)
#   P/bin/registry                      the CLI
#   P/lib/ucmoh/plugins/libucmoh_*.so   the project's target plugins
#   P/share/ucmoh/plugins.json          their manifest, which an installed
#                                       registry (and libucmoh) loads by default
#   P/include/ucmoh/ucmoh.h, P/lib/libucmoh.so.1
#                                       the C API for compilers: ucmoh::ucmoh
#   P/lib/python3.X/dist-packages/ucmoh the Python package over it
# GNUInstallDirs is included at the top, since core's targets name its dirs.
include(CMakePackageConfigHelpers)

set(UCMOH_PLUGIN_HEADERS params.h plugin.h plugin_c.h plugin_c_adapter.h plugin_c_json.h program_ast.h
    record.h status.h target.h hardware_json.h params_json.h record_json.h)
list(TRANSFORM UCMOH_PLUGIN_HEADERS PREPEND ${PROJECT_SOURCE_DIR}/core/include/ucmoh/)
install(FILES ${UCMOH_PLUGIN_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ucmoh)
# Sources, not a prebuilt library: nothing of this build's C++ library reaches
# a plugin, which may use clang and libc++ (tests/plugins/install_test.sh).
# The list is core/CMakeLists.txt's.
install(FILES ${UCMOH_PLUGIN_SDK_SOURCES} DESTINATION ${CMAKE_INSTALL_DATADIR}/ucmoh/plugin_sdk)
set(UCMOH_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ucmoh)
install(EXPORT ucmohTargets NAMESPACE ucmoh:: DESTINATION ${UCMOH_CMAKE_DIR})

# The ABI major the headers define, read from plugin_c.h so the two cannot
# disagree; find_package users get it as UCMOH_PLUGIN_ABI. A change to the
# header re-runs configure, so an existing build never installs a stale number.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/core/include/ucmoh/plugin_c.h)
file(STRINGS ${PROJECT_SOURCE_DIR}/core/include/ucmoh/plugin_c.h UCMOH_ABI_LINE
     REGEX "define UCMOH_PLUGIN_C_MAJOR [0-9]+")
string(REGEX REPLACE ".*MAJOR ([0-9]+).*" "\\1" UCMOH_PLUGIN_ABI "${UCMOH_ABI_LINE}")

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/ucmohConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/ucmohConfig.cmake INSTALL_DESTINATION ${UCMOH_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ucmohConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ucmohConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/ucmohConfigVersion.cmake
        DESTINATION ${UCMOH_CMAKE_DIR})

# The CLI, the plugins and a manifest whose paths are relative to itself.
set(UCMOH_PLUGIN_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/ucmoh/plugins)
install(TARGETS registry RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The measurers `registry measure --host` copies to hosts, found beside it.
install(TARGETS ucmoh-measure RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET ucmoh_measure_aarch64)
  install(PROGRAMS ${CMAKE_BINARY_DIR}/bin/ucmoh-measure-aarch64 DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
file(RELATIVE_PATH UCMOH_MANIFEST_TO_PLUGINS /${CMAKE_INSTALL_DATADIR}/ucmoh /${UCMOH_PLUGIN_INSTALL_DIR})
set(UCMOH_MANIFEST_ENTRIES "")
foreach(plugin x86 arm tensorcore)
  if(TARGET ucmoh_${plugin})
    install(TARGETS ucmoh_${plugin} LIBRARY DESTINATION ${UCMOH_PLUGIN_INSTALL_DIR})
    list(APPEND UCMOH_MANIFEST_ENTRIES
      "    {\"name\": \"${plugin}\", \"library\": \"${UCMOH_MANIFEST_TO_PLUGINS}/libucmoh_${plugin}.so\", \"abi\": ${UCMOH_PLUGIN_ABI}}")
  endif()
endforeach()
list(JOIN UCMOH_MANIFEST_ENTRIES ",\n" UCMOH_MANIFEST_ENTRIES)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/installed_plugins.json
     "{\n  \"plugins\": [\n${UCMOH_MANIFEST_ENTRIES}\n  ]\n}\n")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/installed_plugins.json
        DESTINATION ${CMAKE_INSTALL_DATADIR}/ucmoh RENAME plugins.json)

# libucmoh: the C API (docs/compilers.md), exported as ucmoh::ucmoh.
install(FILES ${PROJECT_SOURCE_DIR}/libucmoh/include/ucmoh/ucmoh.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ucmoh)
install(TARGETS ucmoh EXPORT ucmohTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

# The Python package, where Debian's python3 looks under PREFIX
# (/usr/local/lib/python3.X/dist-packages), with the path to libucmoh
# relative to itself so the installed tree can move.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
  set(UCMOH_PYTHON_DEFAULT "lib/python${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}/dist-packages")
else()
  set(UCMOH_PYTHON_DEFAULT "lib/python3/dist-packages")
endif()
set(UCMOH_PYTHON_INSTALL_DIR "${UCMOH_PYTHON_DEFAULT}" CACHE STRING "Where cmake --install puts the ucmoh Python package")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/ucmoh DESTINATION ${UCMOH_PYTHON_INSTALL_DIR}
        PATTERN __pycache__ EXCLUDE)
file(RELATIVE_PATH UCMOH_PYTHON_TO_LIB /${UCMOH_PYTHON_INSTALL_DIR}/ucmoh /${CMAKE_INSTALL_LIBDIR})
# An installed `registry` hands the installed package to the Python it runs
# (`import metaschedule`, `collect metaschedule`; tools/registry/tvm_python.cpp).
file(RELATIVE_PATH UCMOH_BIN_TO_PYTHON /${CMAKE_INSTALL_BINDIR} /${UCMOH_PYTHON_INSTALL_DIR})
target_compile_definitions(registry PRIVATE UCMOH_BIN_TO_PYTHON="${UCMOH_BIN_TO_PYTHON}")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/ucmoh_python_install.py
     "# Written by cmake --install: libucmoh relative to this package.\nLIBRARY = \"${UCMOH_PYTHON_TO_LIB}/libucmoh.so.1\"\n")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ucmoh_python_install.py
        DESTINATION ${UCMOH_PYTHON_INSTALL_DIR}/ucmoh RENAME _install.py)
