package retention_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
	"github.com/hab-gc/hab-gc/retention"
)

// Two releases of core/dep: the old one is what acme/app needs, the new one
// is the newest, so keep-latest=1 alone would remove the old one.
const (
	depOld = "core/dep/1.0/20200101000000"
	depNew = "core/dep/2.0/20210101000000"
)

// refuses checks that the store's damage makes a plan refuse, with a
// blocking problem at path whose message holds every one of says. It
// returns the inventory.
func refuses(t *testing.T, b *storetest.Builder, path string, says ...string) *pkgstore.Inventory {
	t.Helper()
	inv := scanStore(t, b)
	_, err := retention.Compute(inv, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge}, now, nil)
	var de *retention.DamagedError
	if !errors.As(err, &de) {
		t.Fatalf("plan not refused (err %v); problems: %v", err, inv.Problems)
	}
	for _, p := range de.Problems {
		if p.Path == path && containsAll(p.Message, says) {
			return inv
		}
	}
	t.Fatalf("no blocking problem at %s saying %q: %v", path, says, de.Problems)
	return nil
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// refusesThenKeeps is refuses, then checks that with AllowDamaged depOld
// is still kept.
func refusesThenKeeps(t *testing.T, b *storetest.Builder, path string, says ...string) {
	t.Helper()
	inv := refuses(t, b, path, says...)
	p, err := retention.Compute(inv, retention.Policy{KeepLatest: 1, MinAge: retention.NoMinAge, AllowDamaged: true}, now, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := decision(t, p, depOld); d.Action != retention.Keep {
		t.Fatalf("%s removed with --allow-damaged: %v", depOld, d.Reasons)
	}
}

// TestInvisibleCharactersInDeps: a DEPS or TDEPS line with a BOM, a
// zero-width space, a bidi control or another format character names no
// release Habitat could have written; it is malformed, and the run refuses
// naming the file and the line.
func TestInvisibleCharactersInDeps(t *testing.T) {
	for name, bad := range map[string]string{
		"BOM":              "\ufeff" + depOld,
		"zero width space": "core/dep/1.0\u200b/20200101000000",
		"RLO":              "core/\u202edep/1.0/20200101000000",
		"isolate":          "core/dep/\u20661.0/20200101000000",
		"soft hyphen":      "core/de\u00adp/1.0/20200101000000",
		"tag":              "core/dep/1.0/20200101000000\U000e0001",
	} {
		for _, file := range []string{"DEPS", "TDEPS"} {
			t.Run(name+"/"+file, func(t *testing.T) {
				b := storetest.New(t)
				oldPkg(b, depOld)
				oldPkg(b, depNew)
				rel := storetest.Release{Ident: "acme/app/1.0/20200101000000", ModTime: old,
					Deps: []string{"core/other/1/2", bad}, TDeps: []string{"core/other/1/2", bad}}
				if file == "DEPS" {
					rel.TDeps = []string{"core/other/1/2"}
				} else {
					rel.Deps = []string{"core/other/1/2"}
				}
				b.Add(rel)
				refuses(t, b, "hab/pkgs/acme/app/1.0/20200101000000/"+file, "line 2", "format character")
			})
		}
	}
}
