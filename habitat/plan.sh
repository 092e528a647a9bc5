# Habitat plan for hab-gc: `hab svc load ORIGIN/hab-gc` runs `hab-gc daemon`
# under the Supervisor, configured from default.toml (see docs/fleet.md, "Running
# on a fleet"). Build from the repository root: `hab pkg build habitat`.
pkg_name=hab-gc
pkg_origin=${HAB_ORIGIN:-habgc}   # build with HAB_ORIGIN set to your origin
pkg_version="0.1.0"
pkg_maintainer="The hab-gc maintainers"
pkg_description="Removes old releases from a Habitat package store, never anything still needed"
pkg_upstream_url="https://github.com/hab-gc/hab-gc"
pkg_build_deps=(core/go)          # Go 1.26 or newer; pin a core/go1_NN package when your depot has one
pkg_deps=()                       # a static binary (CGO_ENABLED=0): nothing at run time
pkg_bin_dirs=(bin)
# hab-gc removes releases from /hab/pkgs, which root owns. It never runs
# hooks and never deletes outside the store (hab-gc safety).
pkg_svc_user="root"
pkg_svc_group="root"

# The source is this repository (the plan's parent directory): nothing to
# download, verify or unpack.
do_download() { return 0; }
do_verify() { return 0; }
do_unpack() { return 0; }

do_build() {
  export GOPATH="$HAB_CACHE_SRC_PATH/go" GOFLAGS="-mod=mod" CGO_ENABLED=0
  (cd "$PLAN_CONTEXT/.." && go build -trimpath -o "$CACHE_PATH/hab-gc" ./cmd/hab-gc)
}

do_check() {
  (cd "$PLAN_CONTEXT/.." && go vet ./...)
}

do_install() {
  install -D -m 0755 "$CACHE_PATH/hab-gc" "$pkg_prefix/bin/hab-gc"
}
