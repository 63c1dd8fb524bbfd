# bash completion for zealot. The names come from zealot itself (its
# command table, `fleet --list`, each command's --help), so this file never
# lists a command or an option and cannot drift from the binary.
_zealot() {
	local zealot=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]} sub=
	if [ "$COMP_CWORD" -eq 1 ]; then
		mapfile -t COMPREPLY < <(compgen -W "$("$zealot" help --commands 2>/dev/null) help --help --version" -- "$cur")
		return
	fi
	case $cmd in
	help)
		[ "$COMP_CWORD" -eq 2 ] &&
			mapfile -t COMPREPLY < <(compgen -W "$("$zealot" help --commands 2>/dev/null) endpoint laws" -- "$cur")
		return
		;;
	explain)
		if [[ $cur != -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "$("$zealot" explain 2>/dev/null | cut -d' ' -f1)" -- "${cur^^}")
			return
		fi
		;;
	fleet)
		if [ "$COMP_CWORD" -eq 2 ]; then
			mapfile -t COMPREPLY < <(compgen -W "$("$zealot" fleet --list 2>/dev/null)" -- "$cur")
			return
		fi
		sub=${COMP_WORDS[2]}
		;;
	esac
	if [[ $cur == -* ]]; then
		# shellcheck disable=SC2086
		mapfile -t COMPREPLY < <(compgen -W "$("$zealot" "$cmd" $sub --help 2>/dev/null |
			sed -nE 's/^  (-[a-zA-Z], )?(--[a-z0-9-]+).*/\2/p')" -- "$cur")
		return
	fi
	compopt -o filenames 2>/dev/null
	mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -F _zealot zealot
