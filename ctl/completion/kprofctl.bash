# SPDX-License-Identifier: GPL-2.0
#
# bash completion of kprofctl: its commands, sched's and lock's
# subcommands, and each command's long options.  Nothing is listed here:
# every list is asked of the kprofctl being completed, through its hidden
# completion helpers
#
#	kprofctl --list-cmds		the commands
#	kprofctl --list-opts		the global options
#	kprofctl CMD --list-cmds	CMD's subcommands (sched, lock)
#	kprofctl CMD [SUB] --list-opts	CMD's long options, "--name=" when
#					they take a value
#
# so it follows the binary and cannot go stale.  Values, arguments and the
# words after "--" complete as file names (complete -o default), the
# first word after "--" as a command.
#
# Install as /usr/share/bash-completion/completions/kprofctl (make install)
# or source it from ~/.bashrc.

_kprofctl()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=
	local prog=${COMP_WORDS[0]} cmd='' subs='' sub='' w i words

	COMPREPLY=()
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	# shellcheck disable=SC2088 # a "~/" the user typed, not expanded yet
	[[ $prog == "~/"* ]] && prog=$HOME/${prog#"~/"}

	# The words before the cursor: global options, the command, its
	# subcommand, its options, and after "--" a command line.
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ -z $cmd ]]; then
			[[ $w == -* ]] || cmd=$w
			[[ -n $cmd ]] && subs=$("$prog" "$cmd" --list-cmds 2>/dev/null)
			continue
		fi
		if [[ $w == -- ]]; then
			((COMP_CWORD == i + 1)) &&
				mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
			return 0
		fi
		[[ -n $subs && -z $sub && $w != -* ]] && sub=$w
	done

	# --opt=VALUE: bash splits the word at '='; values are files.
	[[ $cur == = || $prev == = ]] && return 0

	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			words=$("$prog" --list-opts 2>/dev/null)
		else
			words=$("$prog" --list-cmds 2>/dev/null)
		fi
	elif [[ $cur == -* ]]; then
		words=$("$prog" "$cmd" ${sub:+"$sub"} --list-opts 2>/dev/null)
	elif [[ -n $subs && -z $sub ]]; then
		words=$subs
	elif [[ $cmd == help && $prev == help ]]; then
		words=$("$prog" --list-cmds 2>/dev/null)
	else
		return 0
	fi

	mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
	# "--name=": the value follows without a space.
	if [[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]]; then
		compopt -o nospace 2>/dev/null
	fi
	return 0
}

complete -o default -F _kprofctl kprofctl
