# The Debian package: `cpack -G DEB` in the build folder (after building) makes glance_*.deb
# with glance, glance-cli, the demo model and image, the desktop file, metainfo and icons.
# Runtime dependencies come from dpkg-shlibdeps (package dpkg-dev) over the installed binaries.
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "glance")
set(CPACK_PACKAGE_VENDOR "The Glance developers")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Private, inspectable image captioning and chat with Qwen3.5")
set(CPACK_PACKAGE_DESCRIPTION
    "Glance describes images and answers questions about them with the Qwen3.5 vision-language model, entirely on the local CPU. It shows an attention heatmap for every word and the timing of every stage. Includes the glance desktop app, the glance-cli command-line tool and a small demo model.")
set(CPACK_PACKAGE_INSTALL_DIRECTORY "glance")
# The binaries look for the demo model at the configured prefix (GLANCE_INSTALL_DATADIR), so the
# package installs to that same prefix. Configure with -DCMAKE_INSTALL_PREFIX=/usr for a
# distributable package (the default /usr/local is fine for a local test package).
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_PACKAGE_MAINTAINER "The Glance developers <glance@users.noreply.github.com>")
set(CPACK_DEBIAN_PACKAGE_SECTION "graphics")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/glance/glance")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # glance_<version>_<arch>.deb

include(CPack)
