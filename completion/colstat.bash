# bash completion for colstat(1).                           -*- shell-script -*-
# Installed to share/bash-completion/completions/colstat; or source it.
#
# Options and their values; -c/--columns and -g/--group-by offer the
# column names of the first FILE on the line (colstat --list-columns FILE), then indices, for
# the item after the last comma of LIST (NAME, N, N-M, N-, /REGEX/,
# !ITEM). Values the shell would split or change complete quoted.

# A word as the shell reads it back: itself when it holds nothing the
# shell treats specially, else in single quotes (a ' inside as '\''), so
# that a column named "Order Date" or "it's" completes to a word the
# command then receives whole, and a backslash reaches colstat as typed.
_colstat_quote()
{
    if [[ $1 =~ ^[A-Za-z0-9_./:@%+=,^-]+$ ]]; then
        printf '%s\n' "$1"
    else
        printf "'%s'\n" "${1//\'/\'\\\'\'}"
    fi
}

# A word of the line as the shell will read it, roughly: its quotes and
# backslashes undone, nothing expanded (completion must never run what
# the line holds, as eval would).
_colstat_dequote()
{
    local w=$1
    case $w in
    \'*) w=${w#\'} w=${w%\'} ;;
    \"*) w=${w#\"} w=${w%\"} ;;
    *) w=${w//\\/} ;;
    esac
    printf '%s\n' "$w"
}

# A column name as an item of -c LIST: itself, except that a name holding
# a comma (which separates the items) is selected by the anchored regular
# expression that matches it alone. The name comes as --list-columns
# spells it: its escapes \n, \r and \\ are the expression's own.
_colstat_item()
{
    local n=$1 c out=""
    if [[ $n != *,* ]]; then
        printf '%s\n' "$n"
        return
    fi
    while [[ -n $n ]]; do
        c=${n:0:1}
        n=${n:1}
        if [[ $c == \\ && ${n:0:1} == [nr\\] ]]; then
            out+="\\${n:0:1}"
            n=${n:1}
            continue
        fi
        case $c in
        [\\.\[\]\(\)\{\}*+?\|^\$]) out+="\\$c" ;;
        *) out+=$c ;;
        esac
    done
    printf '/^%s$/\n' "$out"
}

# COMPREPLY: the candidates (one a line in $1) that start with $2, each
# prefixed with $3 and quoted as _colstat_quote does; $4 = item: each a
# column name made an item of -c (_colstat_item). Matching is done
# here, not by compgen -W, whose word splitting would drop quotes and
# backslashes of the candidates.
_colstat_reply()
{
    local want=$2 pre=$3 c
    want=$(_colstat_dequote "$want")
    COMPREPLY=()
    while IFS= read -r c; do
        [[ -n $c && $c == "$want"* ]] || continue
        [[ $4 == item ]] && c=$(_colstat_item "$c")
        COMPREPLY+=("$(_colstat_quote "$pre$c")")
    done <<<"$1"
}

