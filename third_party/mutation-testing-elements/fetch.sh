#!/usr/bin/env bash
# Fetches the mutation-testing-elements web component at the pinned version
# from the npm registry, with its license: what mutate embeds in its HTML
# reports. Run it from anywhere; it writes next to itself.
set -euo pipefail
version=3.8.4
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "mutation-testing-elements@$version" >/dev/null)
tar -xzf "$tmp/mutation-testing-elements-$version.tgz" -C "$tmp"
cp "$tmp/package/dist/mutation-test-elements.js" mutation-test-elements.js
cp "$tmp/package/LICENSE" LICENSE
echo "mutation-testing-elements $version: $(wc -c < mutation-test-elements.js) bytes"
