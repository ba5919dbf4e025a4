# What `cmake --install` puts where (README.md, Install), besides the targets
# that src/ and profiler/ install themselves:
#   lib/cmake/mgsim/       the CMake package: find_package(mgsim)
#   share/doc/mgsim/       README.md, docs/, validation/README.md and traces/README.md, laid out as in
#                          the source tree so that their links work
#   share/mgsim/           the shipped examples: configs/, traces/, validation/ and
#                          the plot scripts in scripts/ (the binary looks there for a
#                          relative input path it does not find: src/cli/shipped_data.cpp)
#   share/man/man1/        mgsim.1, made by help2man when it is installed
#   share/bash-completion/completions/mgsim

include(CMakePackageConfigHelpers)
set(MGSIM_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/mgsim)
install(EXPORT mgsimTargets NAMESPACE mgsim:: DESTINATION ${MGSIM_PACKAGE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/mgsimConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/mgsimConfig.cmake INSTALL_DESTINATION ${MGSIM_PACKAGE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/mgsimConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/mgsimConfig.cmake ${PROJECT_BINARY_DIR}/mgsimConfigVersion.cmake
        DESTINATION ${MGSIM_PACKAGE_DIR})

install(FILES ${PROJECT_SOURCE_DIR}/README.md TYPE DOC)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs TYPE DOC)
install(FILES ${PROJECT_SOURCE_DIR}/validation/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/validation)
install(FILES ${PROJECT_SOURCE_DIR}/traces/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}/traces)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs ${PROJECT_SOURCE_DIR}/traces ${PROJECT_SOURCE_DIR}/validation
        DESTINATION ${CMAKE_INSTALL_DATADIR}/mgsim)
install(PROGRAMS ${PROJECT_SOURCE_DIR}/scripts/plot_sweep.py ${PROJECT_SOURCE_DIR}/scripts/plot_frontier.py
                 ${PROJECT_SOURCE_DIR}/scripts/plot_stragglers.py DESTINATION ${CMAKE_INSTALL_DATADIR}/mgsim/scripts)
install(FILES ${PROJECT_SOURCE_DIR}/completions/mgsim.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME mgsim)

find_program(MGSIM_HELP2MAN help2man)
if(MGSIM_SANITIZE)  # a sanitized mgsim is for tests; its --help might report at exit
  message(STATUS "MGSIM_SANITIZE is ON: no man page")
elseif(MGSIM_HELP2MAN)
  add_custom_command(OUTPUT ${PROJECT_BINARY_DIR}/mgsim.1
    COMMAND ${CMAKE_COMMAND} -DMGSIM=$<TARGET_FILE:mgsim> -DHELP2MAN=${MGSIM_HELP2MAN}
            -DSECTIONS=${PROJECT_SOURCE_DIR}/cmake/man_sections.roff
            -DOUTPUT=${PROJECT_BINARY_DIR}/mgsim.1 -P ${PROJECT_SOURCE_DIR}/cmake/man_page.cmake
    DEPENDS mgsim ${PROJECT_SOURCE_DIR}/cmake/man_page.cmake ${PROJECT_SOURCE_DIR}/cmake/man_sections.roff
    COMMENT "man page mgsim.1 (help2man)")
  add_custom_target(mgsim_man ALL DEPENDS ${PROJECT_BINARY_DIR}/mgsim.1)
  install(FILES ${PROJECT_BINARY_DIR}/mgsim.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man not found: no man page (scripts/install-deps.sh installs it)")
endif()
