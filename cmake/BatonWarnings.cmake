# One place for the warning flags, so that every target of the project builds
# with the same discipline and CI can turn warnings into errors.
function(baton_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
                         -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
                         -Woverloaded-virtual)
  if(BATON_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  target_compile_definitions(${target} PRIVATE
                             QT_NO_KEYWORDS)
endfunction()
