# A Debian package of the CLI, library, headers and CMake package: `cpack -G DEB` in the build directory
# writes mixgraph_<version>_amd64.deb. Its Depends line comes from dpkg-shlibdeps (the shared libraries the
# binaries really link: OpenMP, muParser, GLPK, MPI where built in) plus cairo, which is loaded on demand, so it installs on a clean Debian 12.
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "mixgraph")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "mixgraph developers <dev@mixgraph.invalid>")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_DEBIAN_FILE_NAME "DEB-DEFAULT")  # mixgraph_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Libraries loaded with dlopen are invisible to dpkg-shlibdeps: cairo (on the first figure) is named here.
# (The MPI plugin, libmixgraph_mpi.so, links libmpi, so shlibdeps finds that one itself.)
if(MIXGRAPH_HAVE_CAIRO)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libcairo2")
endif()
# Headers use Boost, Eigen and nlohmann-json; only users of the library need them.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libboost-dev, libeigen3-dev, nlohmann-json3-dev")
include(CPack)
