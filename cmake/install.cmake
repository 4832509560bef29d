# Installing kiln for C++ users (`cmake --install BUILD --prefix P`): the stage libraries, the public
# headers (include/kiln), the `kiln` CLI and a CMake package, so that another project's
#     find_package(kiln REQUIRED)            # with CMAKE_PREFIX_PATH=P
#     target_link_libraries(app PRIVATE kiln::kiln)
# works (examples/cpp). Components: kiln_dev (libraries, headers, CMake package) and kiln_cli (bin/kiln).
# The Python package's rules (component python) are python/CMakeLists.txt's.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

get_property(kiln_stage_targets GLOBAL PROPERTY KILN_STAGES)
install(TARGETS ${kiln_stage_targets} kiln EXPORT kilnTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT kiln_dev
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/kiln DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT kiln_dev)
install(EXPORT kilnTargets NAMESPACE kiln:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kiln COMPONENT kiln_dev)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/kilnConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/cmake/kilnConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/kilnConfigVersion.cmake VERSION ${PROJECT_VERSION}
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/kilnConfig.cmake ${PROJECT_BINARY_DIR}/cmake/kilnConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kiln COMPONENT kiln_dev)

install(TARGETS kiln_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT kiln_cli)
