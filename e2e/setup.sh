#!/usr/bin/env bash
# Installs what the browser tests (go test -tags e2e ./e2e/) need, without
# downloading any browser from Playwright's CDN:
#   - Chromium from Debian (/usr/bin/chromium);
#   - the npm packages of package.json (playwright-core 1.52.0, exactly the
#     version playwright-go v0.5200.1 drives, and the Cosmos test server);
#   - a Playwright driver directory .e2e/driver with package/ (playwright-core)
#     and node (a symlink to node), which the tests pass to playwright.Run.
# Idempotent; takes well under a second when everything is in place.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

want_core=1.52.0
driver="$root/.e2e/driver"

die() { echo "e2e/setup.sh: $*" >&2; exit 1; }

# Chromium (CI runs as root on a fresh Debian machine).
if [ ! -x /usr/bin/chromium ]; then
  echo "e2e/setup.sh: installing Debian's chromium"
  if [ "$(id -u)" -ne 0 ]; then
    die "/usr/bin/chromium is missing; install it as root: apt-get update && apt-get install -y chromium"
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update || die "apt-get update failed"
  apt-get install -y --no-install-recommends chromium || die "apt-get install chromium failed"
  [ -x /usr/bin/chromium ] || die "chromium was installed but /usr/bin/chromium is missing"
fi

# A Japanese font, so that screenshots show Japanese text rather than empty
# boxes (Chromium falls back to it for CJK characters).
# (grep reads the whole list: `fc-list | grep -q` fails under pipefail
# when grep stops early and fc-list dies of SIGPIPE.)
if ! fc-list 2>/dev/null | grep -i "Noto Sans CJK" >/dev/null; then
  echo "e2e/setup.sh: installing Debian's fonts-noto-cjk"
  [ "$(id -u)" -eq 0 ] || die "fonts-noto-cjk is missing; install it as root: apt-get install -y fonts-noto-cjk"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends fonts-noto-cjk fontconfig ||
    { apt-get update && apt-get install -y --no-install-recommends fonts-noto-cjk fontconfig; } || die "apt-get install fonts-noto-cjk failed"
fi

# Node and the pinned npm packages.
node=$(command -v node) || die "node is required: apt-get install -y nodejs npm"
core="$root/node_modules/playwright-core"
core_version() { "$node" -p "require('$1/package.json').version" 2>/dev/null || true; }
if [ "$(core_version "$core")" != "$want_core" ] || [ ! -f node_modules/.package-lock.json ] ||
   [ package.json -nt node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  command -v npm >/dev/null || die "npm is required: apt-get install -y nodejs npm"
  npm ci --no-audit --no-fund
  touch node_modules/.package-lock.json
fi
got=$(core_version "$core")
[ "$got" = "$want_core" ] || die "node_modules/playwright-core is ${got:-missing}, want $want_core exactly (pin it in package.json)"

# The driver directory: package -> node_modules/playwright-core, node -> node.
mkdir -p "$driver"
if [ "$(readlink "$driver/package" 2>/dev/null)" != "$core" ]; then
  rm -rf "$driver/package"
  ln -s "$core" "$driver/package"
fi
if [ "$(readlink "$driver/node" 2>/dev/null)" != "$node" ]; then
  rm -f "$driver/node"
  ln -s "$node" "$driver/node"
fi
version=$("$driver/node" "$driver/package/cli.js" --version 2>&1) || die "the driver does not run: $version"
case "$version" in
  *"$want_core"*) ;;
  *) die "the driver reports '$version', want $want_core" ;;
esac

mkdir -p "$root/e2e/screenshots"
echo "e2e/setup.sh: ready (chromium $(/usr/bin/chromium --version 2>/dev/null | awk '{print $2}'), playwright-core $want_core, driver $driver)"
