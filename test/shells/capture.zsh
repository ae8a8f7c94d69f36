# zsh -f capture.zsh SCRIPT LINE: what zsh's own completion offers for LINE (typed, then Tab) with SCRIPT loaded,
# one match a line. An interactive zsh in a pseudo-terminal (zsh/zpty) runs the real completion widget: compinit,
# _describe, _arguments, _files and their matching against what is typed. Only compadd is wrapped, to print each
# match it adds (the technique of github.com/Valodim/zsh-capture-completion, written afresh here); a NUL line before
# and after the completion marks where its matches are in the terminal's output.
zmodload zsh/zpty || exit 2
zpty z zsh -f -i
zpty -w z 'PROMPT= RPROMPT='
zpty -w z 'autoload -U compinit && compinit -u -D'
zpty -w z "source ${(q)1}"
zpty -w z 'bindkey "^I" complete-word'
zpty -w z 'null-line () { print -n $'"'"'\0'"'"' }'
zpty -w z 'compprefuncs=( null-line ); comppostfuncs=( null-line exit )'
zpty -w z "zstyle ':completion:*' insert-tab false"
zpty -w z 'compadd () { if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi; local -a __hits; builtin compadd -A __hits "$@"; local h; for h in $__hits; do print -r -- "<match>$h"; done }'
zpty -n -w z "$2"$'\t'
integer nul=0
local line
while zpty -r z line; do
  [[ $line == *$'\0'* ]] && { (( nul++ )); (( nul == 2 )) && break; }
  (( nul == 1 )) && [[ $line == *'<match>'* ]] && print -r -- "${${line##*<match>}//[$'\r\n']/}"
done
zpty -d z
