package runroots

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/pkgstore"
)

func FuzzStorePaths(f *testing.F) {
	for _, s := range []string{
		"PATH=/hab/pkgs/core/redis/6.2.6/20210603120000/bin:/usr/bin",
		"--config=/hab/pkgs/a/b/1/2/c.conf",
		"/opt/hab/pkgs/a/b/1/2",
		"/hab/pkgs/",
		"x /hab/pkgs/a 'y' \"/hab/pkgs/b/c/d/e/f g\"",
	} {
		f.Add(s)
	}
	prefixes := []string{"/hab/pkgs/", "/srv/fs/hab/pkgs/"}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range storePaths(s, prefixes) {
			ok := false
			for _, pre := range prefixes {
				if strings.HasPrefix(p, pre) && strings.IndexFunc(p[len(pre):], func(r rune) bool { return r < 0x80 && isSep(byte(r)) }) < 0 {
					ok = true
				}
			}
			if !ok || !strings.Contains(s, p) {
				t.Fatalf("storePaths(%q) returned %q", s, p)
			}
		}
	})
}

func FuzzMapsPath(f *testing.F) {
	for _, s := range []string{
		"7f1c00000000-7f1c00021000 r-xp 00000000 08:01 99    /hab/pkgs/core/glibc/2.35/1/lib/libc.so.6 (deleted)\n",
		"55d0c2a00000-55d0c2a21000 rw-p 00000000 00:00 0     [heap]\n",
		"0-1 r 0 0 1 /x",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		p, _, ok := mapsPath(line)
		if ok && (!bytes.HasPrefix(p, []byte("/")) || !bytes.HasSuffix(bytes.TrimRight(line, "\n"), p)) {
			t.Fatalf("mapsPath(%q) = %q", line, p)
		}
	})
}

func FuzzMatch(f *testing.F) {
	for _, s := range []string{
		"/srv/fs/hab/pkgs/core/redis/6.2.6/20210603120000/bin/redis-server (deleted)",
		"/srv/fs/hab/pkgs/core/redis/6.2.6/" + pkgstore.DebrisPrefix + "pending-20210603120000-ABCDEFGHIJ/x",
		"/srv/fs/hab/pkgs/core/redis/6.2.6/" + pkgstore.DebrisPrefix + "doomed-x-ABCDEFGHIJ",
		"/srv/fs/hab/pkgs/../pkgs/a/b/c/d",
		"/srv/fs/hab/pkgs/a/b/../../../../etc/passwd",
	} {
		f.Add(s)
	}
	m, err := newMatcher("/srv/fs")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, p string) {
		id, file, _, ok := m.match(p)
		if !ok {
			return
		}
		if _, err := pkgstore.ParseFullIdent(id.String()); err != nil {
			t.Fatalf("match(%q) gave an invalid ident %q: %v", p, id, err)
		}
		if strings.HasPrefix(file, "/") || strings.Contains("/"+file+"/", "/../") {
			t.Fatalf("match(%q) gave file %q", p, file)
		}
	})
}

// FuzzHabInstallCommand: any command line is judged without panicking,
// and one it takes for an install names hab and is printable and capped.
func FuzzHabInstallCommand(f *testing.F) {
	for _, s := range []string{"hab\x00pkg\x00install\x00core/app\x00", "/hab/bin/hab\x00svc\x00load\x00-f\x00core/x", "hab\x00pkg", "", "\x00\x00", "hab\x00--x\x00pkg\x00--y\x00install"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, ok := habInstallCommand(b)
		if ok && (!strings.Contains(s, "hab") || len(s) > 203) {
			t.Fatalf("%q: %q", b, s)
		}
	})
}
