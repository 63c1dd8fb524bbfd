#!/bin/sh
# The pictures docs/ shows, from the seeds' current endpoint on its
# stand-in payloads (make examples writes them):
#   scripts/pictures.sh ZEALOT DIR        DIR/budget-plan.svg and
#                                         DIR/budget-rungs.svg, and each as
#                                         PNG through headless Chromium
#   scripts/pictures.sh ZEALOT DIR --svg  the SVG alone (tests/cli/svg.sh
#                                         regenerates them to hold docs/'s
#                                         fresh: PNG pixels differ by machine)
# Nothing of this host enters them: CPU features pinned, no store (no
# calibration), the endpoint's name as the title.
set -eu
zealot=$1 dir=$2 only=${3:-}
here=$(cd "$(dirname "$0")/.." && pwd)
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
export ZEALOT_STATE_DIR="$state"
ep=$here/examples/history/frank-zealot.env
mkdir -p "$dir"
"$zealot" plan "$ep" --set CPU_FEATURES=avx2 --no-calibration --svg "$dir/budget-plan.svg.new" >/dev/null
"$zealot" rungs "$ep" --set CPU_FEATURES=avx2 --svg "$dir/budget-rungs.svg.new" >/dev/null
mv "$dir/budget-plan.svg.new" "$dir/budget-plan.svg"
mv "$dir/budget-rungs.svg.new" "$dir/budget-rungs.svg"
[ "$only" = --svg ] && exit 0
chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chrome" ]; then
	echo "pictures: chromium is not installed (scripts/install-deps.sh installs it): SVG only" >&2
	exit 1
fi
for pic in budget-plan budget-rungs; do
	w=$(sed -n 's/.*<svg [^>]*width="\([0-9]*\)".*/\1/p' "$dir/$pic.svg" | head -1)
	h=$(sed -n 's/.*<svg [^>]*height="\([0-9]*\)".*/\1/p' "$dir/$pic.svg" | head -1)
	HOME=$state timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--force-device-scale-factor=1 --user-data-dir="$state/chrome" --window-size="$w,$h" \
		--screenshot="$dir/$pic.png" "file://$(cd "$dir" && pwd)/$pic.svg" >/dev/null 2>&1
	[ -s "$dir/$pic.png" ] || { echo "pictures: chromium drew no $dir/$pic.png" >&2; exit 1; }
done
