package pkgstore_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/internal/testtool"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// TestScanSettingsTarget: a target set is taken as it is (never inferred,
// even where inferring would fail) when Habitat knows it, and refused
// (ErrUnknownTarget) when not; no target is the one Habitat runs as
// (InferTarget), refused only when that is ambiguous. A store InferTarget
// cannot read is left to the scan: this machine's target, no error.
func TestScanSettingsTarget(t *testing.T) {
	const k2 = "x86_64-linux-kernel2"
	ambiguous := func(b *storetest.Builder) {
		b.Add(storetest.Release{Ident: "chef/hab/1.6.0/20200101000000", Target: k2},
			storetest.Release{Ident: "chef/hab/1.6.1/20200201000000", Target: notThisMachine()})
	}
	for _, tc := range []struct {
		name   string
		store  func(*storetest.Builder)
		target string
		want   string
		err    error
	}{
		{"set", ambiguous, "aarch64-darwin", "aarch64-darwin", nil},
		{"set, unknown", nil, "x86_64-plan9", "", pkgstore.ErrUnknownTarget},
		{"set, not trimmed", nil, " x86_64-linux", "", pkgstore.ErrUnknownTarget},
		{"inferred", func(b *storetest.Builder) {
			b.Add(storetest.Release{Ident: "chef/hab/1.6.0/20200101000000", Target: k2})
		}, "", k2, nil},
		{"inferred, ambiguous", ambiguous, "", "", pkgstore.ErrTargetAmbiguous},
		{"no store", func(b *storetest.Builder) { b.Remove("hab/pkgs") }, "", pkgstore.DefaultTarget(), nil},
		{"store unreadable: left to the scan", func(b *storetest.Builder) { b.Remove("hab/pkgs").File("hab/pkgs", "not a directory") }, "", pkgstore.DefaultTarget(), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := storetest.New(t)
			if tc.store != nil {
				tc.store(b)
			}
			o, err := pkgstore.ScanSettings{Target: tc.target}.Options(b.Root)
			if !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
				t.Fatalf("Options: %v, want %v", err, tc.err)
			}
			if err == nil && o.Target != tc.want {
				t.Fatalf("Target %q, want %q", o.Target, tc.want)
			}
		})
	}
}

// TestScanSettingsBinlinkDirs: HAB_BINLINK_DIR is read after the default
// directories, never instead of them; unset, the defaults alone.
func TestScanSettingsBinlinkDirs(t *testing.T) {
	root := testtool.TempDir(t)
	for _, tc := range []struct {
		dir  string
		want []string
	}{
		{"", pkgstore.DefaultBinlinkDirs()},
		{"opt/bin", append(pkgstore.DefaultBinlinkDirs(), "opt/bin")},
	} {
		o, err := pkgstore.ScanSettings{Target: "x86_64-linux", BinlinkDir: tc.dir}.Options(root)
		if err != nil || !slices.Equal(o.BinlinkDirs, tc.want) {
			t.Errorf("BinlinkDir %q: %v, %v; want %v", tc.dir, o.BinlinkDirs, err, tc.want)
		}
	}
}

// TestScanSettingsBinlinkDirRead: the directory HAB_BINLINK_DIR names is
// read by the scan: a binlink there keeps the release it points into. (A
// binstub, as `hab pkg binlink` writes on Windows: read on every OS.)
func TestScanSettingsBinlinkDirRead(t *testing.T) {
	const r = "core/redis/7.0.0/20210101000000"
	b := storetest.New(t)
	b.Add(storetest.Release{Ident: r, Target: "x86_64-windows", Files: map[string]string{"bin/redis-cli.exe": "MZ"}})
	b.Binstub("opt/bin", "redis-cli", stubTarget, nil)
	for _, tc := range []struct {
		dir  string
		want int
	}{{"", 0}, {"opt/bin", 1}} {
		o, err := pkgstore.ScanSettings{Target: "x86_64-windows", BinlinkDir: tc.dir}.Options(b.Root)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(scanWith(t, b.Root, o).Binlinks); got != tc.want {
			t.Errorf("BinlinkDir %q: %d binlinks, want %d", tc.dir, got, tc.want)
		}
	}
}

// TestParseInstallWindow: a duration, 0 the default; no none, nothing
// negative, nothing else.
func TestParseInstallWindow(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"10m", 10 * time.Minute, true},
		{" 2h ", 2 * time.Hour, true},
		{"0", 0, true},
		{"0s", 0, true},
		{"1ns", time.Nanosecond, true},
		{"none", 0, false},
		{"-1s", 0, false},
		{"10", 0, false},
		{"", 0, false},
		{"soon", 0, false},
	} {
		got, err := pkgstore.ParseInstallWindow(tc.in)
		if tc.ok != (err == nil) || got != tc.want || (err != nil && !errors.Is(err, pkgstore.ErrBadInstallWindow)) {
			t.Errorf("ParseInstallWindow(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	// Through ScanSettings: unset is the default (0), a bad one refused.
	root := testtool.TempDir(t)
	o, err := pkgstore.ScanSettings{Target: "x86_64-linux"}.Options(root)
	if err != nil || o.InstallWindow != 0 {
		t.Errorf("unset: %v, %v; want 0", o.InstallWindow, err)
	}
	w := "15m"
	if o, err = (pkgstore.ScanSettings{Target: "x86_64-linux", InstallWindow: &w}).Options(root); err != nil || o.InstallWindow != 15*time.Minute {
		t.Errorf("15m: %v, %v", o.InstallWindow, err)
	}
	w = "none"
	if _, err = (pkgstore.ScanSettings{Target: "x86_64-linux", InstallWindow: &w}).Options(root); !errors.Is(err, pkgstore.ErrBadInstallWindow) {
		t.Errorf("none: %v, want ErrBadInstallWindow", err)
	}
}

// scanWith scans root with opts, failing the test on an error.
func scanWith(t *testing.T, root string, opts pkgstore.Options) *pkgstore.Inventory {
	t.Helper()
	inv, err := pkgstore.Scan(t.Context(), root, opts)
	if err != nil {
		t.Fatal(err)
	}
	return inv
}
