package pkgstore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"

	"github.com/hab-gc/hab-gc/internal/testtool"
)

// FuzzInstallDir reads an install directory of any name holding any
// TDEPS, beside a cached archive of any content: the scan never fails,
// records one install, names a release only as the directory it lies in
// allows, and keeps only valid full idents as what it needs.
func FuzzInstallDir(f *testing.F) {
	f.Add(".hab-pkg-install-20261201000000abcdef", "20261201000000", "core/dep/1.0/20200101000000\n", []byte(nil))
	f.Add(".hab-pkg-install-x", "y", "../../../etc/passwd\n", storetest.Archive{Ident: "core/app/1.0/20261201000000", Deps: []string{"core/dep/1.0/20200101000000"}}.Bytes())
	f.Add(".hab-pkg-install-20261201000000abcdef", "20261201000000", "", storetest.Archive{Ident: "core/app/1.0/20261201000000", Prefix: "opt/", Parents: true, TDeps: []string{"core/a/1/2", "bad"}}.Bytes())
	f.Fuzz(func(t *testing.T, entry, release, tdeps string, archive []byte) {
		if strings.ContainsAny(entry+release, "/\x00") || release == "" || release == "." || release == ".." || len(entry) > 200 || len(release) > 100 {
			return
		}
		entry = pkgstore.InstallTempPrefix + strings.TrimPrefix(entry, pkgstore.InstallTempPrefix)
		if strings.HasPrefix(entry, pkgstore.DebrisPrefix) {
			return
		}
		root := testtool.TempDir(t)
		b := storetest.At(t, root)
		tmp := "hab/pkgs/core/app/1.0/" + entry
		b.File(tmp+"/hab/pkgs/core/app/1.0/"+release+"/TDEPS", tdeps)
		if archive != nil {
			dir := filepath.Join(root, "hab/cache/artifacts")
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, "core-app-1.0-"+release+"-x86_64-linux.hart"), archive, 0o644)
		}
		inv, err := pkgstore.Scan(context.Background(), root, pkgstore.Options{Target: "x86_64-linux", Now: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		if len(inv.Installing) != 1 {
			t.Fatalf("installing %+v", inv.Installing)
		}
		in := inv.Installing[0]
		if in.Release.Origin != "" && (in.Release.Origin != "core" || in.Release.Name != "app" || in.Release.Version != "1.0") {
			t.Fatalf("release %s from %s", in.Release, entry)
		}
		for _, d := range in.Deps {
			if _, err := pkgstore.ParseFullIdent(d.String()); err != nil {
				t.Fatalf("dep %q: %v", d, err)
			}
		}
		if !in.Active {
			t.Fatal("a directory just made is not active")
		}
	})
}
