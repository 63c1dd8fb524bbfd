#!/usr/bin/env bash
# Install the Debian packages zealot builds and tests with. Idempotent: a
# machine that has them all skips apt entirely.
set -euo pipefail

pkgs=(
	build-essential clang libclang-rt-14-dev   # compiler, libFuzzer, sanitizers
	cmake git                                  # the engine's build
	libjansson-dev libsqlite3-dev sqlite3      # JSON, the store (eras, boots, deploys)
	libcurl4-openssl-dev libssl-dev zlib1g-dev # HTTP, SHA-256, PNG (live probes)
	jq curl clang-format systemd python3       # shell tests, style check, systemd-analyze, fake engines
	chromium libxml2-utils fonts-dejavu-core    # the budget picture rendered, parsed and its labels laid out (tests/cli/svg.sh)
	prometheus ansible                         # promtool and ansible-playbook check the fleet's emitted files (tests/cli/emit-fleet.sh)
	prometheus-node-exporter                   # its textfile collector serves zealot ledger --prom (tests/live/prometheus.sh)
	nginx                                      # a real HTTP server on loopback for the fetch tests
	man-db groff-base dpkg-dev                 # man -l renders the pages, dpkg-buildpackage builds the .deb (tests/cli/install.sh, deb.sh)
	systemd-container                          # systemd-nspawn: a real systemd for the deploy tests (tests/systemd.sh)
	openssh-server openssh-client ansible-core # a fleet's hosts in containers, each its own sshd (tests/fleet.sh)
	libvulkan-dev glslc spirv-headers          # the Vulkan engine's build (scripts/build-engine.sh --vulkan)
	mesa-vulkan-drivers                        # lavapipe, the Vulkan device it runs on here (tests/live/vulkan.sh)
)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	echo "install-deps: apt-get install ${missing[*]}" >&2
	$sudo apt-get update -qq
	# openssh-server (and nginx) must never start on the build host: only
	# the test containers run an sshd. A policy-rc.d that forbids every
	# service start holds for this install (one already there is kept).
	guard=
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
		$sudo chmod 755 /usr/sbin/policy-rc.d
		guard=1
	fi
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
	[ -z "$guard" ] || $sudo rm -f /usr/sbin/policy-rc.d
fi
