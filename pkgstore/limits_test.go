package pkgstore_test

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/hab-gc/hab-gc/internal/storetest"
	"github.com/hab-gc/hab-gc/pkgstore"
)

// sparse makes path a sparse file of size bytes (no data blocks).
func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, size); err != nil {
		t.Skipf("cannot make a sparse file of %d bytes here: %v", size, err)
	}
}

// Metadata and spec files are read up to 1 MiB: a larger one, however
// large it claims to be, is a blocking problem that names the file and its
// size, found without reading it whole.
func TestScanCapsMetadataAndSpecReads(t *testing.T) {
	const rel = "core/a/1/20200101000000"
	cases := []struct {
		name string
		file string // relative to the FS root
		size int64
		kind pkgstore.ProblemKind
	}{
		{"sparse 100 GiB TARGET", "hab/pkgs/" + rel + "/TARGET", 100 << 30, pkgstore.ProblemTarget},
		{"sparse 128 MiB DEPS", "hab/pkgs/" + rel + "/DEPS", 128 << 20, pkgstore.ProblemDeps},
		{"sparse 128 MiB TDEPS", "hab/pkgs/" + rel + "/TDEPS", 128 << 20, pkgstore.ProblemDeps},
		{"sparse 2 MiB IDENT", "hab/pkgs/" + rel + "/IDENT", 2 << 20, pkgstore.ProblemIdent},
		{"sparse 128 MiB spec", "hab/sup/default/specs/a.spec", 128 << 20, pkgstore.ProblemSpec},
		{"just over the limit", "hab/pkgs/" + rel + "/DEPS", 1<<20 + 1, pkgstore.ProblemDeps},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := storetest.New(t)
			b.Pkg("core/b/1/20200101000000").Pkg(rel, "core/b/1/20200101000000").Spec("a", "core/a")
			sparse(t, b.Path(c.file), c.size)
			inv := scan(t, b.Root)
			var found *pkgstore.Problem
			for i, p := range inv.Problems {
				if p.Path == c.file {
					found = &inv.Problems[i]
				}
			}
			if found == nil {
				t.Fatalf("no problem for %s; problems: %v", c.file, inv.Problems)
			}
			if found.Kind != c.kind || !found.Blocking {
				t.Errorf("problem %v: want kind %s, blocking", *found, c.kind)
			}
			if !strings.Contains(found.Message, strconv.FormatInt(c.size, 10)) {
				t.Errorf("message %q does not give the size %d", found.Message, c.size)
			}
			if len(found.Message) > 300 {
				t.Errorf("message is %d bytes long", len(found.Message))
			}
		})
	}
}

// A bad line is quoted by a short prefix, not whole.
func TestScanQuotesShortPrefixOfBadLines(t *testing.T) {
	long := strings.Repeat("x/", 100000)
	cases := []struct{ name, file, content string }{
		{"DEPS line", "DEPS", long + "\n"},
		{"TDEPS line", "TDEPS", "core/b/1/20200101000000\n" + long + "\n"},
		{"IDENT", "IDENT", long},
		{"TARGET", "TARGET", long},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := storetest.New(t)
			b.Pkg("core/b/1/20200101000000").Pkg("core/a/1/20200101000000", "core/b/1/20200101000000")
			b.File("hab/pkgs/core/a/1/20200101000000/"+c.file, c.content)
			inv := scan(t, b.Root)
			n := 0
			for _, p := range inv.Problems {
				if strings.HasSuffix(p.Path, "/"+c.file) {
					n++
					if len(p.Message) > 300 {
						t.Errorf("problem message is %d bytes: %.200s...", len(p.Message), p.Message)
					}
					if !strings.Contains(p.Message, "x/x/x/") {
						t.Errorf("message %q does not quote the start of the content", p.Message)
					}
				}
			}
			if n == 0 {
				t.Fatalf("no problem for %s: %v", c.file, inv.Problems)
			}
		})
	}
}
