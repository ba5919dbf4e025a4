# bash completion for mgsim (installed as share/bash-completion/completions/mgsim).
# Subcommands and options are read from `mgsim ... --help` at each completion,
# so they follow the binary; an option's value and anything else complete as
# file names.

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

_mgsim() {
  local mgsim=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  local -a path=()
  local subcommands options i
  subcommands=$(_mgsim_help_words --subcommands "$mgsim")
  for ((i = 1; i < COMP_CWORD; i++)); do
    if [[ ${COMP_WORDS[i]} != -* ]] && grep -qxF -- "${COMP_WORDS[i]}" <<<"$subcommands"; then
      path+=("${COMP_WORDS[i]}")
      subcommands=$(_mgsim_help_words --subcommands "$mgsim" "${path[@]}")
    fi
  done
  options=$(_mgsim_help_words --options "$mgsim" "${path[@]}")
  if [[ $prev == -* ]] && grep -qxF -- "$prev=" <<<"$options"; then
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  elif [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "${options//=/}" -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -W "$subcommands" -- "$cur"; compgen -f -- "$cur")
  fi
}
complete -o filenames -F _mgsim mgsim
