# bash completion for colstat(1).                           -*- shell-script -*-
# Installed to share/bash-completion/completions/colstat; or source it.
#
# Options and their values; -c/--columns offers the column names of the
# first FILE on the line (its header, split at the most frequent of
# , TAB ; |), then indices, for the item after the last comma of LIST
# (NAME, N, N-M, N-, /REGEX/, !ITEM).

_colstat_header_names()
{
    local file="" w i
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        case $w in
        -c | --columns | -d | --delimiter | -b | --binary | -o | --format | \
            --device | -j | --threads | --bins | --range | --null | \
            --thousands | --decimal | --digits | --layout | --quantiles | \
            --memory)
            ((i++))
            continue
            ;;
        -*) continue ;;
        esac
        [[ -r $w && -f $w ]] && { file=$w; break; }
    done
    [[ -n $file ]] || return
    local head
    case $file in
    *.gz) head=$(gzip -dc -- "$file" 2>/dev/null | head -n 1) ;;
    *) head=$(head -n 1 -- "$file" 2>/dev/null) ;;
    esac
    head=${head%$'\r'}
    head=${head#$'\xef\xbb\xbf'}
    local d=, best=0 c n
    for c in , $'\t' ';' '|'; do
        n=${head//[^$c]/}
        ((${#n} > best)) && { best=${#n}; d=$c; }
    done
    local IFS=$d
    local -a names=($head)
    local k
    for k in "${!names[@]}"; do
        names[k]=${names[k]#\"}
        names[k]=${names[k]%\"}
        printf '%s\n' "${names[k]}" "$((k + 1))"
    done
}

_colstat()
{
    local cur prev
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    [[ $COMP_CWORD -gt 0 ]] || prev=""

    case $prev in
    -c | --columns)
        # the item after the last comma; a leading ! excludes
        local head=${cur%,*} item=${cur##*,} bang=""
        [[ $cur == *,* ]] && head="$head," || head=""
        [[ $item == '!'* ]] && { bang='!'; item=${item#!}; }
        local IFS=$'\n'
        COMPREPLY=($(compgen -P "$head$bang" -W "$(_colstat_header_names)" \
            -- "$item"))
        [[ ${#COMPREPLY[@]} -gt 0 ]] || COMPREPLY=($(compgen -W \
            "${head}1 ${head}1-3 ${head}2- ${head}/REGEX/ ${head}!" -- "$cur"))
        compopt -o nospace 2>/dev/null
        return
        ;;
    -d | --delimiter)
        COMPREPLY=($(compgen -W ", ';' tab '|'" -- "$cur"))
        return
        ;;
    -b | --binary)
        local head=${cur%,*} item=${cur##*,}
        [[ $cur == *,* ]] && head="$head," || head=""
        COMPREPLY=($(compgen -P "$head" -W "i8 u8 i16 u16 i32 u32 i64 u64 f32 \
            f64 f64x2 f64x3" -- "$item"))
        compopt -o nospace 2>/dev/null
        return
        ;;
    -o | --format)
        COMPREPLY=($(compgen -W "table tsv csv json" -- "$cur"))
        return
        ;;
    --device)
        COMPREPLY=($(compgen -W "auto cpu gpu" -- "$cur"))
        return
        ;;
    --layout)
        COMPREPLY=($(compgen -W "auto wide long" -- "$cur"))
        return
        ;;
    --digits)
        COMPREPLY=($(compgen -W "$(seq 1 17)" -- "$cur"))
        return
        ;;
    --null)
        COMPREPLY=($(compgen -W "NA NA,N/A,null,-,\\\\N NULL -999" -- "$cur"))
        return
        ;;
    --thousands)
        COMPREPLY=($(compgen -W ", . \\' _" -- "$cur"))
        return
        ;;
    --decimal)
        COMPREPLY=($(compgen -W ". ," -- "$cur"))
        return
        ;;
    -j | --threads)
        COMPREPLY=($(compgen -W "1 2 4 8 16 $(nproc 2>/dev/null)" -- "$cur"))
        return
        ;;
    --bins | --range | --quantiles | --memory)
        return
        ;;
    esac

    # --emit-state=FILE: a file name after the '='
    if [[ $cur == --emit-state=* ]]; then
        COMPREPLY=($(compgen -P --emit-state= -f -- "${cur#--emit-state=}"))
        compopt -o filenames 2>/dev/null
        return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "-c --columns -d --delimiter --header \
            --no-header -b --binary -W --whitespace --null --thousands \
            --decimal --strict --count --sum --mean --std --min --max --hist \
            --median --quantiles --memory -a --all --bins --range -o --format --tsv --csv --json --digits \
            --layout --device -j --threads --progress --no-progress \
            --emit-state --merge --mpi -v --verbose -h --help -V --version" \
            -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
    compopt -o filenames 2>/dev/null
}

complete -F _colstat colstat