# The column names of the first FILE on the line, one a line, as colstat
# itself names them (--list-columns: every format it reads, compressed
# or not, header detection, -W, -d and -b as given on the line), then
# the indices.
_colstat_header_names()
{
    local file="" w i
    local -a how=()
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        case $w in
        -d | --delimiter | -b | --binary | --names)
            # -d ';' or --delimiter=';' (bash splits at the =)
            [[ ${COMP_WORDS[i + 1]} == = ]] && ((i++))
            ((i++))
            how+=("$w" "$(_colstat_dequote "${COMP_WORDS[i]}")")
            continue
            ;;
        -c | --columns | -g | --group-by | -o | --format | --device | \
            -j | --threads | --bins | --range | --null | --thousands | --decimal | --digits | \
            --layout | --quantiles | --memory | --json-bigint | --part)
            [[ ${COMP_WORDS[i + 1]} == = ]] && ((i++))
            ((i++))
            continue
            ;;
        -W | --whitespace | --header | --no-header)
            how+=("$w")
            continue
            ;;
        -*) continue ;;
        esac
        w=$(_colstat_dequote "$w")
        [[ -r $w && -f $w ]] && { file=$w; break; }
    done
    [[ -n $file ]] || return
    local self=${COMP_WORDS[0]}
    [[ $self == */* ]] || self=$(type -P "$self" 2>/dev/null)
    [[ -x $self ]] || self=colstat
    local names
    names=$("$self" --list-columns "${how[@]}" -- "$file" 2>/dev/null) ||
        return
    printf '%s\n' "$names"
    local k n
    n=$(printf '%s\n' "$names" | wc -l)
    for ((k = 1; k <= n; k++)); do
        printf '%s\n' "$k"
    done
}

_colstat()
{
    local cur prev pre=""
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    [[ $COMP_CWORD -gt 0 ]] || prev=""
    # --opt=VALUE: bash splits it at the = (COMP_WORDBREAKS) into --opt,
    # =, VALUE; without that split it is one word, completed after the =
    if [[ $cur == = && $prev == --* ]]; then
        cur=""
    elif [[ $prev == = && $COMP_CWORD -gt 1 ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    elif [[ $cur == --*=* ]]; then
        prev=${cur%%=*}
        pre=$prev=
        cur=${cur#*=}
    fi

    case $prev in
    -c | --columns | -g | --group-by)
        # the item after the last comma; a leading ! excludes
        local head=${cur%,*} item=${cur##*,} bang=""
        [[ $cur == *,* ]] && head="$head," || head=""
        [[ $item == '!'* ]] && { bang='!'; item=${item#!}; }
        _colstat_reply "$(_colstat_header_names)" "$item" "$pre$head$bang" \
            item
        [[ ${#COMPREPLY[@]} -gt 0 ]] || _colstat_reply "$(printf '%s\n' \
            "${head}1" "${head}1-3" "${head}2-" "${head}/REGEX/" \
            "${head}!")" "$cur" "$pre"
        compopt -o nospace 2>/dev/null
        return
        ;;
    -d | --delimiter)
        _colstat_reply $',\n;\ntab\n|' "$cur" "$pre"
        return
        ;;
    -b | --binary)
        local head=${cur%,*} item=${cur##*,}
        [[ $cur == *,* ]] && head="$head," || head=""
        _colstat_reply "$(printf '%s\n' i8 u8 i16 u16 i32 u32 i64 u64 f32 \
            f64 f64x2 f64x3)" "$item" "$pre$head"
        compopt -o nospace 2>/dev/null
        return
        ;;
    -o | --format)
        _colstat_reply $'table\ntsv\ncsv\njson' "$cur" "$pre"
        return
        ;;
    --device)
        _colstat_reply $'auto\ncpu\ngpu' "$cur" "$pre"
        return
        ;;
    --layout)
        _colstat_reply $'auto\nwide\nlong' "$cur" "$pre"
        return
        ;;
    --json-bigint)
        _colstat_reply $'number\nstring' "$cur" "$pre"
        return
        ;;
    --digits)
        _colstat_reply "$(seq 1 17)" "$cur" "$pre"
        return
        ;;
    --null)
        # quoted as a whole: the \N reaches colstat as a backslash and N
        _colstat_reply $'NA\nNA,N/A,null,-,\\N\nNULL\n-999' "$cur" "$pre"
        return
        ;;
    --thousands)
        _colstat_reply $',\n.\n\'\n_' "$cur" "$pre"
        return
        ;;
    --decimal)
        _colstat_reply $'.\n,' "$cur" "$pre"
        return
        ;;
    -j | --threads)
        _colstat_reply "$(printf '%s\n' 1 2 4 8 16 $(nproc 2>/dev/null))" \
            "$cur" "$pre"
        return
        ;;
    --bins | --range | --quantiles | --memory | --part | --names | --top)
        return
        ;;
    --emit-state)
        # --emit-state=FILE: a file name after the '='
        [[ -n $pre || ${COMP_WORDS[COMP_CWORD - 1]} == = ||
            $cur == = ]] || return
        COMPREPLY=($(compgen -P "$pre" -f -- "$cur"))
        compopt -o filenames 2>/dev/null
        return
        ;;
    esac

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "-c --columns -g --group-by -d \
            --delimiter --header --no-header -b --binary -W --whitespace \
            --null --thousands --decimal --strict --list-columns --count \
            --sum --mean --std --min --max --hist --median --quantiles \
            --distinct --mode --top \
            --memory -a --all --bins --range -o --format --tsv --csv --json \
            --json-bigint --json-errors --digits --layout --device -j \
            --threads --progress --no-progress --emit-state --merge --part \
            --names --mpi -v --verbose -h --help -V --version" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
    compopt -o filenames 2>/dev/null
}

complete -F _colstat colstat
