# Writes the baton(1) manual page and the bash and zsh completions from what
# the built program says of itself (`baton help`, `baton COMMAND --help`,
# `baton --version`): the usage, the page and the completions have one
# source and cannot drift.
#
#   cmake -DBATON=path/to/baton -DOUT_DIR=dir -P BatonManual.cmake

if(NOT BATON OR NOT OUT_DIR)
  message(FATAL_ERROR "BatonManual.cmake needs -DBATON=... and -DOUT_DIR=...")
endif()

set(commands join status check handover drain undrain demo)
list(JOIN commands " " command_words)

function(baton_says out)
  execute_process(COMMAND ${BATON} ${ARGN} OUTPUT_VARIABLE text RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR "`baton ${ARGN}` failed (${failed})")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# roff: a backslash is written \e, a minus \-, and a line may not start
# with a dot or an apostrophe (it would be a request).
function(baton_roff out text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

baton_says(usage help)
baton_says(version --version)
# The -o formats, as the usage lists them (`-o table|wide|...`).
if(NOT usage MATCHES "-o ([a-z]+(\\|[a-z]+)+)\\]")
  message(FATAL_ERROR "the usage lists no -o formats")
endif()
string(REPLACE "|" " " output_formats "${CMAKE_MATCH_1}")
string(STRIP "${version}" version)
string(TIMESTAMP today "%Y-%m-%d" UTC)

baton_roff(usage_roff "${usage}")
set(page ".TH BATON 1 \"${today}\" \"${version}\" \"User Commands\"
.SH NAME
baton \\- leader election for Qt applications
.SH SYNOPSIS
.B baton
.I COMMAND
[\\fIOPTIONS\\fR]
.SH DESCRIPTION
.nf
${usage_roff}.fi
")

set(bash_cases "")
foreach(command ${commands})
  baton_says(help_${command} ${command} --help)
  baton_roff(help_roff "${help_${command}}")
  string(TOUPPER "${command}" title)
  string(APPEND page ".SH \"BATON ${title}\"\n.nf\n${help_roff}.fi\n")

  # Every option the command's parser knows, short and long.
  string(REGEX MATCHALL "\n  (-[A-Za-z], )?--[a-z-]+" option_lines "\n${help_${command}}")
  set(options "")
  foreach(line ${option_lines})
    string(REGEX MATCHALL "-?-[A-Za-z-]+" names "${line}")
    list(APPEND options ${names})
  endforeach()
  list(REMOVE_ITEM options --help-all)
  list(JOIN options " " options)
  string(APPEND bash_cases "    ${command}) options=\"${options}\" ;;\n")
endforeach()

# Only what the packages install (app/CMakeLists.txt; tests/docs checks it).
string(APPEND page ".SH \"SEE ALSO\"
In /usr/share/doc/baton: howto/systemd.md, howto/kubernetes.md and
howto/monitoring.md, to run and watch baton; reference/command\\-line.md,
reference/configuration.md, reference/exit\\-codes.md, reference/metrics.md,
reference/events.md, reference/logging.md and reference/files.md, every
option, parameter, code, metric and record; safety.md, what the election
guarantees. The units
baton\\-join@.service, baton\\-job@.service and baton\\-job@.timer;
.BR systemctl (1),
.BR journalctl (1).
")
file(WRITE ${OUT_DIR}/baton.1 "${page}")

file(WRITE ${OUT_DIR}/baton.bash "# bash completion for baton, generated from its --help
_baton()
{
    local cur=\${COMP_WORDS[COMP_CWORD]} previous=\${COMP_WORDS[COMP_CWORD-1]}
    local command=\${COMP_WORDS[1]} options
    if [ \"\$COMP_CWORD\" -eq 1 ]; then
        COMPREPLY=(\$(compgen -W \"${command_words} help --version --help\" -- \"\$cur\"))
        return
    fi
    case \"\$command\" in
${bash_cases}    *) return ;;
    esac
    case \"\$previous\" in
        --config|--history|--kubeconfig|--cacert|--cert|--key|--password-file)
            COMPREPLY=(\$(compgen -f -- \"\$cur\"))
            return ;;
        -o|--output)
            COMPREPLY=(\$(compgen -W \"${output_formats}\" -- \"\$cur\"))
            return ;;
    esac
    if [[ \"\$cur\" == -* ]]; then
        COMPREPLY=(\$(compgen -W \"\$options\" -- \"\$cur\"))
    elif [ \"\$command\" = status ]; then
        # Lease names, from the store the line names so far (cheap: one look).
        COMPREPLY=(\$(compgen -W \"\$(\${COMP_WORDS[0]} status \"\${COMP_WORDS[@]:2:COMP_CWORD-2}\" -o name 2>/dev/null)\" -- \"\$cur\"))
    fi
}
complete -F _baton baton
")

file(WRITE ${OUT_DIR}/_baton "#compdef baton
# zsh completion for baton: the bash one, generated from its --help.
autoload -U +X bashcompinit && bashcompinit
source \"\${0:h}/../../bash-completion/completions/baton\" 2>/dev/null \\
    || source /usr/share/bash-completion/completions/baton
")
