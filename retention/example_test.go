package retention_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// A Supervisor-like program has just updated the redis service. It asks
// hab-gc to clean up after core/redis only, keeping two releases, and
// prints the plan.
func Example_afterServiceUpdate() {
	fsRoot, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(fsRoot)
	for _, id := range []string{
		"core/redis/6.2.5/20210101000000",
		"core/redis/6.2.6/20210601000000",
		"core/redis/7.0.0/20220101000000", // just installed by the update
		"core/nginx/0.9.0/20190101000000",
		"core/nginx/1.0.0/20200101000000",
		"core/nginx/1.1.0/20210101000000",
	} {
		dir := filepath.Join(fsRoot, "hab/pkgs", id)
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "TARGET"), []byte("x86_64-linux"), 0o644)
		os.WriteFile(filepath.Join(dir, "IDENT"), []byte(id), 0o644)
	}
	os.MkdirAll(filepath.Join(fsRoot, "hab/sup/default/specs"), 0o755)
	os.WriteFile(filepath.Join(fsRoot, "hab/sup/default/specs/redis.spec"), []byte(`ident = "core/redis"`), 0o644)

	store, err := pkgstore.Open(fsRoot)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	inv, err := store.Scan(context.Background(), pkgstore.Options{Target: "x86_64-linux"})
	if err != nil {
		panic(err)
	}
	policy := retention.Policy{
		KeepLatest: 2,
		Only:       []pkgstore.Ident{pkgstore.MustParseIdent("core/redis")},
		MinAge:     retention.NoMinAge, // the example's releases were just written
	}
	plan, err := retention.Compute(inv, policy, time.Now(), store.HasUninstallHook)
	if err != nil {
		panic(err)
	}
	for _, d := range plan.Decisions {
		fmt.Printf("%-6s %s (%s)\n", d.Action, d.Release.Ident, d.Reasons[0].Code)
	}
	// Output:
	// keep   core/nginx/0.9.0/20190101000000 (outside-only)
	// keep   core/nginx/1.0.0/20200101000000 (latest)
	// keep   core/nginx/1.1.0/20210101000000 (latest)
	// remove core/redis/6.2.5/20210101000000 (superseded)
	// keep   core/redis/6.2.6/20210601000000 (latest)
	// keep   core/redis/7.0.0/20220101000000 (latest)
}
