# ccache, when installed, for every build of this tree (build/, build-sanitize/,
# build-fuzz/, the aarch64 measurer). Paths are hashed relative to the source
# tree and the working directory is left out, so every clone of the repository
# shares one cache: CI's clean clone compiles what a developer's checkout
# already compiled from the same sources. The cost is that debug info of a hit
# names the first clone's directory. A launcher given on the command line other
# than plain ccache is kept.
find_program(UCMOH_CCACHE ccache)
if(UCMOH_CCACHE AND (NOT CMAKE_CXX_COMPILER_LAUNCHER OR CMAKE_CXX_COMPILER_LAUNCHER STREQUAL "ccache"))
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}
      CCACHE_NOHASHDIR=true ${UCMOH_CCACHE})
  set(CMAKE_C_COMPILER_LAUNCHER ${CMAKE_CXX_COMPILER_LAUNCHER})
endif()
