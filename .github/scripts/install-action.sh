#!/usr/bin/env bash
# The action's install step (action.yml): puts `bankops` on the job's PATH (GITHUB_PATH).
#   VERSION set, or the action used at a tag vX.Y.Z: that release's bankops-X.Y.Z.tar.gz, cached under ~/.cache/bankops;
#   otherwise the action's own checkout, whose launcher builds it on first use.
set -euo pipefail
version=${VERSION:-}
if [ -z "$version" ] && [[ "${GITHUB_ACTION_REF:-}" =~ ^v[0-9] ]]; then version=${GITHUB_ACTION_REF#v}; fi
bin=$RUNNER_TEMP/bankops-bin
mkdir -p "$bin"
if [ -n "$version" ]; then
  [[ "$version" =~ ^[0-9A-Za-z.+-]+$ ]] || { echo "bankops action: version '$version' is not a release version" >&2; exit 2; }
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/bankops/dist
  if [ ! -x "$cache/bankops-$version/bin/bankops" ]; then
    mkdir -p "$cache"
    repo=${GITHUB_ACTION_REPOSITORY:-$GITHUB_REPOSITORY}
    url=https://github.com/$repo/releases/download/v$version/bankops-$version.tar.gz
    curl -fsSL --retry 3 -o "$cache/bankops-$version.tar.gz.part" "$url" ||
      { echo "bankops action: could not download $url" >&2; exit 3; }
    tar -C "$cache" -xzf "$cache/bankops-$version.tar.gz.part"
    rm -f "$cache/bankops-$version.tar.gz.part"
  fi
  ln -sf "$cache/bankops-$version/bin/bankops" "$bin/bankops"
else
  ln -sf "$GITHUB_ACTION_PATH/bankops" "$bin/bankops"
fi
echo "$bin" >> "$GITHUB_PATH"
"$bin/bankops" --version
