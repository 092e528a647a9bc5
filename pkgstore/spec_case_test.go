package pkgstore_test

import (
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
)

// The Supervisor runs what `ident` names; a later `Ident` is another key,
// which its serde ignores (components/sup/src/manager/service/spec.rs), so
// the scan resolves the service to 6.2.5, not 6.2.6.
func TestScanSpecKeysAreCaseSensitive(t *testing.T) {
	b := storetest.New(t)
	b.Pkg("core/redis/6.2.5/20210101000000").Pkg("core/redis/6.2.6/20220101000000").
		File("hab/sup/default/specs/redis.spec", "ident = \"core/redis/6.2.5\"\nIdent = \"core/redis/6.2.6\"\nDesired_State = \"down\"\n")
	inv := scan(t, b.Root)
	if len(inv.Services) != 1 {
		t.Fatalf("services = %+v, problems %v", inv.Services, inv.Problems)
	}
	s := inv.Services[0]
	if s.Resolved.String() != "core/redis/6.2.5/20210101000000" || s.DesiredState != "up" {
		t.Fatalf("service resolved to %s (%s), want core/redis/6.2.5/20210101000000 (up)", s.Resolved, s.DesiredState)
	}
}
