# One place for the warning flags every Glance target uses.
function(glance_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic
                         -Wnon-virtual-dtor -Wcast-align -Wunused -Woverloaded-virtual
                         -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
  # GCC's spelling: Clang (the fuzz build) has no -Wshadow=local and warned so on every file.
  target_compile_options(${target} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-Wshadow=local>)
endfunction()
