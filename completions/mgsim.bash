# bash completion for mgsim (installed as share/bash-completion/completions/mgsim).
# Subcommands, options and option values are read from `mgsim ... --help`
# (and `mgsim list`, `mgsim zoo list`) at each completion, so they follow the
# binary; any other value completes as a file name.

# Prints the subcommands (with --subcommands) or the options listed by `mgsim WORDS... --help`;
# an option that takes a value is printed with a trailing "=".
_mgsim_help_words() {
  local what=$1 mgsim=$2
  shift 2
  "$mgsim" "$@" --help 2>/dev/null | awk -v what="$what" '
    /^[A-Za-z].*:$/ { section = $0; next }
    section == "Subcommands:" && what == "--subcommands" && /^  [^ -]/ { print $1 }
    section == "Options:" && what == "--options" && /^  -/ {
      takes_value = ($2 ~ /^[A-Z]/)
      n = split($1, names, ",")
      for (i = 1; i <= n; i++) print names[i] (takes_value ? "=" : "")
    }'
}

# Prints the names of a section of `mgsim WORDS...` ("schedules:", "models" ...): the
# first word of its indented lines.
_mgsim_listed() {  # _mgsim_listed MGSIM SECTION-PREFIX WORDS...
  local mgsim=$1 prefix=$2
  shift 2
  "$mgsim" "$@" 2>/dev/null | awk -v prefix="$prefix" '
    /^[a-z]/ { on = index($0, prefix) == 1; next }
    on && /^  [a-z0-9]/ { print $1 }'
}

# Prints the values OPTION of `mgsim WORDS...` takes, when they are a known set: the
# list its help starts with ("table, csv or json"), or a zoo model, a GPU or a schedule.
_mgsim_values() {  # _mgsim_values MGSIM OPTION WORDS...
  local mgsim=$1 option=$2
  shift 2
  local help
  # The option's line and its continuation lines (a long one is wrapped), as one line.
  help=$("$mgsim" "$@" --help 2>/dev/null | awk -v option="$option" '
    found && /^     / { sub(/^ +/, "  "); line = line $0; next }
    found { exit }
    /^  -/ { n = split($1, names, ","); for (i = 1; i <= n; i++) if (names[i] == option) { found = 1; line = $0 } }
    END { print line }')
  help=$(sed -E 's/^  [^ ]+( [^ ]+)*  +//' <<<"$help")  # the description: after the names and type
  if [[ $help =~ (^|: )([a-z0-9_]+(, [a-z0-9_]+)*\ or\ [a-z0-9_]+) ]]; then
    sed -e 's/, / /g' -e 's/ or / /' <<<"${BASH_REMATCH[2]}"
  elif [[ $help == *"zoo model"* || $help == "model name (see \`mgsim zoo list\`)"* ]]; then
    _mgsim_listed "$mgsim" models zoo list
  elif [[ $help == *"GPU catalogue"* ]]; then
    _mgsim_listed "$mgsim" gpus zoo list
  elif [[ $help == schedule* ]]; then
    _mgsim_listed "$mgsim" schedules list
  fi
}

_mgsim() {
  local mgsim=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  local -a path=()
  local subcommands options values i
  subcommands=$(_mgsim_help_words --subcommands "$mgsim")
  for ((i = 1; i < COMP_CWORD; i++)); do
    if [[ ${COMP_WORDS[i]} != -* ]] && grep -qxF -- "${COMP_WORDS[i]}" <<<"$subcommands"; then
      path+=("${COMP_WORDS[i]}")
      subcommands=$(_mgsim_help_words --subcommands "$mgsim" "${path[@]}")
    fi
  done
  options=$(_mgsim_help_words --options "$mgsim" "${path[@]}")
  if [[ $prev == -* ]] && grep -qxF -- "$prev=" <<<"$options"; then
    values=$(_mgsim_values "$mgsim" "$prev" "${path[@]}")
    if [[ -n $values ]]; then
      mapfile -t COMPREPLY < <(compgen -W "$values" -- "$cur")
    else
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
  elif [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "${options//=/}" -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -W "$subcommands" -- "$cur"; compgen -f -- "$cur")
  fi
}
complete -o filenames -F _mgsim mgsim
