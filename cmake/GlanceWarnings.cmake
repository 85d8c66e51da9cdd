# One place for the warning flags every Glance target uses.
function(glance_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow=local
                         -Wnon-virtual-dtor -Wcast-align -Wunused -Woverloaded-virtual
                         -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
endfunction()
