# Writes OUTPUT, mgsim's man page, with help2man: the top-level --help and
# --version, then a COMMANDS section with every subcommand's --help (nested
# ones too), so the page lists each option and example the binary has, then
# the hand-written sections of SECTIONS (EXIT STATUS, FILES, ENVIRONMENT,
# SEE ALSO: cmake/man_sections.roff).
#   cmake -DMGSIM=... -DHELP2MAN=... -DSECTIONS=... -DOUTPUT=... -P man_page.cmake

# Appends to `text` the --help of `mgsim ${words}` and of its subcommands, as roff.
function(append_help words)
  execute_process(COMMAND ${MGSIM} ${words} --help OUTPUT_VARIABLE help RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "mgsim ${words} --help failed")
  endif()
  list(JOIN words " " title)
  if(title)
    string(REPLACE "\\" "\\e" roff "${help}")
    string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" roff "${roff}")
    set(text "${text}.SS \"mgsim ${title}\"\n.nf\n${roff}.fi\n")
  endif()
  # The names under "Subcommands:", one per line, up to the next blank line.
  if(help MATCHES "\nSubcommands:\n(.*)")
    string(REGEX REPLACE "\n\n.*" "" listing "${CMAKE_MATCH_1}")
    string(REPLACE "\n" ";" lines "${listing}")
    foreach(line IN LISTS lines)
      if(line MATCHES "^  ([a-z][a-z0-9-]*)")
        set(sub ${words} ${CMAKE_MATCH_1})
        append_help("${sub}")
      endif()
    endforeach()
  endif()
  set(text "${text}" PARENT_SCOPE)
endfunction()

set(text "")
append_help("")
file(WRITE ${OUTPUT}.include "[COMMANDS]\n${text}")
execute_process(COMMAND ${HELP2MAN} --no-info --no-discard-stderr --section 1
                        --name "trace-driven simulator of data-parallel training on GPU clusters"
                        --include ${OUTPUT}.include --include ${SECTIONS} --output ${OUTPUT} ${MGSIM}
                RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "help2man failed on ${MGSIM}")
endif()
