package pkgstore_test

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// TestOptionsZeroAndNegative: every zero field of
// Options is its default and no negative value is taken: Scan refuses
// one (ErrInvalidOptions) and reads nothing. An empty, non-nil
// BinlinkDirs is the default too: binlinks keep what they point into, so
// they are never left unread by accident.
func TestOptionsZeroAndNegative(t *testing.T) {
	b := storetest.New(t).Pkg("core/redis/1/1").Binlink("bin", "redis", "/hab/pkgs/core/redis/1/1/bin/redis")
	for _, tc := range []struct {
		name string
		opts pkgstore.Options
		ok   bool
	}{
		{"zero", pkgstore.Options{}, true},
		{"empty binlink dirs", pkgstore.Options{BinlinkDirs: []string{}}, true},
		{"negative workers", pkgstore.Options{Workers: -1}, false},
		{"negative measure-beyond", pkgstore.Options{MeasureBeyond: -1}, false},
		{"negative install window", pkgstore.Options{InstallWindow: -time.Second}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Target = "x86_64-linux"
			if err := tc.opts.Validate(); (err == nil) != tc.ok || (err != nil && !errors.Is(err, pkgstore.ErrInvalidOptions)) {
				t.Fatalf("Validate: %v, want ok %v", err, tc.ok)
			}
			inv, err := pkgstore.Scan(context.Background(), b.Root, tc.opts)
			if !tc.ok {
				if !errors.Is(err, pkgstore.ErrInvalidOptions) || inv != nil {
					t.Fatalf("Scan: %v, want ErrInvalidOptions", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// On Windows a binlink is a binstub, not the symlink this
			// store has (binstubs: TestBinstubKeepsItsRelease).
			wantLinks := 1
			if runtime.GOOS == "windows" {
				wantLinks = len(inv.Binlinks)
			}
			if len(inv.Binlinks) != wantLinks || inv.InstallWindow != pkgstore.DefaultInstallWindow {
				t.Fatalf("binlinks %+v, install window %s: want the default dirs read and DefaultInstallWindow", inv.Binlinks, inv.InstallWindow)
			}
		})
	}
}
