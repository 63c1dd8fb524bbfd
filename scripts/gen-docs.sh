#!/bin/sh
# Render every page from the binary's own tables (zealot help --pages):
#   scripts/gen-docs.sh man ZEALOT DIR   the man pages (zealot.1, zealot-CMD.1,
#                                         zealot-endpoint.5, zealot-laws.7)
#   scripts/gen-docs.sh md ZEALOT DIR    docs/cmd/*.md, docs/endpoint.md,
#                                         docs/laws.md (DIR is docs/)
# A page's name less its section and its "zealot-" is what
# `zealot help --man NAME` takes (zealot, plan, fleet-plan, endpoint, laws).
set -eu
what=$1 zealot=$2 dir=$3
mkdir -p "$dir"
[ "$what" = md ] && mkdir -p "$dir/cmd"
"$zealot" help --pages | while read -r page; do
	name=${page%.*}
	[ "$name" = zealot ] || name=${name#zealot-}
	if [ "$what" = man ]; then
		"$zealot" help --man "$name" >"$dir/$page.tmp"
		mv "$dir/$page.tmp" "$dir/$page"
	else
		case $name in
		zealot) out=$dir/cmd/README.md ;;
		endpoint | laws) out=$dir/$name.md ;;
		*) out=$dir/cmd/$name.md ;;
		esac
		"$zealot" help --markdown "$name" >"$out.tmp"
		mv "$out.tmp" "$out"
	fi
done
