package main

import (
	"github.com/spf13/pflag"

	"github.com/hab-gc/hab-gc/supervisor"
)

// addPolicyFlags adds the retention policy flags to a command.
func addPolicyFlags(fs *pflag.FlagSet) {
	// Counts are strings so that a bad value is reported as every other
	// setting's is, and so that the bare --keep-latest can mean 1 while
	// "--keep-latest 3" still means 3 (see joinOptionalValues).
	fs.String("keep-latest", "", "keep the newest `N` releases of each origin/name (--keep-latest N, --keep-latest=N; a bare --keep-latest means 1)")
	fs.Lookup("keep-latest").NoOptDefVal = "1"
	fs.String("self-keep-latest", "", "`N` releases to keep of each of Habitat's own packages (chef/hab, chef/hab-sup, chef/hab-launcher and their core/ predecessors); unset, no chef/hab release is ever removed (as hab pkg uninstall) and chef/hab-sup, chef/hab-launcher keep --keep-latest, at least 1")
	fs.StringArray("exclude", nil, "never remove releases matching IDENT[@CONSTRAINT], e.g. core/redis, core/redis/6.2.6 or 'core/postgresql@>=11 <12' (repeatable)")
	fs.StringArray("only", nil, "only remove releases of ORIGIN/NAME (or ORIGIN/NAME/VERSION, keeping the newest --keep-latest of that version) and the dependencies only they needed (repeatable)")
	fs.StringArray("keep-latest-for", nil, "per-package count `ORIGIN/NAME=N`: keep the newest N releases of that package instead of --keep-latest (repeatable; env HAB_GC_KEEP_LATEST_FOR: core/postgresql=5;core/redis=2)")
	fs.Bool("services-only", false, "only remove releases of loaded services' packages (their spec idents: a spec pinned to core/redis/6.2.5 keeps the newest --keep-latest of 6.2.5 and leaves other versions alone) and the dependencies only they needed")
	fs.Bool("no-deps", false, "keep the dependencies that a limited purge (--only, --services-only) frees, as hab pkg uninstall --no-deps; a loaded service's version-pinned spec keeps the newest --keep-latest of that version")
	fs.Bool("free-deps", false, "keep-latest counts what a package is for, not what it is needed for: with --only or --services-only, the dependencies only the removed releases needed go whatever their own package's count (as the Supervisor's purge); store-wide, the older releases of a package other packages need are kept only while a kept release needs them (its newest stays by count)")
	fs.Bool("only-supervisor-installed", false, "only remove releases the Supervisor (hab-sup) installed, as hab-gc watch recorded it; a release the hab CLI or another program installed, or whose installer is unknown (installed while watch was not running), is kept with all it needs")
	fs.String("min-age", "", "keep releases installed less than this long ago (default 1h; none turns it off)")
	fs.String("install-window", "", "an install directory, download or fetched archive changed less than this long ago is an install in progress, and removals wait for it (default 1h; it cannot be turned off)")
	fs.Bool("ignore-uninstall-hooks", false, "allow removing the last release of a package that ships an uninstall hook (hab-gc never runs hooks)")
	fs.Bool("allow-damaged", false, "plan despite a damaged store: damaged releases and all they name are kept (where what a release needs cannot be read at all, no release is removed)")
	fs.String("runtime-roots", "true", "keep every release a running process uses (executes, maps, holds open, works in, names in its environment or command line), read from /proc; where /proc does not show every process fully, the releases to remove are checked with write leases, and the run is refused if they cannot be: best-effort goes on then, false turns it off (env HAB_GC_RUNTIME_ROOTS)")
	fs.Lookup("runtime-roots").NoOptDefVal = "true"
	fs.String("sup-gateway-ca-certs", "", "PEM `FILE` of the CA that verifies an https sup-gateway (the root CA of the Supervisor's --certs; default: the system's roots)")
	fs.String("sup-gateway-certs", "", "PEM `FILE` of the client certificate (chain) to present to an https sup-gateway, for a Supervisor started with --ca-certs (needs --sup-gateway-key)")
	fs.String("sup-gateway-key", "", "PEM `FILE` of the private key of --sup-gateway-certs")
	fs.String("sup-gateway", "", "ask the Supervisor's HTTP gateway what its services run at URL (token from "+supervisor.TokenEnv+"; env HAB_GC_SUP_GATEWAY); if it does not answer, nothing is removed. Default: "+supervisor.DefaultURL+", asked briefly, the services' PID files telling where nothing answers")
}
