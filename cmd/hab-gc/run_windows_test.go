//go:build windows

package main

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
)

// TestRunWindowsStore: `hab-gc run` on a store laid out as Habitat lays
// it out on Windows (target x86_64-windows, programs under bin, a binstub
// in hab\bin as `hab pkg binlink` writes it, naming its release in
// another case): a dry run reports, a real run removes the old releases,
// and keeps the newest and the one the binstub names (run under Wine by
// .ci/run; its in-process commands need no testscript commands).
func TestRunWindowsStore(t *testing.T) {
	const (
		r1 = "core/redis/4.0.14/20200101000000"
		r2 = "core/redis/5.0.0/20200201000000"
		r3 = "core/redis/6.2.6/20210101000000"
	)
	b := storetest.New(t)
	for _, id := range []string{r1, r2, r3} {
		b.Add(storetest.Release{Ident: id, Target: "x86_64-windows", ModTime: storetest.OldTime(), Files: map[string]string{
			"bin/redis-cli.exe": "MZ", "bin/libssl-1_1-x64.dll": "MZ"}})
	}
	b.Binstub("hab/bin", "redis-cli", `C:\hab\pkgs\CORE\REDIS\4.0.14\20200101000000\bin\redis-cli.exe`, nil)
	args := []string{"run", "--fs-root", b.Root, "--target", "x86_64-windows", "--keep-latest=1", "--min-age=none", "--runtime-roots=false", "--json"}
	code, out, errs := hab(t, nil, append(args, "--dry-run")...)
	if code != 0 {
		t.Fatalf("dry run: exit %d, stderr %s", code, errs)
	}
	var rep struct {
		Releases []struct {
			Ident  string `json:"ident"`
			Action string `json:"action"`
		} `json:"releases"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("dry run's JSON: %v\n%s", err, out)
	}
	actions := map[string]string{}
	for _, r := range rep.Releases {
		actions[r.Ident] = r.Action
	}
	if actions[r1] != "keep" || actions[r2] != "remove" || actions[r3] != "keep" {
		t.Fatalf("dry run's actions %v, want %s kept (its binstub), %s removed, %s kept", actions, r1, r2, r3)
	}
	for _, id := range []string{r1, r2, r3} {
		if _, err := os.Stat(b.PkgPath(id)); err != nil {
			t.Fatalf("the dry run changed %s: %v", id, err)
		}
	}
	if code, _, errs := hab(t, nil, args...); code != 0 {
		t.Fatalf("run: exit %d, stderr %s", code, errs)
	}
	if _, err := os.Stat(b.PkgPath(r2)); !os.IsNotExist(err) {
		t.Errorf("%s still there: %v", r2, err)
	}
	for _, id := range []string{r1, r3} {
		if _, err := os.Stat(b.PkgPath(id) + "/bin/redis-cli.exe"); err != nil {
			t.Errorf("%s was removed: %v", id, err)
		}
	}
}
