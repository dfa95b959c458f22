# bash completion for seqfuse. Options come from the installed binary's own
# --help, so they never fall behind the CLI.
_seqfuse() {
  local cur=${COMP_WORDS[COMP_CWORD]}
  local subcommands="align-nw align-sw align-merge kmer-count bwt fastq-trim embed info"
  if [ "$COMP_CWORD" -eq 1 ]; then
    mapfile -t COMPREPLY < <(compgen -W "$subcommands --help --version -V" -- "$cur")
    return
  fi
  local sub=${COMP_WORDS[1]} nested=""
  # kmer-count's own subcommands
  if [ "$sub" = kmer-count ]; then
    if [ "$COMP_CWORD" -eq 2 ] && [[ "$cur" != -* ]]; then
      mapfile -t COMPREPLY < <(compgen -W "dump histo query stats" -- "$cur")
      compopt -o default 2>/dev/null
      return
    fi
    case ${COMP_WORDS[2]} in dump | histo | query | stats) nested=${COMP_WORDS[2]} ;; esac
  fi
  if [[ "$cur" == -* ]]; then
    local options
    options=$("${COMP_WORDS[0]}" "$sub" $nested --help 2>/dev/null |
      grep -oE -- '(^|[ ,])--?[A-Za-z][-A-Za-z0-9]*' | tr -d ' ,' | sort -u)
    mapfile -t COMPREPLY < <(compgen -W "$options" -- "$cur")
    return
  fi
  mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  compopt -o filenames 2>/dev/null
}
complete -F _seqfuse seqfuse
