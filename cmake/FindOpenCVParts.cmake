# Debian splits OpenCV into per-module -dev packages, and only the all-modules libopencv-dev
# ships OpenCVConfig.cmake. Glance needs three modules, so it finds them directly and
# exposes one imported target, Glance::OpenCV.
find_path(GLANCE_OPENCV_INCLUDE_DIR opencv2/core.hpp PATH_SUFFIXES opencv4 REQUIRED)
set(_glance_cv_libs)
foreach(module core imgproc imgcodecs)
  find_library(GLANCE_OPENCV_${module}_LIBRARY NAMES opencv_${module} REQUIRED)
  list(APPEND _glance_cv_libs ${GLANCE_OPENCV_${module}_LIBRARY})
endforeach()
add_library(Glance::OpenCV INTERFACE IMPORTED)
set_target_properties(Glance::OpenCV PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${GLANCE_OPENCV_INCLUDE_DIR}"
  INTERFACE_LINK_LIBRARIES "${_glance_cv_libs}")
message(STATUS "OpenCV (core, imgproc, imgcodecs): ${GLANCE_OPENCV_INCLUDE_DIR}")
