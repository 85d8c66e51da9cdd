# ctest packaging_deb: cpack -G DEB into a scratch folder, then dpkg-deb -c must list the two
# binaries, the demo model, the demo image and the desktop integration files.
set(out ${BINARY_DIR}/packaging-test)
file(REMOVE_RECURSE ${out})
file(MAKE_DIRECTORY ${out})
execute_process(COMMAND ${CPACK} -G DEB -B ${out} --config ${BINARY_DIR}/CPackConfig.cmake
                WORKING_DIRECTORY ${BINARY_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log
                TIMEOUT 100)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cpack -G DEB failed (${rc}); build all targets first.\n${log}")
endif()
file(GLOB debs ${out}/*.deb)
list(LENGTH debs n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one .deb in ${out}, found: ${debs}\n${log}")
endif()
execute_process(COMMAND ${DPKG_DEB} -c ${debs} RESULT_VARIABLE rc OUTPUT_VARIABLE listing)
execute_process(COMMAND ${DPKG_DEB} -f ${debs} Package Depends OUTPUT_VARIABLE fields)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "dpkg-deb -c ${debs} failed")
endif()
set(missing "")
foreach(path
    ${BINDIR}/glance
    ${BINDIR}/glance-cli
    ${DATADIR}/glance/demo-model/model.safetensors
    ${DATADIR}/glance/demo-model/config.json
    ${DATADIR}/glance/demo-model/tokenizer.json
    ${DATADIR}/glance/demo-image.png
    ${DATADIR}/applications/io.github.glance.Glance.desktop
    ${DATADIR}/metainfo/io.github.glance.Glance.metainfo.xml
    ${DATADIR}/icons/hicolor/scalable/apps/io.github.glance.Glance.svg
    ${DATADIR}/icons/hicolor/256x256/apps/io.github.glance.Glance.png
    ${DATADIR}/icons/hicolor/16x16/apps/io.github.glance.Glance.png)
  string(REGEX REPLACE "([.+])" "\\\\\\1" pattern "${path}")
  if(NOT listing MATCHES "/${pattern}\n")
    list(APPEND missing ${path})
  endif()
endforeach()
if(missing)
  message(FATAL_ERROR "${debs} lacks: ${missing}\nContents:\n${listing}")
endif()
if(NOT fields MATCHES "Package: glance\n" OR NOT fields MATCHES "Depends: .*libqt6")
  message(FATAL_ERROR "unexpected control fields (shlibdeps should add Qt):\n${fields}")
endif()
message(STATUS "${debs}: all expected files present\n${fields}")
