# Installation (layout: cmake/install_dirs.cmake): libferry and the header,
# a pkg-config file and a CMake package named for this build's MPI
# (ferry-openmpi, ferry-mpich), links to the tools, man pages and documents.
include(CMakePackageConfigHelpers)
if(FERRY_MPI_FLAVOR STREQUAL "mpich")
  set(FERRY_MPI_NAME "MPICH")
  set(FERRY_MPI_MARK "MPICH_VERSION") # mpi.h of MPICH and its ABI (Intel MPI, Cray MPICH)
  set(FERRY_PC_MPI "mpich")
else()
  set(FERRY_MPI_NAME "Open MPI")
  set(FERRY_MPI_MARK "OMPI_MAJOR_VERSION")
  set(FERRY_PC_MPI "ompi-c")
endif()
set(FERRY_PKG ferry-${FERRY_MPI_FLAVOR})

# libferry: its imported target is ferry::<flavor> (and ferry::ferry)
set_target_properties(ferry PROPERTIES EXPORT_NAME ${FERRY_MPI_FLAVOR} INSTALL_RPATH "")
install(TARGETS ferry EXPORT ${FERRY_PKG}Targets
  LIBRARY DESTINATION ${FERRY_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${FERRY_INSTALL_LIBDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/ferry.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# CMake: find_package(ferry-openmpi) checks that the project's MPI is this one
install(EXPORT ${FERRY_PKG}Targets NAMESPACE ferry:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/${FERRY_PKG})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ferryConfig.cmake.in
  ${PROJECT_BINARY_DIR}/${FERRY_PKG}Config.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/${FERRY_PKG}
  PATH_VARS FERRY_INSTALL_LIBDIR FERRY_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/${FERRY_PKG}ConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/${FERRY_PKG}Config.cmake ${PROJECT_BINARY_DIR}/${FERRY_PKG}ConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/${FERRY_PKG})

# pkg-config: written at install time, with the prefix the install is given
# (cmake --install --prefix); it requires the MPI's own package where the
# MPI ships one, so its flags come with ferry's, ferry's first
find_package(PkgConfig QUIET)
set(FERRY_PC_REQUIRES "")
if(PKG_CONFIG_FOUND)
  pkg_check_modules(FERRY_PC_MPI_FOUND QUIET ${FERRY_PC_MPI})
  if(FERRY_PC_MPI_FOUND_FOUND)
    set(FERRY_PC_REQUIRES ${FERRY_PC_MPI})
  endif()
endif()
set(FERRY_PC_PREFIX "@FERRY_PC_PREFIX@") # left for the install step
configure_file(${PROJECT_SOURCE_DIR}/cmake/ferry.pc.in ${PROJECT_BINARY_DIR}/${FERRY_PKG}.pc.in @ONLY)
install(CODE "
  set(FERRY_PC_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  set(pc \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig/${FERRY_PKG}.pc\")
  message(STATUS \"Installing: \${pc}\")
  configure_file(\"${PROJECT_BINARY_DIR}/${FERRY_PKG}.pc.in\" \"\${pc}\" @ONLY)
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${pc}\")")

# PREFIX/bin/<tool>.<flavor> -> ../<flavor>/bin/<tool>
set(FERRY_TOOLS ferry-bench ferry-tune ferry-topo ferry-run ferry-decouple-bench)
install(CODE "
  file(MAKE_DIRECTORY \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\")
  foreach(t ${FERRY_TOOLS})
    file(RELATIVE_PATH rel \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\"
         \"\${CMAKE_INSTALL_PREFIX}/${FERRY_INSTALL_BINDIR}/\${t}\")
    set(link \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/\${t}.${FERRY_MPI_FLAVOR}\")
    file(CREATE_LINK \"\${rel}\" \"\${link}\" SYMBOLIC)
    list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${link}\")
  endforeach()")

# man pages and documents: the same from either build
file(GLOB FERRY_MAN1 ${PROJECT_SOURCE_DIR}/man/*.1)
install(FILES ${FERRY_MAN1} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PROJECT_SOURCE_DIR}/man/ferry.7 DESTINATION ${CMAKE_INSTALL_MANDIR}/man7)
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/CHANGELOG.md ${PROJECT_SOURCE_DIR}/README.md
  DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")
