# SPDX-License-Identifier: Apache-2.0
# `cmake --install` (README "Install"): the CLI, the reference libraries with their public
# headers, include/sampcheck/backend_abi.h, golden/v1 and a CMake package config, so that a
# kernel project writes
#   find_package(sampcheck CONFIG REQUIRED)
#   target_link_libraries(my_test PRIVATE sampcheck::reference)
# Layout under the prefix (GNUInstallDirs):
#   bin/sampcheck                        finds share/sampcheck/golden/v1 relative to itself
#   lib/libsampcheck_*.a                 core, reference, golden (exported as sampcheck::*)
#   include/sampcheck/{core,reference,golden}/*.h, include/sampcheck/backend_abi.h
#   share/sampcheck/golden/v1/           the checked-in golden set
#   lib/cmake/sampcheck/                 sampcheckConfig.cmake, version file, targets
#   lib/python3/dist-packages/sampcheck/ the Python package, when it was built (python/)
include(CMakePackageConfigHelpers)

set(SAMPCHECK_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/sampcheck)
set(SAMPCHECK_INSTALL_GOLDENDIR ${CMAKE_INSTALL_DATADIR}/sampcheck/golden/v1)

# Headers are included as "core/tensor.h", "reference/top_p.h" from the source root in the
# build and from include/sampcheck once installed; the C ABI header as <sampcheck/backend_abi.h>.
set_property(TARGET sampcheck_core PROPERTY INTERFACE_INCLUDE_DIRECTORIES
             $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/sampcheck>)
set_property(TARGET sampcheck_abi PROPERTY INTERFACE_INCLUDE_DIRECTORIES
             $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
# The exported libraries: reference and golden are either static libraries or interface
# wrappers that link an archive of self-registering stages (cases) whole; both layouts export.
set(exported)
foreach(target flags core reference reference_stages golden golden_cases abi)
  if(NOT TARGET sampcheck_${target})
    continue()
  endif()
  set_target_properties(sampcheck_${target} PROPERTIES EXPORT_NAME ${target})
  list(APPEND exported sampcheck_${target})
  # Position-independent, so a consumer may link them into a shared library or a Python module.
  get_target_property(type sampcheck_${target} TYPE)
  if(NOT type STREQUAL "INTERFACE_LIBRARY")
    set_target_properties(sampcheck_${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  endif()
endforeach()

# A wrapper that links its archive whole ($<LINK_LIBRARY:WHOLE_ARCHIVE,sampcheck_x>) would be
# exported with the bare name sampcheck_x (CMake does not namespace names inside that
# generator expression), so an installed consumer would get a bare -l without the archive's
# own dependencies: the installed wrapper names the exported sampcheck::x instead.
foreach(target reference golden)
  get_target_property(type sampcheck_${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    get_target_property(links sampcheck_${target} INTERFACE_LINK_LIBRARIES)
    string(REPLACE "WHOLE_ARCHIVE,sampcheck_" "WHOLE_ARCHIVE,sampcheck::" installed_links "${links}")
    set_property(TARGET sampcheck_${target} PROPERTY INTERFACE_LINK_LIBRARIES
                 "$<BUILD_INTERFACE:${links}>" "$<INSTALL_INTERFACE:${installed_links}>")
  endif()
endforeach()

install(TARGETS sampcheck RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ${exported}
        EXPORT sampcheckTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY core reference golden DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sampcheck
        FILES_MATCHING PATTERN "*.h" PATTERN "v1" EXCLUDE)
install(FILES include/sampcheck/backend_abi.h include/sampcheck/plugin_helpers.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/sampcheck)
install(DIRECTORY golden/v1/ DESTINATION ${SAMPCHECK_INSTALL_GOLDENDIR})

install(EXPORT sampcheckTargets NAMESPACE sampcheck:: DESTINATION ${SAMPCHECK_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/sampcheckConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/sampcheckConfig.cmake
                              INSTALL_DESTINATION ${SAMPCHECK_INSTALL_CMAKEDIR}
                              PATH_VARS SAMPCHECK_INSTALL_GOLDENDIR)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/sampcheckConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/sampcheckConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/sampcheckConfigVersion.cmake
        DESTINATION ${SAMPCHECK_INSTALL_CMAKEDIR})

# ctest: install into a temporary prefix, build tests/install_consumer/ against it and run
# it; run the installed CLI from elsewhere (it must find its installed goldens) and, when the
# Python module was built, import the installed package.
if(SAMPCHECK_BUILD_TESTS)
  add_test(NAME install_and_consume
           COMMAND bash ${PROJECT_SOURCE_DIR}/tests/install_consumer_test.sh ${CMAKE_BINARY_DIR}
                   ${PROJECT_SOURCE_DIR}/tests/install_consumer ${SAMPCHECK_PYTHON_MODULE})
  # COST: start it early on a fresh build (tests/CMakeLists.txt, "Start order").
  set_tests_properties(install_and_consume PROPERTIES LABELS unit TIMEOUT 600 COST 19)
endif()
